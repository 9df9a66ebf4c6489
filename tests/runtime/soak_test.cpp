// Issue 15, item 4: a live-play soak. A 500-mode generated instrument plays under
// `jackd -d dummy` at 256 frames for MESH2DSP_SOAK_S seconds (60 in CI; 600 for the
// measurement in the closing note) while an OSC storm (1000 parameter messages a second,
// strikes, excitation-model switches) and hot reloads (every fourth one a broken, half-saved
// edit) hit it. Live play runs in this process so that a replacement operator new and
// pthread_mutex_lock count what the audio callback does (runtime::in_audio_callback). Run under
// ASan in the sanitizer stage of CI. Checks: no crash, no allocation and no lock on the audio
// path, memory flat, sound present and finite, reloads and failed reloads counted; prints the
// figures (xruns, DSP load, memory) for the record.
#include <arpa/inet.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "runtime/dsp/control_layout.hpp"
#include "runtime/jit/faust_compiler.hpp"
#include "runtime/live/player.hpp"
#include "runtime/live/swappable_dsp.hpp"
#include "support.hpp"

// --- What the audio path does: allocations and mutex locks while in_audio_callback() ---------
namespace {
std::atomic<long> g_audio_allocations{0};
std::atomic<long> g_audio_locks{0};
std::atomic<long> g_all_allocations{0}, g_all_locks{0};  // the counters are the ones linked in
using LockFn = int (*)(pthread_mutex_t*);
LockFn real_lock() {
  static const LockFn real = reinterpret_cast<LockFn>(dlsym(RTLD_NEXT, "pthread_mutex_lock"));
  return real;
}
const LockFn g_resolved_early = real_lock();  // dlsym may allocate: not on the audio thread

// Where the first lock on the audio path came from: glibc's backtrace() into a static array
// (it loads the unwinder on its first call, so that call is made here, early). A rare failure
// under load (once: 5 locks in a run of 899 xruns) says nothing without it.
void* g_first_audio_lock_frames[24];
std::atomic<int> g_first_audio_lock_depth{-1};
thread_local bool t_in_lock_probe = false;
const int g_backtrace_primed = [] {
  void* frames[2];
  return backtrace(frames, 2);
}();

std::string first_audio_lock_trace() {
  std::string trace;
  for (int i = 0; i < g_first_audio_lock_depth.load(); ++i) {
    Dl_info info{};
    const char* name = dladdr(g_first_audio_lock_frames[i], &info) && info.dli_sname ? info.dli_sname : "?";
    char line[512];
    std::snprintf(line, sizeof line, "  %s (%s +0x%llx)\n", name, info.dli_fname ? info.dli_fname : "?",
                  static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(g_first_audio_lock_frames[i]) -
                                                  reinterpret_cast<std::uintptr_t>(info.dli_fbase)));
    trace += line;
  }
  return trace;
}
}  // namespace

void* operator new(std::size_t size) {
  g_all_allocations.fetch_add(1, std::memory_order_relaxed);
  if (mesh2dsp::runtime::in_audio_callback()) g_audio_allocations.fetch_add(1);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

extern "C" int pthread_mutex_lock(pthread_mutex_t* mutex) {
  g_all_locks.fetch_add(1, std::memory_order_relaxed);
  if (mesh2dsp::runtime::in_audio_callback() && g_audio_locks.fetch_add(1) == 0 && !t_in_lock_probe) {
    t_in_lock_probe = true;
    g_first_audio_lock_depth.store(backtrace(g_first_audio_lock_frames, 24));
    t_in_lock_probe = false;
  }
  return real_lock()(mutex);
}

namespace {

using namespace rt_test;
using Clock = std::chrono::steady_clock;

double soak_seconds() {
  const char* s = std::getenv("MESH2DSP_SOAK_S");
  return s && *s ? std::atof(s) : 60.0;
}

double resident_mb() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1e6;
}

// A model file of `modes` modes (20 Hz .. 18 kHz) and four excitation points, as `modes` writes it.
std::string big_model(int modes) {
  nlohmann::ordered_json j;
  j["format"] = "mesh2dsp-modal-model";
  j["version"] = 1;
  j["name"] = "soak";
  j["material"] = {{"name", "steel"}, {"density", 7850}, {"youngs_modulus", 2.0e11},
                   {"poisson_ratio", 0.29}, {"rayleigh_mass", 5}, {"rayleigh_stiffness", 3e-8}};
  std::mt19937 rng(15);
  std::uniform_real_distribution<double> gain(-1, 1);
  nlohmann::ordered_json m = nlohmann::ordered_json::array();
  for (int n = 0; n < modes; ++n) {
    const double f = 20 * std::pow(900.0, static_cast<double>(n) / (modes - 1));
    const double omega = 2 * M_PI * f;
    const double xi = 0.5 * (5 / omega + 3e-8 * omega);
    m.push_back({{"frequency_hz", f}, {"damping_ratio", xi}});
  }
  j["modes"] = m;
  nlohmann::ordered_json ex = nlohmann::ordered_json::array();
  for (int k = 0; k < 4; ++k) {
    std::vector<double> g(static_cast<std::size_t>(modes));
    for (auto& x : g) x = gain(rng);
    ex.push_back({{"vertex", k}, {"position", {0.01 * k, 0, 0}}, {"direction", {0, 0, 1}}, {"gains", g}});
  }
  j["excitations"] = ex;
  return j.dump();
}

// One OSC message "/path ,f value" (OSC 1.0: strings NUL-padded to 4 bytes, big-endian float).
std::string osc_message(const std::string& address, float value) {
  auto padded = [](std::string s) {
    s.push_back('\0');
    while (s.size() % 4) s.push_back('\0');
    return s;
  };
  std::string m = padded(address) + padded(",f");
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  bits = htonl(bits);
  m.append(reinterpret_cast<const char*>(&bits), 4);
  return m;
}

}  // namespace

TEST(Soak, FiveHundredModesUnderAnOscStormAndHotReloads) {
  const double soak_s = soak_seconds();
  TempDir dir;
  JackServer jack(dir.path, 48000, 256);
  // The program: `mesh2dsp generate` of a 500-mode model, every contact model in its menu.
  write_text(dir / "soak.modal.json", big_model(500));
  const auto gen = run({mesh2dsp_bin(), "generate", (dir / "soak.modal.json").string(), "--faust",
                        (dir / "soak.dsp").string(), "--excitation", "all"});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  const std::string good = read_text(dir / "soak.dsp");

  // Its controls, to aim the storm at: sliders/nentries (random values in range), the gate
  // (strikes) and the excitation menu (switches).
  // The two good versions the edits alternate between, both compiled into the cache first: a
  // 500-mode program takes ~20 s to compile on a loaded machine, and what is under test is the
  // swap under load, not the compiler (a broken edit still fails in the compiler each time).
  const std::string edited = good + "// soak edit\n";
  mesh2dsp::runtime::CompileOptions compile;
  compile.cache_directory = dir / "cache";
  write_text(dir / "soak.dsp", edited);
  mesh2dsp::runtime::FaustCompiler(compile).compile_file(dir / "soak.dsp");
  write_text(dir / "soak.dsp", good);
  const auto program = mesh2dsp::runtime::FaustCompiler(compile).compile_file(dir / "soak.dsp");
  auto instance = program.instantiate();
  instance->init(48000);
  const auto layout = mesh2dsp::runtime::ControlLayout::of(*instance);
  struct Target {
    std::string path;
    float min, max;
  };
  std::vector<Target> sliders;
  std::string gate, menu;
  for (const auto* c : layout.controls()) {
    if (!c->is_input()) continue;
    if (c->is_button()) {
      if (gate.empty()) gate = c->path;
    } else if (c->label.find("excitation") != std::string::npos) {
      menu = c->path;
    } else {
      sliders.push_back({c->path, c->min, c->max});
    }
  }
  ASSERT_FALSE(gate.empty()) << layout.describe_controls();
  ASSERT_FALSE(menu.empty()) << layout.describe_controls();
  ASSERT_GE(sliders.size(), 3u) << layout.describe_controls();

  mesh2dsp::runtime::PlayOptions options;
  options.dsp_path = dir / "soak.dsp";
  options.compile = compile;
  options.audio.backend = mesh2dsp::runtime::BackendChoice::jack;
  options.audio.client_name = "soak";
  options.audio.auto_connect = false;
  options.osc_port = unique_port(7);
  options.midi = false;
  options.duration_s = soak_s;
  mesh2dsp::runtime::PlayReport report;
  std::string play_error;
  std::atomic<bool> playing{true};
  std::thread player([&] {
    try {
      report = mesh2dsp::runtime::play(options);
    } catch (const std::exception& e) {
      play_error = e.what();
    }
    playing = false;
  });

  JackRecorder recorder(std::min(soak_s, 120.0));
  ASSERT_TRUE(recorder.connect("soak:out_0", 60)) << play_error;
  const auto started = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - started).count(); };

  // The storm: 1000 messages a second in bursts of 10 every 10 ms; a strike every 100 ms; the
  // excitation model switched every second.
  std::atomic<long> sent{0};
  std::thread storm([&] {
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<std::uint16_t>(options.osc_port));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::mt19937 rng(4);
    std::uniform_real_distribution<float> unit(0, 1);
    auto send = [&](const std::string& path, float value) {
      const auto m = osc_message(path, value);
      sendto(fd, m.data(), m.size(), 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
      sent.fetch_add(1);
    };
    for (long tick = 0; playing && elapsed() < soak_s - 1; ++tick) {
      for (int i = 0; i < 10; ++i) {
        const auto& t = sliders[rng() % sliders.size()];
        send(t.path, t.min + unit(rng) * (t.max - t.min));
      }
      if (tick % 10 == 0) send(gate, 1);
      if (tick % 10 == 2) send(gate, 0);
      if (tick % 100 == 50) send(menu, static_cast<float>(rng() % 6));
      std::this_thread::sleep_until(started + std::chrono::milliseconds(10 * (tick + 1)));
    }
    close(fd);
  });

  // 20 hot reloads spread over the run; every fourth a broken edit (the file saved half-way).
  // Resident memory sampled once a second meanwhile.
  std::vector<double> memory_mb;
  double next_sample_s = 0;
  const auto wait_until = [&](double t_s) {
    while (playing && elapsed() < t_s) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (elapsed() >= next_sample_s) {
        memory_mb.push_back(resident_mb());
        next_sample_s += 1;
      }
    }
  };
  for (int edit = 1; edit <= 20 && playing; ++edit) {
    wait_until(soak_s * edit / 21.0);
    if (edit % 4 == 0)
      write_text(dir / "soak.dsp", good.substr(0, good.size() / 2));
    else
      write_text(dir / "soak.dsp", edit % 2 ? edited : good);
  }
  wait_until(1e9);  // until play returns
  storm.join();
  player.join();
  ASSERT_TRUE(play_error.empty()) << play_error;

  // Sound: present and finite in what the recorder heard.
  const auto heard = recorder.slice(0, recorder.frames());
  double peak = 0;
  bool finite = true;
  for (float x : heard) {
    finite = finite && std::isfinite(x);
    peak = std::max(peak, static_cast<double>(std::fabs(x)));
  }
  // Memory: the median of the second quarter of the run against that of the last quarter (the
  // first quarter holds the warm-up: the first reloads, LLVM's and ASan's pools filling).
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  const std::size_t q = memory_mb.size() / 4;
  const double early = median({memory_mb.begin() + q, memory_mb.begin() + 2 * q});
  const double late = median({memory_mb.end() - q, memory_mb.end()});
  const double growth_mb = late - early;

  std::printf("soak: %.0f s, %ld OSC messages (%.0f/s), %d reloads (%d failed), %llu xruns, "
              "DSP load mean %.2f %% max %.1f %%, memory %.0f -> %.0f MB (%+.1f MB), peak %.3f, "
              "audio-path allocations %ld, locks %ld\n",
              report.played_s, sent.load(), sent.load() / std::max(1.0, report.played_s),
              report.reloads, report.failed_reloads, static_cast<unsigned long long>(report.xruns),
              report.mean_dsp_load_percent, report.max_dsp_load_percent, early, late, growth_mb,
              peak, g_audio_allocations.load(), g_audio_locks.load());
  RecordProperty("xruns", std::to_string(report.xruns));
  RecordProperty("memory_growth_mb", std::to_string(growth_mb));

  EXPECT_GE(report.played_s, 0.95 * soak_s);
  EXPECT_GE(sent.load(), static_cast<long>(800 * (soak_s - 2))) << "the storm fell short";
  ASSERT_GT(g_all_allocations.load(), 0) << "the counting operator new is not the one linked in";
  ASSERT_GT(g_all_locks.load(), 0) << "the counting pthread_mutex_lock is not the one called";
  EXPECT_EQ(g_audio_allocations.load(), 0) << "the audio callback allocated";
  EXPECT_EQ(g_audio_locks.load(), 0) << "the audio callback took a mutex; the first one from:\n"
                                      << first_audio_lock_trace();
  EXPECT_TRUE(finite);
  EXPECT_GT(peak, 1e-4) << "silence: the strikes did not sound";
  EXPECT_GE(report.reloads, 10) << "hot reloads did not happen";
  EXPECT_GE(report.failed_reloads, 3) << "the broken edits were not noticed";
  // Flat: growth between the second and the last quarter under 10 % (+ 16 MB for allocator
  // granularity). A leak per reload or per OSC message shows as steady growth far above this.
  EXPECT_LT(growth_mb, 16 + 0.10 * early) << "memory grows during the soak";
}
