// --solver slepc (PETSc/SLEPc over MPI) end to end: on one and two MPI ranks (mpirun -n 2) the
// default solver's model files up to mode-shape sign, only rank 0 writing or speaking, errors as
// one message, and bench's memory per rank.
// Built only when PETSc/SLEPc are installed (scripts/packages/cluster.txt).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "modal/modal_model.hpp"
#include "support/command.hpp"

namespace fs = std::filesystem;
using namespace mesh2dsp;

namespace {

std::string source(const std::string& rel) { return std::string(MESH2DSP_SOURCE_DIR) + "/" + rel; }

// Root may run MPI jobs in CI; --oversubscribe: two ranks even on a one-core runner.
std::string mpirun(int ranks) {
  return std::string(MESH2DSP_MPIRUN) + " -n " + std::to_string(ranks) + " --oversubscribe --allow-run-as-root ";
}

test::CommandRun run(const std::string& args, int ranks = 0) {
  return test::run_command((ranks > 0 ? mpirun(ranks) : std::string()) + MESH2DSP_BIN + " " + args);
}

class Slepc : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("mesh2dsp-slepc-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string out(const std::string& name) const { return (dir / name).string(); }
  fs::path dir;
};

// Two model files of the same analysis: everything equal, frequencies to 1e-6 relative, and
// each mode's gains equal up to one sign per mode (a shape's sign is a convention both solvers
// fix the same way; allowed to differ only where round-off decides a tie).
void expect_same_model(const ModalModel& a, const ModalModel& b, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(a.modes.size(), b.modes.size());
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.mesh.vertices, b.mesh.vertices);
  EXPECT_EQ(a.mesh.tetrahedra, b.mesh.tetrahedra);
  EXPECT_EQ(a.mesh.element_order, b.mesh.element_order);
  EXPECT_EQ(a.material.name, b.material.name);
  for (size_t n = 0; n < a.modes.size(); ++n) {
    EXPECT_NEAR(a.modes[n].frequency_hz / b.modes[n].frequency_hz, 1.0, 1e-6) << "mode " << n;
    EXPECT_NEAR(a.modes[n].damping_ratio / b.modes[n].damping_ratio, 1.0, 1e-6) << "mode " << n;
  }
  ASSERT_EQ(a.excitations.size(), b.excitations.size());
  ASSERT_EQ(a.listeners.size(), b.listeners.size());
  for (size_t k = 0; k < a.excitations.size(); ++k) {
    EXPECT_EQ(a.excitations[k].vertex, b.excitations[k].vertex);
    EXPECT_LT((a.excitations[k].position - b.excitations[k].position).norm(), 1e-12);
  }
  for (size_t n = 0; n < a.modes.size(); ++n) {
    // All of mode n's gains (every excitation point and listener), as one vector per model.
    std::vector<double> ga, gb;
    for (size_t k = 0; k < a.excitations.size(); ++k) {
      ga.push_back(a.excitations[k].gains[n]);
      gb.push_back(b.excitations[k].gains[n]);
    }
    for (size_t l = 0; l < a.listeners.size(); ++l) {
      ga.push_back(a.listeners[l].gains[n]);
      gb.push_back(b.listeners[l].gains[n]);
    }
    double scale = 0, same = 0, flipped = 0;
    for (size_t i = 0; i < ga.size(); ++i) {
      scale = std::max(scale, std::abs(ga[i]));
      same = std::max(same, std::abs(ga[i] - gb[i]));
      flipped = std::max(flipped, std::abs(ga[i] + gb[i]));
    }
    EXPECT_LT(std::min(same, flipped), 1e-4 * scale) << "gains of mode " << n;
  }
}

}  // namespace

// The bundled meshes on the default solver, SLEPc on one process (no mpirun) and SLEPc on two
// ranks: the same model file up to mode-shape sign. Listener gains included.
class SlepcMesh : public Slepc, public ::testing::WithParamInterface<const char*> {};

TEST_P(SlepcMesh, OneAndTwoRanksGiveTheDefaultSolversModel) {
  const std::string mesh = GetParam();
  std::string args = "modes " + source("meshes/" + mesh + ".obj") +
                     " --modes 12 --listener 0,0.1,0.3 --max-tet-volume 2e-7";
  if (mesh == "cantilever") args += " --fix \"x<=0\"";
  const auto d = run(args + " -o " + out("default.modal.json"));
  ASSERT_EQ(d.exit_code, 0) << d.output;
  const auto one = run(args + " --solver slepc -o " + out("one.modal.json"));
  ASSERT_EQ(one.exit_code, 0) << one.output;
  const auto two = run(args + " --solver slepc -o " + out("two.modal.json"), 2);
  ASSERT_EQ(two.exit_code, 0) << two.output;
  const ModalModel reference = read_modal_model(out("default.modal.json"));
  EXPECT_EQ(reference.modes.size(), 12u);
  expect_same_model(reference, read_modal_model(out("one.modal.json")), "one rank");
  expect_same_model(reference, read_modal_model(out("two.modal.json")), "two ranks");
}

INSTANTIATE_TEST_SUITE_P(BundledMeshes, SlepcMesh,
                         ::testing::Values("bar", "vibraphone_bar", "plate", "cantilever"));

TEST_F(Slepc, OnlyRankZeroWritesAndSpeaks) {
  const auto r = run("modes " + source("meshes/bar.obj") + " --modes 6 --max-tet-volume 2e-7 --solver slepc -o " +
                         out("bar.modal.json"),
                     2);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // One summary line (rank 0's), one file, no temporary left behind.
  size_t lines = 0;
  for (size_t at = r.output.find("bar: "); at != std::string::npos; at = r.output.find("bar: ", at + 1)) ++lines;
  EXPECT_EQ(lines, 1u) << r.output;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST_F(Slepc, ErrorsOnTwoRanksAreOneMessageAndNoFile) {
  // No mode in the band: rank 0 finds out after the solve, the other rank is released.
  const auto r = run("modes " + source("meshes/bar.obj") + " --fmax 500 --max-tet-volume 2e-7 "
                     "--solver slepc -o " + out("x.modal.json"),
                     2);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("no mode lies in the band"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("mesh2dsp: error", r.output.find("mesh2dsp: error") + 1), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_empty(dir));
  // An unreadable mesh: an error before any solve.
  const auto bad = run("modes " + out("missing.obj") + " --solver slepc -o " + out("y.modal.json"), 2);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("mesh2dsp: error"), std::string::npos) << bad.output;
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST_F(Slepc, TooLittleMemoryStopsBeforeFactorizing) {
  // --max-memory is per rank: MUMPS's analysis estimates the factor and refuses before
  // allocating it; every rank sees the same refusal, rank 0 reports it once.
  const auto r = run("modes " + source("meshes/bar.obj") + " --modes 6 --max-tet-volume 2e-7 "
                     "--max-memory 2M --solver slepc -o " + out("x.modal.json"),
                     2);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("MUMPS's estimate"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("mesh2dsp: error", r.output.find("mesh2dsp: error") + 1), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("MPI_ABORT"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST_F(Slepc, GenerateTakesTheSolverToo) {
  const auto r = run("generate " + source("meshes/bar.obj") + " --modes 6 --max-tet-volume 2e-7 --solver slepc --cpp " +
                         out("bar.hpp"),
                     2);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out("bar.hpp")));
  EXPECT_EQ(read_modal_model(out("bar.modal.json")).modes.size(), 6u);
}

TEST_F(Slepc, BenchReportsThePeakMemoryOfEveryRank) {
  const auto r = run("bench " + source("meshes/vibraphone_bar.obj") +
                         " --orders 1 --modes 6 --solver slepc --json " + out("bench.json"),
                     2);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(out("bench.json"));
  const auto j = nlohmann::json::parse(in);
  ASSERT_EQ(j.size(), 1u);
  ASSERT_FALSE(j[0].contains("error")) << j.dump();
  EXPECT_EQ(j[0]["ranks"].get<int>(), 2);
  ASSERT_EQ(j[0]["rank_peak_mb"].size(), 2u);
  // Both processes hold at least their libraries and their share of the matrices.
  for (const auto& mb : j[0]["rank_peak_mb"]) EXPECT_GT(mb.get<double>(), 10.0);
  // Rank 0 also ran the meshing and holds the assembled matrices: it is the larger one.
  EXPECT_GE(j[0]["rank_peak_mb"][0].get<double>(), j[0]["rank_peak_mb"][1].get<double>());
  EXPECT_EQ(j[0]["solver"], "slepc");
}
