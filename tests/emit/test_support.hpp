#pragma once
// Helpers for the emitter tests: run the CLI and the toolchains, scratch directories, files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace emit_test {
namespace fs = std::filesystem;

inline const std::string kBin = MESH2DSP_BIN;
inline const fs::path kSource = MESH2DSP_SOURCE_DIR;
inline const fs::path kData = kSource / "tests/emit/data";

struct Result {
  int status;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line; returns its exit status and everything it printed.
inline Result run(const std::string& command) {
  const fs::path log = fs::temp_directory_path() / ("emit-test-" + std::to_string(::getpid()) + "-" +
                                                    std::to_string(std::rand()) + ".log");
  // Grouped: the output of every command of a chain (cd X && a && b), not just the last.
  const int raw = std::system(("( " + command + " ) > '" + log.string() + "' 2>&1").c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  fs::remove(log);
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : 128, text.str()};
}

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A fresh directory per test, removed afterwards.
class ScratchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::temp_directory_path() /
          (std::string("mesh2dsp-emit-") + info->test_suite_name() + "-" + info->name() + "-" +
           std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override {
    if (!HasFailure() && !std::getenv("MESH2DSP_KEEP_TEST_DIRS")) fs::remove_all(dir);
  }
  // mesh2dsp generate <model> <args>, run from the scratch directory.
  Result generate(const fs::path& model, const std::string& args) {
    return run("cd '" + dir.string() + "' && '" + kBin + "' generate '" + model.string() + "' " + args);
  }
  fs::path dir;
};

}  // namespace emit_test
