// `mesh2dsp reference` end to end: a tiny render with its WAV and sidecar, and bad input that
// must end with one clear message, a non-zero exit and no output file.
#include <cmath>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fem/structured_box.hpp"
#include "wav_output.hpp"

using namespace mesh2dsp;
namespace fs = std::filesystem;

namespace {

struct CliRun {
  int status = -1;
  std::string err;
};

CliRun run(const std::string& args) {
  const fs::path err = fs::temp_directory_path() / ("mesh2dsp_solver_cli_" + std::to_string(getpid()) + ".err");
  const std::string command = std::string(MESH2DSP_BIN) + " " + args + " 2>" + err.string() + " >/dev/null";
  CliRun r;
  const int raw = std::system(command.c_str());
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  std::ifstream in(err);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  fs::remove(err);
  return r;
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

class ReferenceCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mesh2dsp_solver_cli_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    write_tetgen_files(structured_box({0, 0, 0}, {0.30, 0.03, 0.02}, 6, 2, 2), dir_ / "bar");
    mesh_ = (dir_ / "bar.node").string();
    out_ = dir_ / "out.wav";
  }
  void TearDown() override { fs::remove_all(dir_); }
  void expect_clean_failure(const std::string& args, const std::string& message) {
    const CliRun r = run("reference " + mesh_ + " --element-order 1 " + args);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << "expected \"" << message << "\" in: " << r.err;
    EXPECT_FALSE(fs::exists(out_)) << args;
    for (const auto& e : fs::directory_iterator(dir_))
      EXPECT_TRUE(e.path().extension() == ".node" || e.path().extension() == ".ele")
          << "left behind: " << e.path();
  }
  fs::path dir_, out_;
  std::string mesh_;
};

}  // namespace

TEST_F(ReferenceCli, WritesAStereoFloatWavAndASidecar) {
  const CliRun r = run("reference " + mesh_ + " --element-order 1 --force cosine:0.0001 --stereo "
                    "--listener 0.15,0.015,0.5 --duration 0.01 -o " + out_.string());
  ASSERT_EQ(r.status, 0) << r.err;
  int rate = 0;
  const auto channels = read_wav_float(out_, &rate);
  EXPECT_EQ(rate, 48000);
  ASSERT_EQ(channels.size(), 2u);
  EXPECT_EQ(channels[0].size(), 480u);
  double peak = 0;
  for (float x : channels[0]) peak = std::max(peak, static_cast<double>(std::abs(x)));
  EXPECT_GT(peak, 0);
  std::ifstream in(dir_ / "out.json");
  ASSERT_TRUE(in);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["listeners"].size(), 2u);
  EXPECT_EQ(j["mesh"]["tetrahedra"], 144);
  EXPECT_NEAR(j["integrator"]["dt_s"].get<double>(), 1.0 / 288000, 1e-12);
  EXPECT_EQ(j["channels"].size(), 2u);
  EXPECT_NE(j["command"].get<std::string>().find("--stereo"), std::string::npos);
}

TEST_F(ReferenceCli, DefaultListenerAnd44k1) {
  const CliRun r = run("reference " + mesh_ + " --element-order 1 --sample-rate 44100 --duration 0.005 "
                    "--force impulse -o " + out_.string());
  ASSERT_EQ(r.status, 0) << r.err;
  int rate = 0;
  const auto channels = read_wav_float(out_, &rate);
  EXPECT_EQ(rate, 44100);
  EXPECT_EQ(channels.size(), 1u);
  std::ifstream in(dir_ / "out.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_NE(j["listener_note"].get<std::string>().find("default"), std::string::npos);
  // The factor is in float by default (a linear render, the supernodal solver).
  EXPECT_TRUE(j["integrator"]["single_precision_factor"].get<bool>());
}

TEST_F(ReferenceCli, DoublePrecisionKeepsTheFactorInDoubleAndRendersTheSame) {
  const std::string args = "reference " + mesh_ + " --element-order 1 --duration 0.02 --force impulse -o ";
  const fs::path double_out = dir_ / "double.wav";
  const CliRun d = run(args + double_out.string() + " --double-precision");
  ASSERT_EQ(d.status, 0) << d.err;
  const CliRun f = run(args + out_.string());
  ASSERT_EQ(f.status, 0) << f.err;
  std::ifstream in(dir_ / "double.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_FALSE(j["integrator"]["single_precision_factor"].get<bool>());
  int rate = 0;
  const auto a = read_wav_float(double_out, &rate), b = read_wav_float(out_, &rate);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  ASSERT_EQ(a[0].size(), b[0].size());
  double diff = 0, ref = 0;
  for (size_t i = 0; i < a[0].size(); ++i) {
    diff += std::pow(double(a[0][i]) - b[0][i], 2);
    ref += std::pow(double(a[0][i]), 2);
  }
  ASSERT_GT(ref, 0);
  EXPECT_LT(10 * std::log10(diff / ref + 1e-300), -60);  // float WAV samples: -60 dB is loose
}

TEST_F(ReferenceCli, UnknownForceKind) {
  expect_clean_failure("--force hammer:3 -o " + out_.string(), "unknown kind");
}
TEST_F(ReferenceCli, NegativeDuration) {
  expect_clean_failure("--duration=-1 -o " + out_.string(), "--duration must be positive");
  expect_clean_failure("--force cosine:-0.001 -o " + out_.string(), "must be positive");
}
TEST_F(ReferenceCli, NonPositiveTimeStep) {
  expect_clean_failure("--dt=0 -o " + out_.string(), "--dt must be positive");
  expect_clean_failure("--dt=-1e-6 -o " + out_.string(), "--dt must be positive");
}
TEST_F(ReferenceCli, UnwritableOutput) {
  const CliRun r = run("reference " + mesh_ + " --element-order 1 -o /nonexistent/dir/out.wav");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists("/nonexistent/dir/out.wav"));
}
TEST_F(ReferenceCli, StrikeOnAClampedPoint) {
  expect_clean_failure("--fix \"x<=0\" --strike vertex:0 -o " + out_.string(), "clamped");
}

// Issue 15, item 6: --max-memory is honoured by `reference` (it already was by `modes`): the
// factor's size is known from CHOLMOD's symbolic analysis and the audio buffers from the
// duration, so a render that would not fit stops with one message before allocating it.
TEST_F(ReferenceCli, MaxMemoryRefusesARenderThatWouldNotFit) {
  // The matrices and the factor of this small bar need a few hundred KB: 100 KB is too little.
  expect_clean_failure("--duration 0.001 --max-memory 100k -o " + out_.string(),
                       "but --max-memory allows 103 kB");  // 100 KiB
  const CliRun r = run("reference " + mesh_ + " --element-order 1 --duration 0.001 --max-memory 100k -o " +
                       out_.string());
  EXPECT_NE(r.err.find("the reference render needs about"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" DOF: factor "), std::string::npos) << r.err;  // the parts are named
  // With room, the same render runs.
  const CliRun ok = run("reference " + mesh_ + " --element-order 1 --duration 0.001 --max-memory 1G -o " +
                        out_.string());
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_TRUE(fs::exists(out_));
}

// A duration whose audio buffers alone would not fit is refused before the assembly (it used to
// overflow the buffer's int length or be killed by the kernel).
TEST_F(ReferenceCli, ADurationThatWouldNotFitIsAMessageNotAKill) {
  expect_clean_failure("--duration 20000 --max-memory 1G -o " + out_.string(), "audio and radiation");
  expect_clean_failure("--duration 1e7 -o " + out_.string(), "more than one render can hold");
}
