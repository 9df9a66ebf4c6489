// Units of the runtime: argument parsing, Faust message formatting, control lookup, the cache.
#include <gtest/gtest.h>

#include "runtime/dsp/control_layout.hpp"
#include "runtime/jit/faust_compiler.hpp"
#include "runtime/render/events.hpp"
#include "runtime/render/offline_render.hpp"
#include "runtime/live/swappable_dsp.hpp"
#include "support.hpp"
#include "support/jack_registry.hpp"

#include <atomic>
#include <cstdlib>
#include <new>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>
#include <thread>

namespace {

using namespace rt_test;
using namespace mesh2dsp::runtime;

TEST(Events, SetAndTriggerSyntax) {
  const auto set = parse_set("hardness=0.8");
  EXPECT_EQ(set.name, "hardness");
  EXPECT_DOUBLE_EQ(set.value, 0.8);
  EXPECT_DOUBLE_EQ(set.time_s, 0.0);
  const auto timed = parse_set("/bank/freq=660@1.25");
  EXPECT_EQ(timed.name, "/bank/freq");
  EXPECT_DOUBLE_EQ(timed.time_s, 1.25);
  const auto press = parse_trigger("gate@0.1");
  ASSERT_EQ(press.size(), 2u);
  EXPECT_DOUBLE_EQ(press[0].value, 1.0);
  EXPECT_DOUBLE_EQ(press[1].time_s, 0.1 + kDefaultTriggerHold_s);
  EXPECT_DOUBLE_EQ(parse_trigger("gate@1+0.5")[1].time_s, 1.5);
  for (const char* bad : {"hardness", "=1", "x=1@-2", "x=1.5.2", "x="})
    EXPECT_THROW(parse_set(bad), mesh2dsp::Error) << bad;
  // A word is a menu entry's name, resolved (or refused) when bound to the program's controls.
  EXPECT_EQ(parse_set("excitation=scrape@0.5").value_label, "scrape");
  EXPECT_DOUBLE_EQ(parse_set("excitation=scrape@0.5").time_s, 0.5);
  for (const char* bad : {"gate", "gate@", "gate@x", "gate@1+0"})
    EXPECT_THROW(parse_trigger(bad), mesh2dsp::Error) << bad;
}

TEST(FaustMessages, LocatedErrorsBecomePathLine) {
  EXPECT_EQ(format_faust_error("bowl : 12 : ERROR : undefined symbol : foo\n", "bowl", "/m/bowl.dsp"),
            "/m/bowl.dsp:12: error: undefined symbol : foo");
  EXPECT_EQ(format_faust_error("ERROR : the Faust program has no output signal\n", "x", "x.dsp"),
            "x.dsp: the Faust program has no output signal");
}

TEST(ControlLayout, FindsByLabelPathOrSuffixAndRejectsAmbiguity) {
  const auto program = FaustCompiler({}).compile_string(
      "twin", "process = hslider(\"h:a/level\",0,0,1,0.1) + hslider(\"h:b/level\",0,0,1,0.1)"
              " + button(\"gate\") + nentry(\"h:a/pos\",1,0,4,1);");
  auto instance = program.instantiate();
  instance->init(48000);
  const auto layout = ControlLayout::of(*instance);
  EXPECT_EQ(layout.controls().size(), 4u);
  EXPECT_EQ(layout.find("gate").kind, ControlKind::button);
  EXPECT_EQ(layout.find("pos").path, "/twin/a/pos");
  EXPECT_EQ(layout.find("a/level").path, "/twin/a/level");
  EXPECT_EQ(layout.find("/twin/b/level").path, "/twin/b/level");
  EXPECT_THROW(layout.find("level"), mesh2dsp::Error);
  EXPECT_THROW(layout.find("volume"), mesh2dsp::Error);
}

TEST(Cache, SecondCompileLoadsMachineCodeAndRendersTheSame) {
  TempDir dir;
  CompileOptions options;
  options.cache_directory = dir / "cache";
  const FaustCompiler compiler(options);
  const auto cold = compiler.compile_file(data_dir() / "bank.dsp");
  EXPECT_FALSE(cold.from_cache());
  const auto warm = compiler.compile_file(data_dir() / "bank.dsp");
  EXPECT_TRUE(warm.from_cache());
  auto render_of = [](const CompiledProgram& p) {
    auto instance = p.instantiate();
    instance->init(48000);
    const auto events = bind_events(parse_trigger("gate@0"), ControlLayout::of(*instance), 48000);
    std::vector<float> out;
    OfflineIO io;
    io.write_output = [&](const float* const* o, int n) { out.insert(out.end(), o[0], o[0] + n); };
    run_offline(*instance, 4800, events, io);
    return out;
  };
  EXPECT_EQ(render_of(cold), render_of(warm));
  // A different option is a different program.
  CompileOptions other = options;
  other.faust_args = {"-ftz", "2"};
  EXPECT_FALSE(FaustCompiler(other).compile_file(data_dir() / "bank.dsp").from_cache());
}

TEST(Cache, EditingAnImportedLibraryInvalidatesTheEntry) {
  TempDir dir;
  write_text(dir / "modes.lib", "f0 = 440;\n");
  write_text(dir / "uses.dsp", "import(\"stdfaust.lib\");\nimport(\"modes.lib\");\nprocess = os.osc(f0);\n");
  CompileOptions options;
  options.cache_directory = dir / "cache";
  const FaustCompiler compiler(options);
  EXPECT_FALSE(compiler.compile_file(dir / "uses.dsp").from_cache());
  const auto again = compiler.compile_file(dir / "uses.dsp");
  EXPECT_TRUE(again.from_cache());
  bool watches_library = false;
  for (const auto& s : again.sources()) watches_library |= s.filename() == "modes.lib";
  EXPECT_TRUE(watches_library) << "live reload must watch imported files too";
  write_text(dir / "modes.lib", "f0 = 660;\n");
  EXPECT_FALSE(compiler.compile_file(dir / "uses.dsp").from_cache());
}

}  // namespace

// Counts heap allocations made by a thread while it is marked as the audio thread: the swap and
// fade must not allocate (issue 4, requirement 6). Replacing global new catches the C++ side;
// the JIT code itself never calls the allocator.
namespace {
thread_local bool t_in_audio_callback = false;
std::atomic<int> g_audio_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  if (t_in_audio_callback) g_audio_allocations.fetch_add(1);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
// GCC sees free() on memory from `new` once these are inlined; they are a matched pair here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace {

using namespace mesh2dsp::runtime;

TEST(SwappableDsp, CrossFadesAtABlockBoundaryAndHandsTheOldVoiceBack) {
  const FaustCompiler compiler({});
  auto voice_of = [&](const char* name, const char* source) {
    auto instance = compiler.compile_string(name, source).instantiate();
    instance->init(48000);
    auto bank = std::make_shared<ControlBank>(ControlLayout::of(*instance));
    return std::make_unique<Voice>(std::move(instance), bank, 48000);
  };
  // The counter itself works (the replacement operator new is the one linked in).
  t_in_audio_callback = true;
  int* volatile probe = new int(1);  // volatile: new/delete pairs may otherwise be elided
  delete probe;
  t_in_audio_callback = false;
  ASSERT_EQ(g_audio_allocations.exchange(0), 1);

  constexpr int kBlock = 256;
  SwappableDsp live(voice_of("up", "process = 0.5;"), 0.010);  // 480-frame fade
  live.init(48000);

  // A stand-in audio thread: blocks into a preallocated buffer until told to stop.
  std::vector<float> heard(48000 * 4, 0.0f);
  std::atomic<std::size_t> written{0};
  std::atomic<bool> stop{false};
  std::thread audio([&] {
    while (!stop.load() && written.load() + kBlock <= heard.size()) {
      float* outputs[] = {heard.data() + written.load()};
      t_in_audio_callback = true;
      live.compute(kBlock, nullptr, outputs);
      t_in_audio_callback = false;
      written.fetch_add(kBlock);
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
  });
  while (written.load() < 10 * kBlock) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto old = live.swap(voice_of("down", "process = -0.5;"), std::chrono::milliseconds(5000));
  ASSERT_NE(old, nullptr) << "the replaced voice must come back to the control thread";
  const std::size_t after_swap = written.load();
  while (written.load() < after_swap + 4 * kBlock) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  stop = true;
  audio.join();

  std::size_t first_change = 0;
  while (heard[first_change] == 0.5f) ++first_change;
  // The fade's first sample has the new voice at gain sin(0) = 0, so it equals the old one.
  const std::size_t fade_start = first_change - 1;
  EXPECT_EQ(fade_start % kBlock, 0u) << "the swap must happen at a block boundary";
  double largest_step = 0;
  for (std::size_t i = 1; i < written.load(); ++i)
    largest_step = std::max(largest_step, std::fabs(static_cast<double>(heard[i]) - heard[i - 1]));
  EXPECT_LT(largest_step, 0.01) << "a click: the fade is not smooth";
  EXPECT_FLOAT_EQ(heard[fade_start + 480], -0.5f) << "the fade lasts 10 ms";
  EXPECT_FLOAT_EQ(heard[written.load() - 1], -0.5f);
  EXPECT_EQ(g_audio_allocations.load(), 0) << "the audio callback allocated";
  // Equal power half way: both gains are cos(pi/4).
  EXPECT_NEAR(heard[fade_start + 240], 0.5 * std::cos(M_PI / 4) - 0.5 * std::sin(M_PI / 4), 0.01);
}

}  // namespace

namespace {

TEST(SwappableDsp, NanFromTheProgramIsSilencedAndCounted) {
  auto instance = mesh2dsp::runtime::FaustCompiler({})
                      .compile_string("nan", "process = sqrt(hslider(\"x\", -1, -1, 1, 0.1));")
                      .instantiate();
  instance->init(48000);
  auto bank = std::make_shared<mesh2dsp::runtime::ControlBank>(mesh2dsp::runtime::ControlLayout::of(*instance));
  mesh2dsp::runtime::SwappableDsp live(
      std::make_unique<mesh2dsp::runtime::Voice>(std::move(instance), bank, 48000), 0.01);
  live.init(48000);
  std::vector<float> out(64, 1.0f);
  float* outputs[] = {out.data()};
  live.compute(64, nullptr, outputs);
  for (float v : out) EXPECT_EQ(v, 0.0f);
  EXPECT_EQ(live.stats().non_finite_samples, 64u);
}

}  // namespace

// The live tests' private jackd servers need free slots in JACK's registry of 8 servers; the
// slots of servers that died hard are freed, a live server's never.
TEST(JackRegistry, DeadServersSlotsAreFreedLiveOnesKept) {
  const auto registry = fs::temp_directory_path() / ("mesh2dsp-jack-registry-" + std::to_string(getpid()));
  constexpr std::size_t kHeader = 24, kStride = 264, kServers = 8;
  std::vector<unsigned char> bytes(kHeader + kServers * kStride + 64, 0);
  const std::uint32_t magic = 0x4a41434b, hdr_len = kHeader + kServers * kStride;
  std::memcpy(bytes.data(), &magic, 4);
  std::memcpy(bytes.data() + 16, &hdr_len, 4);
  // A pid that cannot be running: a child that has been reaped.
  const pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  const pid_t live = getpid();
  auto put = [&](std::size_t slot, pid_t pid, const char* name) {
    std::memcpy(bytes.data() + kHeader + slot * kStride, &pid, sizeof pid);
    std::strcpy(reinterpret_cast<char*>(bytes.data() + kHeader + slot * kStride + 4), name);
  };
  put(0, dead, "jack-0:dead-1:");
  put(3, live, "jack-0:live:");
  put(7, dead, "jack-0:dead-2:");
  {
    std::ofstream out(registry, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  EXPECT_EQ(mesh2dsp::test::reclaim_dead_jack_servers(registry.c_str()), 2);
  std::ifstream in(registry, std::ios::binary);
  std::vector<unsigned char> after(bytes.size());
  in.read(reinterpret_cast<char*>(after.data()), static_cast<std::streamsize>(after.size()));
  pid_t pid = -1;
  std::memcpy(&pid, after.data() + kHeader, sizeof pid);
  EXPECT_EQ(pid, 0);
  std::memcpy(&pid, after.data() + kHeader + 3 * kStride, sizeof pid);
  EXPECT_EQ(pid, live);
  EXPECT_STREQ(reinterpret_cast<const char*>(after.data() + kHeader + 3 * kStride + 4), "jack-0:live:");
  std::memcpy(&pid, after.data() + kHeader + 7 * kStride, sizeof pid);
  EXPECT_EQ(pid, 0);
  // Not a JACK registry: left alone.
  { std::ofstream(registry, std::ios::binary) << std::string(4096, 'x'); }
  EXPECT_EQ(mesh2dsp::test::reclaim_dead_jack_servers(registry.c_str()), 0);
  fs::remove(registry);
  EXPECT_EQ(mesh2dsp::test::reclaim_dead_jack_servers(registry.c_str()), 0);
}
