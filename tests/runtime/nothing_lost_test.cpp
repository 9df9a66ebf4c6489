// Issue 15, item 5: nothing lost on the way out. Two processes filling one compile cache at
// once, a full disk, a read-only output directory and Ctrl-C in the middle of `modes`,
// `reference` and `render` each end in a clear message (or a clean interrupt) with no corrupt
// cache entry and no partial output file — not even a hidden temporary.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <functional>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "runtime/jit/faust_compiler.hpp"
#include "support.hpp"

namespace {

using namespace rt_test;

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    names.push_back(fs::relative(e.path(), dir).string());
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += n + " ";
  return s;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A shell script in a private mount namespace (root: `unshare -m`; otherwise a user namespace,
// `unshare -rm`), so it can mount a small or read-only tmpfs without touching the machine's.
RunResult in_mount_namespace(const std::string& script) {
  std::vector<std::string> argv{"unshare", getuid() == 0 ? "-m" : "-rm", "sh", "-c", script};
  return run(argv, 300);
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

std::string render_cmd(const fs::path& out, double duration_s) {
  return q(mesh2dsp_bin()) + " render " + q(data_dir() / "bank.dsp") + " -o " + q(out) +
         " --duration " + std::to_string(duration_s) + " --trigger gate@0.01";
}

}  // namespace

// Two renders of one program start together with one cache directory: both succeed with the
// same audio, and the cache holds one intact entry (the next compile loads it).
TEST(NothingLost, TwoProcessesCompilingIntoOneCacheAtOnce) {
  TempDir dir;
  for (int round = 0; round < 3; ++round) {
    const fs::path cache = dir / ("cache" + std::to_string(round));
    setenv("MESH2DSP_CACHE_DIR", cache.c_str(), 1);
    Child a({"sh", "-c", render_cmd(dir / "a.wav", 0.3)}, dir.path, "a" + std::to_string(round));
    Child b({"sh", "-c", render_cmd(dir / "b.wav", 0.3)}, dir.path, "b" + std::to_string(round));
    EXPECT_EQ(a.stop(0, 120), 0) << a.err();
    EXPECT_EQ(b.stop(0, 120), 0) << b.err();
    EXPECT_EQ(read_sound(dir / "a.wav").samples, read_sound(dir / "b.wav").samples);
    const auto names = entries(cache);
    ASSERT_EQ(names.size(), 1u) << joined(names);  // one entry, no temporary left
    mesh2dsp::runtime::CompileOptions options;
    options.cache_directory = cache;
    EXPECT_TRUE(mesh2dsp::runtime::FaustCompiler(options)
                    .compile_file(data_dir() / "bank.dsp")
                    .from_cache())
        << "the entry the two processes wrote does not load";
  }
  unsetenv("MESH2DSP_CACHE_DIR");
}

// A cache entry cut short (a crash of another tool, a disk error) is recompiled and rewritten,
// never loaded.
TEST(NothingLost, ATruncatedCacheEntryIsRecompiledNotLoaded) {
  TempDir dir;
  mesh2dsp::runtime::CompileOptions options;
  options.cache_directory = dir / "cache";
  mesh2dsp::runtime::FaustCompiler(options).compile_file(data_dir() / "bank.dsp");
  const auto names = entries(dir / "cache");
  ASSERT_EQ(names.size(), 1u);
  const fs::path entry = dir / "cache" / names[0];
  for (const double fraction : {0.0, 0.1, 0.5, 0.99}) {
    const auto size = fs::file_size(entry);
    fs::resize_file(entry, static_cast<std::uintmax_t>(fraction * static_cast<double>(size)));
    EXPECT_FALSE(mesh2dsp::runtime::FaustCompiler(options).compile_file(data_dir() / "bank.dsp").from_cache());
    EXPECT_TRUE(mesh2dsp::runtime::FaustCompiler(options).compile_file(data_dir() / "bank.dsp").from_cache());
  }
}

// A full disk: `render`, `modes` and `reference` say they cannot write and leave no file;
// a compile cache on that disk is skipped with a notice and the render itself succeeds.
TEST(NothingLost, FullDiskIsOneClearMessageAndNoPartialFile) {
  TempDir dir;
  const fs::path disk = dir / "disk";
  fs::create_directories(disk);
  const std::string cube = q(fs::path(MESH2DSP_SOURCE_DIR) / "tests/generator/data/cube.obj");
  const auto r = in_mount_namespace(
      "mount -t tmpfs -o size=64k tmpfs " + q(disk) + " || exit 99\n" +
      "cat /dev/zero > " + q(disk / "filler") + " 2>/dev/null\n" +  // the disk is now full
      "MESH2DSP_CACHE_DIR=" + q(dir / "cache") + " " + render_cmd(disk / "out.wav", 5) +
      "; echo \"render-exit=$?\"\n" +
      "MESH2DSP_CACHE_DIR=" + q(disk / "cache") + " " + render_cmd(dir / "small.wav", 0.05) +
      "; echo \"cached-exit=$?\"\n" +
      q(mesh2dsp_bin()) + " modes " + cube + " --material steel --modes 3 -q -o " +
      q(disk / "cube.modal.json") + "; echo \"modes-exit=$?\"\n" +
      q(mesh2dsp_bin()) + " reference " + cube + " --material steel --element-order 1 -q --max-tet-volume 0.5 --keep-surface " +
      "--duration 0.002 -o " + q(disk / "cube.wav") + "; echo \"reference-exit=$?\"\n" +
      "echo \"left: $(cd " + q(disk) + " && find . -type f | sort | tr '\\n' ' ')\"\n");
  ASSERT_NE(r.exit_code, 99) << "cannot mount a tmpfs in a private namespace: " << r.err;
  EXPECT_TRUE(contains(r.out, "render-exit=1")) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "cannot write " + (disk / "out.wav").string())) << r.err;
  EXPECT_TRUE(contains(r.out, "cached-exit=0")) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "compile cache not written")) << r.err;
  for (const char* command : {"modes", "reference"})
    EXPECT_TRUE(contains(r.out, std::string(command) + "-exit=1")) << command << "\n" << r.out << r.err;
  for (const char* file : {"cube.modal.json", "cube.wav"})
    EXPECT_TRUE(contains(r.err, "cannot write " + (disk / file).string())) << file << "\n" << r.err;
  EXPECT_FALSE(contains(r.err, "internal error")) << r.err;
  EXPECT_TRUE(contains(r.out, "left: ./filler \n")) << r.out;  // no wav, no temporary, no cache entry
  EXPECT_TRUE(fs::exists(dir / "small.wav"));
}

// A read-only output directory: `render`, `generate` and `modes` each say they cannot write.
TEST(NothingLost, ReadOnlyOutputDirectoryIsOneClearMessage) {
  TempDir dir;
  const fs::path ro = dir / "ro";
  fs::create_directories(ro);
  const std::string bin = q(mesh2dsp_bin());
  const std::string cube = q(fs::path(MESH2DSP_SOURCE_DIR) / "tests/generator/data/cube.obj");
  const auto r = in_mount_namespace(
      "mount -t tmpfs -o ro,size=64k tmpfs " + q(ro) + " || exit 99\n" +
      render_cmd(ro / "out.wav", 0.1) + "; echo \"render-exit=$?\"\n" +
      bin + " modes " + cube + " --material steel --modes 3 -q -o " + q(ro / "cube.modal.json") +
      "; echo \"modes-exit=$?\"\n" +
      bin + " generate " + cube + " --material steel --modes 3 -q --faust " + q(ro / "cube.dsp") +
      "; echo \"generate-exit=$?\"\n");
  ASSERT_NE(r.exit_code, 99) << "cannot mount a tmpfs in a private namespace: " << r.err;
  for (const char* command : {"render", "modes", "generate"})
    EXPECT_TRUE(contains(r.out, std::string(command) + "-exit=1")) << command << "\n" << r.out << r.err;
  for (const char* file : {"out.wav", "cube.modal.json", "cube.dsp"})
    EXPECT_TRUE(contains(r.err, "cannot write " + (ro / file).string())) << file << "\n" << r.err;
  EXPECT_FALSE(contains(r.err, "internal error")) << r.err;
}

namespace {

// Starts `argv` writing into `out_dir`, waits until `ready` says the work is under way, sends
// SIGINT (Ctrl-C) and expects the process to end by it with `out_dir` left empty.
void expect_interrupt_leaves_nothing(const std::vector<std::string>& argv, const fs::path& out_dir,
                                     const std::function<bool()>& ready, const std::string& tag,
                                     int signal_number = SIGINT) {
  Child child(argv, out_dir.parent_path(), tag);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!ready() && child.running() && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(child.running()) << tag << " ended before it could be interrupted: " << child.err();
  const int code = child.stop(signal_number, 30);
  // Killed by the signal, or (render) caught it and said so.
  EXPECT_TRUE(code == 128 + signal_number || (code == 1 && contains(child.err(), "interrupted")))
      << tag << " exit " << code << ": " << child.err();
  EXPECT_EQ(joined(entries(out_dir)), "") << tag << " left files behind";
}

}  // namespace

// Ctrl-C (and a kill's SIGTERM) while render streams its wav into a temporary: the temporary
// goes too.
TEST(NothingLost, CtrlCDuringRenderLeavesNoPartialFile) {
  TempDir dir;
  const fs::path out = dir / "out";
  fs::create_directories(out);
  for (const int signal_number : {SIGINT, SIGTERM})
    expect_interrupt_leaves_nothing(
        {mesh2dsp_bin(), "render", (data_dir() / "bank.dsp").string(), "-o", (out / "long.wav").string(),
         "--duration", "3000", "--no-cache"},
        out, [&] { return !entries(out).empty(); }, "render", signal_number);
}

// Ctrl-C in the middle of the analysis (`modes`) and of the time stepping (`reference`).
TEST(NothingLost, CtrlCDuringModesAndReferenceLeavesNoPartialFile) {
  TempDir dir;
  const fs::path out = dir / "out";
  fs::create_directories(out);
  const fs::path meshes = fs::path(MESH2DSP_SOURCE_DIR) / "meshes";
  const auto after = [](double s) {
    const auto t = std::chrono::steady_clock::now() + std::chrono::duration<double>(s);
    return [t] { return std::chrono::steady_clock::now() >= t; };
  };
  expect_interrupt_leaves_nothing({mesh2dsp_bin(), "modes", (meshes / "bowl.obj").string(),
                                   "--material", "steel", "--modes", "200", "-o",
                                   (out / "bowl.modal.json").string()},
                                  out, after(2.0), "modes");
  expect_interrupt_leaves_nothing({mesh2dsp_bin(), "reference", (meshes / "bar.obj").string(),
                                   "--material", "steel", "--duration", "30", "-o",
                                   (out / "bar.wav").string()},
                                  out, after(2.0), "reference");
}
