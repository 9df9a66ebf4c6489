// Offline render: the JIT equals Faust's C++ backend; options; clear errors; no partial files.
#include <faust/dsp/dsp.h>
#include <faust/gui/UI.h>
#include <faust/gui/meta.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>

#include "runtime/dsp/control_layout.hpp"
#include "runtime/dsp/flush_to_zero.hpp"
#include "runtime/jit/faust_compiler.hpp"
#include "runtime/render/events.hpp"
#include "runtime/render/offline_render.hpp"
#include "util/error.hpp"
#include "support.hpp"

// The reference classes generated at build time by `faust -lang cpp` from the same files.
#include "bank_cpp.hpp"
#include "effect_cpp.hpp"

namespace {

using namespace rt_test;
using mesh2dsp::runtime::ControlLayout;
using mesh2dsp::runtime::FaustCompiler;
using mesh2dsp::runtime::OfflineIO;
using mesh2dsp::runtime::ParameterEvent;

constexpr int kRate_hz = 48000;

// The CLI runs here use a private compile cache, never the user's ~/.cache.
class PrivateCache : public ::testing::Environment {
 public:
  void SetUp() override {
    dir_ = std::make_unique<TempDir>();
    setenv("MESH2DSP_CACHE_DIR", (dir_->path / "cache").c_str(), 1);
  }
  void TearDown() override { dir_.reset(); }

 private:
  std::unique_ptr<TempDir> dir_;
};
const auto* const kPrivateCache = ::testing::AddGlobalTestEnvironment(new PrivateCache);

// Renders `instance` with the same scheduler the CLI uses; returns channel 0..n interleaved.
std::vector<float> render(dsp& instance, double duration_s, const std::vector<ParameterEvent>& events,
                          const std::vector<float>* mono_input = nullptr) {
  instance.init(kRate_hz);
  const auto layout = ControlLayout::of(instance);
  const auto bound = mesh2dsp::runtime::bind_events(events, layout, kRate_hz);
  std::vector<float> out;
  std::size_t read = 0;
  OfflineIO io;
  const int outputs = instance.getNumOutputs();
  if (mono_input)
    io.read_input = [&](float* const* in, int n) {
      for (int i = 0; i < n; ++i, ++read)
        for (int c = 0; c < instance.getNumInputs(); ++c)
          in[c][i] = read < mono_input->size() ? (*mono_input)[read] : 0.0f;
    };
  io.write_output = [&](const float* const* o, int n) {
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < outputs; ++c) out.push_back(o[c][i]);
  };
  mesh2dsp::runtime::run_offline(instance, std::llround(duration_s * kRate_hz), bound, io);
  return out;
}

// Float tolerance for a recursive filter: LLVM (JIT, Sandy Bridge / x86-64-v2 under libfaust's unsafe FP math)
// and g++ (baseline x86-64) may order and simplify the coefficient arithmetic differently; a
// one-ulp coefficient difference is amplified by the resonator's gain over a second of ringing. Measured: ≤ 5e-5 of the peak; a wrong filter is off by ~1.
constexpr double kRelativeTolerance = 2e-4;

double max_abs(const std::vector<float>& x) {
  double m = 0;
  for (float v : x) m = std::max(m, static_cast<double>(std::fabs(v)));
  return m;
}

void expect_close(const std::vector<float>& a, const std::vector<float>& b, double tolerance) {
  ASSERT_EQ(a.size(), b.size());
  double worst = 0;
  std::size_t where = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::fabs(a[i] - b[i]) > worst) worst = std::fabs(a[i] - b[i]), where = i;
  EXPECT_LE(worst, tolerance) << "largest difference at sample " << where << ": " << a[where]
                              << " vs " << b[where];
}

std::vector<ParameterEvent> strike_events() {
  std::vector<ParameterEvent> events{mesh2dsp::runtime::parse_set("hardness=0.8"),
                                     mesh2dsp::runtime::parse_set("freq=523.25")};
  for (const char* t : {"gate@0.1", "gate@1.5"})
    for (auto& e : mesh2dsp::runtime::parse_trigger(t)) events.push_back(e);
  return events;
}

FaustCompiler uncached() { return FaustCompiler({}); }

TEST(RenderMatchesFaustCpp, JitInstanceEqualsCppBackendSampleForSample) {
  auto jit = uncached().compile_file(data_dir() / "bank.dsp").instantiate();
  bank_cpp cpp;
  const auto events = strike_events();
  const auto from_jit = render(*jit, 2.0, events);
  const auto from_cpp = render(cpp, 2.0, events);
  ASSERT_GT(max_abs(from_cpp), 0.05) << "the reference render is silent: the test proves nothing";
  expect_close(from_jit, from_cpp, kRelativeTolerance * max_abs(from_cpp));
}

// The renderer computes like an audio thread: subnormals flushed to zero (a decaying tail would
// otherwise pass through the subnormal range, where every operation is slow), the caller's
// floating-point mode left as it was.
TEST(RenderMatchesFaustCpp, ComputesWithSubnormalsFlushedToZeroAndRestoresTheMode) {
  struct Probe : decorator_dsp {
    explicit Probe(dsp* inner) : decorator_dsp(inner) {}
    ~Probe() override { fDSP = nullptr; }  // not owned
    int calls = 0, flushed = 0;
    void compute(int count, FAUSTFLOAT** in, FAUSTFLOAT** out) override {
      ++calls;
      flushed += mesh2dsp::runtime::ScopedFlushToZero::active();
      decorator_dsp::compute(count, in, out);
    }
  };
  bank_cpp cpp;
  Probe probe(&cpp);
  const bool before = mesh2dsp::runtime::ScopedFlushToZero::active();
  render(probe, 0.1, strike_events());
  EXPECT_GT(probe.calls, 10);
  EXPECT_EQ(probe.flushed, probe.calls);
  EXPECT_EQ(mesh2dsp::runtime::ScopedFlushToZero::active(), before);
}

TEST(RenderMatchesFaustCpp, CliWavEqualsCppBackend) {
  TempDir dir;
  const auto out = dir / "strike.wav";
  const auto r = run({mesh2dsp_bin(), "render", (data_dir() / "bank.dsp").string(), "-o", out.string(),
                      "--duration", "2", "--set", "hardness=0.8", "--set", "/bank/freq=523.25",
                      "--trigger", "gate@0.1", "--trigger", "gate@1.5", "--no-cache"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Sound wav = read_sound(out);
  EXPECT_EQ(wav.sample_rate_hz, kRate_hz);
  EXPECT_EQ(wav.channels, 1);
  bank_cpp cpp;
  const auto from_cpp = render(cpp, 2.0, strike_events());
  expect_close(wav.samples, from_cpp, kRelativeTolerance * max_abs(from_cpp));
  // The modes are where the program puts them: 523.25 Hz and 2.76 × that.
  const auto s = spectrum(wav.samples, kRate_hz);
  EXPECT_TRUE(has_peak(s, 523.25));
  EXPECT_TRUE(has_peak(s, 523.25 * 2.76, 0.05));
}

TEST(RenderMatchesFaustCpp, InputFileDrivesAnEffectLikeTheCppBackend) {
  TempDir dir;
  // A force signal: a few clicks and some noise, as a mono float WAV written by the CLI itself.
  write_text(dir / "force.dsp",
             "import(\"stdfaust.lib\");\nprocess = no.noise * 0.1 + (ba.pulse(12000) * 0.8);\n");
  auto r = run({mesh2dsp_bin(), "render", (dir / "force.dsp").string(), "-o", (dir / "force.wav").string(),
                "--duration", "1", "--no-cache"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run({mesh2dsp_bin(), "render", (data_dir() / "effect.dsp").string(), "-i", (dir / "force.wav").string(),
           "-o", (dir / "out.wav").string(), "--set", "gain=2", "--no-cache"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Sound force = read_sound(dir / "force.wav");
  const Sound out = read_sound(dir / "out.wav");
  EXPECT_EQ(out.channels, 2);
  EXPECT_EQ(out.samples.size(), 2 * force.samples.size()) << "duration defaults to the input's";
  effect_cpp cpp;
  const auto from_cpp = render(cpp, 1.0, {mesh2dsp::runtime::parse_set("gain=2")}, &force.samples);
  ASSERT_GT(max_abs(from_cpp), 0.01);
  expect_close(out.samples, from_cpp, kRelativeTolerance * max_abs(from_cpp));
}

TEST(RenderOptions, Pcm24FlacStereoAtAnotherRate) {
  TempDir dir;
  const auto r = run({mesh2dsp_bin(), "render", (data_dir() / "bank.dsp").string(), "-o",
                      (dir / "x.flac").string(), "--format", "pcm24", "-r", "44100", "-c", "2",
                      "-d", "0.5", "--trigger", "@0"});  // no name: the first button
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Sound s = read_sound(dir / "x.flac");
  EXPECT_EQ(s.sample_rate_hz, 44100);
  EXPECT_EQ(s.channels, 2);
  EXPECT_EQ(s.samples.size(), 2u * 22050u);
  EXPECT_EQ(s.channel(0), s.channel(1)) << "a mono DSP is copied to every channel";
  EXPECT_GT(max_abs(s.samples), 0.01);
}

// Each bad request: exit status 1, exactly one "mesh2dsp: error:" line, and no file left behind.
void expect_clean_failure(const std::vector<std::string>& extra, const std::string& dsp,
                          const std::string& expected_text) {
  TempDir dir;
  std::vector<std::string> argv{mesh2dsp_bin(), "render", dsp, "-o", (dir / "out.wav").string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  const auto r = run(argv);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(expected_text), std::string::npos) << r.err;
  std::size_t error_lines = 0;
  for (std::size_t at = 0; (at = r.err.find("mesh2dsp: error:", at)) != std::string::npos; ++at)
    ++error_lines;
  EXPECT_EQ(error_lines, 1u) << r.err;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator{}), 0)
      << "a failed render left a file";
}

TEST(RenderErrors, MissingFile) {
  expect_clean_failure({}, (data_dir() / "no-such-model.dsp").string(), "no-such-model.dsp: no such file");
}

TEST(RenderErrors, UnknownParameterNamesTheKnownOnes) {
  expect_clean_failure({"--set", "hardnes=0.8"}, (data_dir() / "bank.dsp").string(),
                       "unknown parameter 'hardnes'; this DSP has: /bank/freq");
}

TEST(RenderErrors, DspWithoutOutputs) {
  expect_clean_failure({}, (data_dir() / "sink.dsp").string(), "no output");
}

TEST(RenderErrors, CompileErrorShowsFaustsMessageWithFileAndLine) {
  expect_clean_failure({}, (data_dir() / "broken.dsp").string(), "broken.dsp:2: error: syntax error");
}

TEST(RenderErrors, TriggerOfASliderAndValueOutOfRange) {
  expect_clean_failure({"--trigger", "freq@0.1"}, (data_dir() / "bank.dsp").string(), "is not a button");
  expect_clean_failure({"--set", "freq=99999"}, (data_dir() / "bank.dsp").string(), "outside the range");
}

// A slider's own ends, typed as the decimals its declaration shows ("0.1", which as a double lies
// below the float bound 0.100000001…), are accepted for every slider and nentry of a generated
// model; a step beyond either end is still refused. Then the command line itself.
TEST(RenderEvents, EverySliderOfAGeneratedModelTakesBothEndsOfItsRange) {
  const fs::path dsp_path = fs::path(MESH2DSP_SOURCE_DIR) / "generated" / "bar" / "bar.dsp";
  auto instance = uncached().compile_file(dsp_path).instantiate();
  instance->init(kRate_hz);
  const auto layout = ControlLayout::of(*instance);
  int sliders = 0;
  std::vector<std::string> at_min, at_max;
  for (const auto* control : layout.controls()) {
    using mesh2dsp::runtime::ControlKind;
    if (control->kind != ControlKind::horizontal_slider && control->kind != ControlKind::vertical_slider &&
        control->kind != ControlKind::num_entry)
      continue;
    ++sliders;
    for (const FAUSTFLOAT end : {control->min, control->max}) {
      const std::string set = fmt::format("{}={}", control->path, end);  // shortest decimal: "0.1"
      std::vector<mesh2dsp::runtime::ZoneEvent> bound;
      ASSERT_NO_THROW(bound = mesh2dsp::runtime::bind_events({mesh2dsp::runtime::parse_set(set)}, layout, kRate_hz))
          << set;
      ASSERT_EQ(bound.size(), 1u);
      EXPECT_EQ(bound[0].value, end) << set;
      (end == control->min ? at_min : at_max).push_back(set);
    }
    const double span = std::max(1.0, static_cast<double>(control->max - control->min));
    for (const double beyond : {control->min - 0.01 * span, control->max + 0.01 * span}) {
      const std::string set = fmt::format("{}={}", control->path, beyond);
      EXPECT_THROW(mesh2dsp::runtime::bind_events({mesh2dsp::runtime::parse_set(set)}, layout, kRate_hz),
                   mesh2dsp::Error)
          << set;
    }
  }
  EXPECT_GE(sliders, 8) << "the generated model's sliders and entries";
  // The reported case, through the command line: every control at its minimum, then its maximum.
  for (const auto* sets : {&at_min, &at_max}) {
    TempDir dir;
    std::vector<std::string> argv{mesh2dsp_bin(), "render", dsp_path.string(), "-o", (dir / "x.wav").string(),
                                  "-d", "0.2", "--trigger", "@0"};
    for (const auto& set : *sets) argv.insert(argv.end(), {"--set", set});
    const auto r = run(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  TempDir dir;
  const auto r = run({mesh2dsp_bin(), "render", dsp_path.string(), "-o", (dir / "x.wav").string(), "-d",
                      "0.1", "--set", "t60_scale=0.1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(RenderErrors, NanOutputIsRefusedAndLocated) {
  TempDir dsp;
  write_text(dsp / "nan.dsp", "process = sqrt(hslider(\"x\", 1, -1, 1, 0.1));\n");
  expect_clean_failure({"--set", "x=-1@0.5"}, (dsp / "nan.dsp").string(), "output 0 is NaN at 0.5000 s");
}

TEST(RenderErrors, DoublePrecisionIsRefusedNotCrashed) {
  expect_clean_failure({"--faust-option=-double"}, (data_dir() / "bank.dsp").string(),
                       "Faust option -double: the runtime runs programs in single precision");
}

TEST(RenderErrors, UnreadableInputFile) {
  TempDir inputs;
  write_text(inputs / "in.wav", "not a sound file");
  expect_clean_failure({"-i", (inputs / "in.wav").string()}, (data_dir() / "effect.dsp").string(),
                       "cannot read as a sound file");
}

TEST(RenderErrors, InputForADspWithoutInputs) {
  TempDir inputs;
  const auto r = run({mesh2dsp_bin(), "render", (data_dir() / "bank.dsp").string(), "-o",
                      (inputs / "in.wav").string(), "-d", "0.1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_clean_failure({"-i", (inputs / "in.wav").string()}, (data_dir() / "bank.dsp").string(),
                       "has no inputs");
}

}  // namespace
