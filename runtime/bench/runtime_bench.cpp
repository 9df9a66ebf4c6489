// Runtime measurements (issue 4): JIT compile time of modal models (cold and from the cache),
// the DSP load of a 500-mode model at 48 kHz / 256 frames, and xruns over 60 s of live play
// on a private `jackd -d dummy`. Run: build/runtime/mesh2dsp_runtime_bench
//   --benchmark_filter=Compile   (compile only)      --benchmark_filter=Live   (the 60 s run)
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <jack/jack.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "runtime/jit/faust_compiler.hpp"
#include "runtime/live/player.hpp"
#include "runtime/render/offline_render.hpp"
#include "util/progress.hpp"

namespace {

namespace fs = std::filesystem;
using namespace mesh2dsp::runtime;

// A modal model shaped like the generator's output (and Mesh2Faust's): N modes with their own
// frequency, T60 and gain, a global frequency scale and T60 scale, struck by an impulse. The
// "plain" variant has constant frequencies (the 1.15 s reference bank).
std::string modal_model(int modes, bool with_controls) {
  std::string s = "import(\"stdfaust.lib\");\n";
  if (with_controls)
    s += "freq = hslider(\"freq[scale:log][unit:Hz]\", 1, 0.25, 4, 0.001);\n"
         "t60Scale = hslider(\"t60Scale\", 1, 0.1, 4, 0.01);\n";
  s += "gate = button(\"gate\");\nmodes = ";
  for (int n = 0; n < modes; ++n) {
    // Inharmonic, plate-like partials between 80 Hz and ~18 kHz; decay shortens with frequency.
    const double f = 80.0 * std::pow(1.0 + n, 1.3) * (1.0 + 0.013 * std::sin(n * 1.7));
    const double f_hz = std::min(f, 18000.0 - n * 0.5);
    const double t60 = 3.0 / (1.0 + f_hz / 1000.0);
    const double g = 1.0 / std::sqrt(1.0 + n);
    s += fmt::format("{}pm.modeFilter({:.4f}{}, {:.4f}{}, {:.5f})", n ? ",\n  " : "", f_hz,
                     with_controls ? "*freq" : "", t60, with_controls ? "*t60Scale" : "", g);
  }
  s += ";\nprocess = gate : ba.impulsify <: " + std::string("modes :> *(0.05);\n");
  return s;
}

fs::path bench_dir() {
  static const fs::path dir = [] {
    auto d = fs::temp_directory_path() / fmt::format("mesh2dsp-runtime-bench-{}", getpid());
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

fs::path model_file(int modes, bool with_controls) {
  const auto path = bench_dir() / fmt::format("modal{}{}.dsp", modes, with_controls ? "" : "_plain");
  if (!fs::exists(path)) std::ofstream(path) << modal_model(modes, with_controls);
  return path;
}

CompileOptions with_cache(const fs::path& dir) {
  CompileOptions options;
  options.cache_directory = dir;
  return options;
}

void BM_CompileCold(benchmark::State& state) {
  const int modes = static_cast<int>(state.range(0));
  const bool controls = state.range(1) != 0;
  const auto file = model_file(modes, controls);
  const FaustCompiler compiler(CompileOptions{});  // no cache: every iteration compiles
  for (auto _ : state) benchmark::DoNotOptimize(compiler.compile_file(file));
  state.SetLabel(controls ? "freq/t60 sliders" : "plain bank");
}

void BM_CompileFromCache(benchmark::State& state) {
  const int modes = static_cast<int>(state.range(0));
  const bool controls = state.range(1) != 0;
  const auto file = model_file(modes, controls);
  const FaustCompiler compiler(with_cache(bench_dir() / "cache"));
  compiler.compile_file(file);  // fill the cache (not timed)
  bool all_cached = true;
  for (auto _ : state) {
    auto program = compiler.compile_file(file);
    all_cached &= program.from_cache();
    auto instance = program.instantiate();  // what a start needs before audio: part of the load
    instance->init(48000);
    benchmark::DoNotOptimize(instance);
  }
  if (!all_cached) state.SkipWithError("an iteration did not load from the cache");
  state.SetLabel(controls ? "freq/t60 sliders" : "plain bank");
}

// The audio callback's work for a 500-mode model: one 256-frame compute at 48 kHz.
void BM_Compute(benchmark::State& state) {
  const int modes = static_cast<int>(state.range(0));
  const FaustCompiler compiler(with_cache(bench_dir() / "cache"));
  auto instance = compiler.compile_file(model_file(modes, true)).instantiate();
  instance->init(48000);
  constexpr int kFrames = 256;
  std::vector<float> out(kFrames);
  float* outputs[] = {out.data()};
  for (auto _ : state) instance->compute(kFrames, nullptr, outputs);
  const double block_s = kFrames / 48000.0;
  // elapsed / (iterations × block_s / 100) = percent of the real-time budget per block.
  state.counters["dsp_load_%"] = benchmark::Counter(
      block_s / 100.0, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// 60 s of live play through JACK's dummy driver at 48 kHz / 256 frames.
void BM_LivePlay(benchmark::State& state) {
  const int modes = static_cast<int>(state.range(0));
  const double seconds = static_cast<double>(state.range(1));
  const std::string server = fmt::format("mesh2dsp-rt-bench-{}", getpid());
  setenv("JACK_DEFAULT_SERVER", server.c_str(), 1);
  const pid_t jackd = fork();
  if (jackd == 0) {
    const auto log = bench_dir() / "jackd.log";
    freopen(log.c_str(), "w", stdout);
    freopen(log.c_str(), "a", stderr);
    execlp("jackd", "jackd", "-n", server.c_str(), "-d", "dummy", "-r", "48000", "-p", "256", nullptr);
    _exit(127);
  }
  for (int i = 0; i < 100; ++i) {  // wait for the server
    jack_status_t status;
    if (auto* c = jack_client_open("probe", JackNoStartServer, &status)) {
      jack_client_close(c);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  PlayOptions options;
  options.dsp_path = model_file(modes, true);
  options.compile = with_cache(bench_dir() / "cache");
  options.audio.backend = BackendChoice::jack;
  options.audio.client_name = "rt-bench";
  options.duration_s = seconds;
  options.reload = false;
  PlayReport report;
  for (auto _ : state) report = play(options);
  kill(jackd, SIGTERM);
  waitpid(jackd, nullptr, 0);
  state.counters["xruns"] = static_cast<double>(report.xruns);
  state.counters["dsp_load_mean_%"] = report.mean_dsp_load_percent;
  state.counters["dsp_load_max_%"] = report.max_dsp_load_percent;
  state.counters["jack_cpu_load_%"] = report.server_cpu_load_percent;
  state.counters["played_s"] = report.played_s;
}

BENCHMARK(BM_CompileCold)
    ->ArgsProduct({{20, 200, 1000}, {0, 1}})
    ->ArgNames({"modes", "sliders"})
    ->Iterations(1)
    ->MeasureProcessCPUTime()  // the machine is shared: CPU time is the honest figure
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompileFromCache)
    ->ArgsProduct({{20, 200, 1000}, {0, 1}})
    ->ArgNames({"modes", "sliders"})
    ->Iterations(5)
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Compute)->Arg(500)->ArgName("modes")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LivePlay)
    ->Args({500, 60})
    ->ArgNames({"modes", "seconds"})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace

int main(int argc, char** argv) {
  mesh2dsp::set_quiet(true);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::error_code ec;
  fs::remove_all(bench_dir(), ec);
  return 0;
}
