// Generated DSP that survives any control (issue 32): a million random calls of every control
// with hostile values (0, negatives, +-inf, NaN, 1e30, denormals) and random strikes at random
// sample offsets, for the header compiled with ASan and UBSan and for the Faust program in
// libfaust's JIT driven through the runtime's control API; and models with thousands of
// excitation points in the differential test of the Faust program against the header.
#include <cstdio>
#include <utility>

#include "test_support.hpp"

namespace emit_test {
namespace {

const std::string kHarness = MESH2DSP_HARNESS_DIR;
constexpr long kCalls = 1000000;
// Far above what the hostile sequence reaches with every control at the top of its range (strikes
// of 10 N s every few ms at T60 scale 10 pile up to a few 1e4; measured 1.1e4 and 3.0e4), far
// below what a blow-up reaches: the 170 s the harness plays take a growing pole to inf.
constexpr double kBound = 1e6;

struct HostileRun {
  long calls = 0, samples = 0, nonfinite = -1;
  double peak = -1;
};

HostileRun parse(const Result& r) {
  HostileRun h;
  const auto at = r.output.rfind("calls ");
  if (at != std::string::npos)
    std::sscanf(r.output.c_str() + at, "calls %ld samples %ld peak %lf nonfinite %ld", &h.calls, &h.samples,
                &h.peak, &h.nonfinite);
  return h;
}

void expect_survives(const Result& r, const std::string& what) {
  EXPECT_EQ(r.status, 0) << what << "\n" << r.output.substr(0, 4000);
  EXPECT_EQ(r.output.find("runtime error"), std::string::npos) << what << ": UBSan\n" << r.output.substr(0, 4000);
  EXPECT_EQ(r.output.find("AddressSanitizer"), std::string::npos) << what << ": ASan\n" << r.output.substr(0, 4000);
  const HostileRun h = parse(r);
  EXPECT_EQ(h.calls, kCalls) << what << "\n" << r.output;
  EXPECT_GT(h.samples, kCalls / 8) << what;
  EXPECT_EQ(h.nonfinite, 0) << what << ": NaN or inf in the output";
  EXPECT_GT(h.peak, 0) << what << ": silent (the strikes never sounded)";
  EXPECT_LT(h.peak, kBound) << what << ": the output grew without bound";
  std::printf("%s: %ld samples, peak %.4g\n", what.c_str(), h.samples, h.peak);
}

class HostileTest : public ScratchTest {};

TEST_F(HostileTest, HeaderUnderAMillionHostileCallsStaysFiniteAndBoundedUnderSanitizers) {
  // The two test bars, and the synthetic model of 2 100 points (whose contact triangles reach
  // past where a packed point key overflowed).
  const std::pair<std::string, fs::path> models[] = {
      {"testbar", kData / "testbar.modal.json"},
      {"testbar_stereo", kData / "testbar_stereo.modal.json"},
      {"testwide", fs::path(MESH2DSP_EMITTED_DIR) / "testwide.modal.json"}};
  for (const auto& [model, file] : models) {
    const auto g = generate(file, "--name " + model + " --excitation all --no-model-json --cpp " + model + ".hpp");
    ASSERT_EQ(g.status, 0) << g.output;
    const std::string cls = model == "testbar" ? "Testbar" : model == "testwide" ? "Testwide" : "TestbarStereo";
    const std::string exe = (dir / ("hostile_" + model)).string();
    const auto c = run("cd '" + dir.string() + "' && " + MESH2DSP_CXX +
                       " -std=c++20 -O1 -g -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all"
                       " -DMODEL_HEADER='\"" + model + ".hpp\"' -DMODEL_CLASS=" + cls + " -I. '" +
                       (kData / "hostile_harness.cpp").string() + "' -o '" + exe + "'");
    ASSERT_EQ(c.status, 0) << c.output;
    for (int seed : {1, 2}) expect_survives(run("'" + exe + "' " + std::to_string(seed) + " " + std::to_string(kCalls)),
                                            model + " header, seed " + std::to_string(seed));
  }
}

#ifdef MESH2DSP_TESTS_HAVE_JIT
TEST_F(HostileTest, FaustProgramInTheJitUnderAMillionHostileCallsStaysFiniteAndBounded) {
  for (const char* model : {"testbar", "testbar_stereo"})
    expect_survives(run("'" + kHarness + "/hostile_jit_" + model + "' 3 " + std::to_string(kCalls)),
                    std::string(model) + " JIT");
}
#else
TEST_F(HostileTest, FaustProgramInTheJitUnderAMillionHostileCallsStaysFiniteAndBounded) {
  FAIL() << "built without the runtime: the JIT cannot be tested";
}
#endif

TEST_F(HostileTest, AModelWithTwoThousandPointsAndAHundredTrianglesIsOneInstrumentInFaustAndTheHeader) {
  // 2 100 points and 120 triangles spread over them: a packed point key (a P + b) P + c
  // overflowed an int past 1 290 points and the header read outside its tables.
  std::vector<std::string> programs = {"differ_testwide"};
#ifdef MESH2DSP_TESTS_HAVE_JIT
  programs.push_back("differ_jit_testwide");
#endif
  for (const auto& program : programs)
    for (int seed = 1; seed <= 4; ++seed) {
      const auto r = run("'" + kHarness + "/" + program + "' " + std::to_string(seed) + " 48000 1.0");
      double peak = 0, diff = 0;
      int events = 0;
      ASSERT_EQ(std::sscanf(r.output.c_str(), "peak %lf max_diff %lf events %d", &peak, &diff, &events), 3) << r.output;
      EXPECT_GT(peak, 1e-3) << program << " seed " << seed;
      EXPECT_LE(diff, 1e-4 * peak) << program << " seed " << seed;
    }
}

}  // namespace
}  // namespace emit_test
