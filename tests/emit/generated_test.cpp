// generated/ holds what scripts/regenerate.sh makes from the bundled models; stale output
// fails here (run scripts/regenerate.sh to refresh it).
#include "test_support.hpp"

namespace emit_test {
namespace {

TEST(GeneratedTest, CheckedInOutputsAreUpToDate) {
  const auto r = run("MESH2DSP='" + kBin + "' '" + (kSource / "scripts/regenerate.sh").string() + "' --check");
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(GeneratedTest, EveryGeneratedDspCompilesWithDebiansFaust) {
  int count = 0;
  for (const auto& e : fs::recursive_directory_iterator(kSource / "generated")) {
    if (e.path().extension() != ".dsp") continue;
    ++count;
    const auto r = run("cd '" + e.path().parent_path().string() + "' && faust '" + e.path().filename().string() +
                       "' -o /dev/null");
    EXPECT_EQ(r.status, 0) << e.path() << "\n" << r.output;
  }
  EXPECT_GT(count, 0);
}

}  // namespace
}  // namespace emit_test
