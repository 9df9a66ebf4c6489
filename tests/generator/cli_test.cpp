// The `mesh2dsp modes` command end to end: accuracy on the bundled meshes against beam theory,
// exact re-tuning, and one clear error with no output file for every class of bad input.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "modal/modal_model.hpp"
#include "support/command.hpp"

namespace fs = std::filesystem;
using namespace mesh2dsp;

namespace {

using Run = mesh2dsp::test::CommandRun;

Run run(const std::string& args) {
  return mesh2dsp::test::run_command(std::string(MESH2DSP_BIN) + " " + args);
}

std::string source(const std::string& rel) { return std::string(MESH2DSP_SOURCE_DIR) + "/" + rel; }

class Scratch : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("mesh2dsp-cli-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string out(const std::string& name) const { return (dir / name).string(); }
  // Nothing but the inputs written: no output file and no temporary left behind.
  bool dir_empty() const { return fs::is_empty(dir); }
  fs::path dir;
};

double nearest_error(const ModalModel& m, double reference_hz) {
  double best = INFINITY;
  for (const auto& mode : m.modes) best = std::min(best, std::abs(mode.frequency_hz / reference_hz - 1));
  return best;
}

}  // namespace

TEST_F(Scratch, BarBendingModesMatchTimoshenko) {
  // meshes/bar.obj is the benchmark bar (0.30 × 0.03 × 0.02 m, steel) at a CI-sized resolution.
  const auto r = run("modes " + source("meshes/bar.obj") + " --material steel --modes 16 -o " + out("bar.modal.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto m = read_modal_model(out("bar.modal.json"));
  // Timoshenko beam theory (the benchmark bar's published values): z1..z4, y1..y4.
  for (double f : {1135.0, 3043.2, 5747.1, 9083.4, 1671.0, 4350.4, 7943.4, 12133.3})
    EXPECT_LT(nearest_error(m, f), 0.015) << f << " Hz";
  // First longitudinal mode c/(2L) = 8413 Hz.
  EXPECT_LT(nearest_error(m, 8413.0), 0.005);
  for (size_t i = 1; i < m.modes.size(); ++i) EXPECT_LE(m.modes[i - 1].frequency_hz, m.modes[i].frequency_hz);
  EXPECT_EQ(m.mesh.element_order, 2);
  EXPECT_EQ(m.excitations.size(), 8u);  // default auto:8
  // T60 = ln(1000)/(ξω), not Mesh2Faust's 2π-too-long value.
  const auto& first = m.modes.front();
  const double omega = 2 * M_PI * first.frequency_hz;
  EXPECT_NEAR(first.t60_s, std::log(1000.0) / (first.damping_ratio * omega), 1e-9);
}

TEST_F(Scratch, ElementScaleSetsTheMeshAndTheModesConverge) {
  // --element-scale 0.6: elements about 0.6 as long, so several times as many; the bar's
  // modes move little between the two (the default sizing is converged on it).
  const std::string bar = source("meshes/bar.obj") + " --material steel --modes 8 --keep-surface";
  ASSERT_EQ(run("modes " + bar + " -o " + out("a.modal.json")).exit_code, 0);
  const auto r = run("modes " + bar + " --element-scale 0.6 -o " + out("b.modal.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto a = read_modal_model(out("a.modal.json")), b = read_modal_model(out("b.modal.json"));
  EXPECT_GT(b.mesh.tetrahedra, 2 * a.mesh.tetrahedra);
  ASSERT_EQ(a.modes.size(), b.modes.size());
  for (size_t i = 0; i < a.modes.size(); ++i)
    EXPECT_NEAR(a.modes[i].frequency_hz / b.modes[i].frequency_hz, 1.0, 0.005) << "mode " << i;
}

// `bench` reads the mesh in the units it is told, as `modes` does (one --scale/--units pair of
// options for both): the bar read in millimetres is a 0.3 mm bar, whose lowest mode lies far
// above the band, and the two options contradicting each other are one error.
TEST_F(Scratch, BenchTakesTheMeshsUnits) {
  const std::string bench = "bench " + source("meshes/bar.obj") + " --orders 1 --modes 4 ";
  const auto metres = run(bench + "--scale 1 --json " + out("m.json"));
  ASSERT_EQ(metres.exit_code, 0) << metres.output;
  const auto millimetres = run(bench + "--units mm --json " + out("mm.json"));
  ASSERT_EQ(millimetres.exit_code, 0) << millimetres.output;
  std::ifstream m_in(out("m.json")), mm_in(out("mm.json"));
  const nlohmann::json m = nlohmann::json::parse(m_in), mm = nlohmann::json::parse(mm_in);
  ASSERT_EQ(m.size(), 1u);
  ASSERT_EQ(mm.size(), 1u);
  EXPECT_EQ(m[0].value("modes", 0), 4) << m.dump();
  EXPECT_DOUBLE_EQ(m[0].value("scale", 0.0), 1.0);
  const std::string error = mm[0].value("error", "");
  EXPECT_NE(error.find("lowest elastic mode is at"), std::string::npos) << mm.dump();
  const auto both = run(bench + "--scale 2 --units mm");
  EXPECT_NE(both.exit_code, 0);
  EXPECT_NE(both.output.find("give one of them"), std::string::npos) << both.output;
}

TEST_F(Scratch, CantileverMatchesClampedFreeBeam) {
  // meshes/cantilever.obj: 0.20 × 0.02 × 0.01 m, clamped at x = 0. Euler–Bernoulli clamped-free:
  // ω = (βL)²√(EI/(ρA))/L², βL = 1.8751, 4.6941, 7.8548; bending in the 0.01 m direction.
  const auto r = run("modes " + source("meshes/cantilever.obj") +
                     " --material steel --fix \"x<=0\" --modes 8 -o " + out("c.modal.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto m = read_modal_model(out("c.modal.json"));
  const double E = 2.0e11, rho = 7850, L = 0.20, h = 0.01;
  const double base = std::sqrt(E * h * h / 12 / rho) / (L * L) / (2 * M_PI);
  EXPECT_NEAR(m.modes[0].frequency_hz / (1.8751 * 1.8751 * base), 1.0, 0.02);
  EXPECT_LT(nearest_error(m, 4.6941 * 4.6941 * base), 0.03);
  EXPECT_LT(nearest_error(m, 7.8548 * 7.8548 * base), 0.05);
  EXPECT_EQ(m.analysis.fixed.size(), 1u);
}

TEST_F(Scratch, RetuningEqualsAFreshSolve) {
  ASSERT_EQ(run("modes " + source("meshes/bar.obj") + " --modes 6 -o " + out("steel.modal.json")).exit_code, 0);
  const std::string custom = " --youngs-modulus 1.1e11 --density 5000 --rayleigh-mass 2 --rayleigh-stiffness 1e-7";
  auto r = run("modes " + out("steel.modal.json") + custom + " -o " + out("retuned.modal.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run("modes " + source("meshes/bar.obj") + " --modes 6" + custom + " -o " + out("fresh.modal.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto a = read_modal_model(out("retuned.modal.json")), b = read_modal_model(out("fresh.modal.json"));
  ASSERT_EQ(a.modes.size(), b.modes.size());
  for (size_t i = 0; i < a.modes.size(); ++i) {
    EXPECT_NEAR(a.modes[i].frequency_hz / b.modes[i].frequency_hz, 1.0, 1e-8);
    EXPECT_NEAR(a.modes[i].t60_s / b.modes[i].t60_s, 1.0, 1e-7);
    // Shapes are defined up to sign.
    EXPECT_NEAR(std::abs(a.excitations[0].gains[i]), std::abs(b.excitations[0].gains[i]),
                1e-5 * std::abs(b.excitations[0].gains[i]) + 1e-12);
  }
  // What needs the shapes needs the mesh: refused with the reason, nothing written.
  r = run("modes " + out("steel.modal.json") + " --listener 0,0,1 -o " + out("l.modal.json"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("needs the mesh"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out("l.modal.json")));
  // A preset with another ν (iron 0.28 vs steel 0.29) re-tunes E, ρ, damping and keeps ν, saying so.
  r = run("modes " + out("steel.modal.json") + " --material iron -o " + out("iron.modal.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Poisson ratio"), std::string::npos) << r.output;
  const auto iron = read_modal_model(out("iron.modal.json"));
  EXPECT_EQ(iron.material.poisson_ratio, 0.29);
  EXPECT_EQ(iron.material.youngs_modulus_pa, 2.1e11);
  // An explicit new Poisson ratio changes the shapes: refused, with the reason.
  r = run("modes " + out("steel.modal.json") + " --poisson-ratio 0.3 -o " + out("nu.modal.json"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("Poisson ratio"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out("nu.modal.json")));
}

TEST_F(Scratch, ExcitationSelection) {
  auto r = run("modes " + source("meshes/bar.obj") + " --modes 3 --excite \"vertex:0,5\" -o " + out("v.modal.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto m = read_modal_model(out("v.modal.json"));
  ASSERT_EQ(m.excitations.size(), 2u);
  EXPECT_EQ(m.excitations[1].vertex, 5);
  EXPECT_NEAR(m.excitations[0].direction.norm(), 1.0, 1e-12);
  r = run("modes " + source("meshes/bar.obj") + " --modes 3 --normalize per-point --excite \"point:0.0,0.0,0.011\" -o " + out("p.modal.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  m = read_modal_model(out("p.modal.json"));
  ASSERT_EQ(m.excitations.size(), 1u);
  EXPECT_NEAR(m.excitations[0].position.z(), 0.01, 1e-9);  // nearest surface vertex: the top face
  double peak = 0;
  for (double g : m.excitations[0].gains) peak = std::max(peak, std::abs(g));
  EXPECT_NEAR(peak, 1.0, 1e-12);
  // After remeshing, vertex:I still names the input file's vertex I (here a corner of the bar,
  // which remeshing keeps): the nearest surface vertex of the analysis mesh.
  r = run("modes " + source("meshes/bar.obj") + " --modes 3 --surface-edge 0.02 --excite vertex:0 -o " + out("r.modal.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("surface remeshed"), std::string::npos) << r.output;
  m = read_modal_model(out("r.modal.json"));
  EXPECT_LT((m.excitations[0].position - Eigen::Vector3d(-0.15, -0.015, -0.01)).norm(), 1e-9);
}

TEST_F(Scratch, ListenerGainsFollowTheRadiationModel) {
  // A clamped cantilever pushes air like a source with net volume velocity: above it, every
  // mode's pressure halves from r to 2r (1/r, O'Brien, Cook & Essl 2001, eq. 10) and the delay doubles (eq. 11).
  auto r = run("modes " + source("meshes/cantilever.obj") +
               " --fix \"x<=0\" --modes 3 --listener 0.1,0,2 --listener 0.1,0,4 -o " + out("c.modal.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto m = read_modal_model(out("c.modal.json"));
  ASSERT_EQ(m.listeners.size(), 2u);
  ASSERT_EQ(m.listeners[0].gains.size(), m.modes.size());
  EXPECT_NEAR(m.listeners[1].delay_s / m.listeners[0].delay_s, 2.0, 0.02);
  EXPECT_NEAR(m.listeners[0].delay_s, 2.0 / 343.0, 1e-4);
  for (size_t n = 0; n < m.modes.size(); ++n) {
    const double near = m.listeners[0].gains[n], far = m.listeners[1].gains[n];
    if (std::abs(near) < 1e-3 * std::abs(m.listeners[0].gains[0])) continue;  // radiates sideways
    EXPECT_NEAR(far / near, 0.5, 0.02) << "mode " << n;
  }
  // A free bar's first bending mode moves no net volume: broadside (straight above the middle)
  // its far field cancels, falling faster than 1/r. The triangles' delays (phases) matter here.
  r = run("modes " + source("meshes/bar.obj") + " --modes 1 --listener 0,0,2 --listener 0,0,4 -o " + out("b.modal.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  m = read_modal_model(out("b.modal.json"));
  EXPECT_LT(std::abs(m.listeners[1].gains[0] / m.listeners[0].gains[0]), 0.35);
  r = run("modes " + source("meshes/bar.obj") + " --modes 1 --listener 0,0 -o " + out("bad.modal.json"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--listener"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out("bad.modal.json")));
}

TEST_F(Scratch, BadInputsFailCleanly) {
  // Each: the command, a phrase the message must contain. No output file may appear.
  const std::string bar = source("meshes/bar.obj");
  const std::string data = source("tests/generator/data/");
  {
    // Two overlapping closed cubes: each check passes, TetGen finds the intersection.
    std::ofstream f(dir / "overlap.obj");
    auto cube = [&](double o, int base) {
      for (int i = 0; i < 8; ++i)
        f << "v " << o + (i & 1) << " " << o + ((i >> 1) & 1) << " " << o + ((i >> 2) & 1) << "\n";
      const int q[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
      for (auto& s : q)
        f << "f " << base + s[0] << " " << base + s[1] << " " << base + s[2] << " " << base + s[3] << "\n";
    };
    cube(0, 1);
    cube(0.5, 9);
  }
  const std::string overlap = (dir / "overlap.obj").string();
  {
    // A tet mesh whose only element is nearly flat (what Mesh2Faust's mesher produces on the
    // bowl and bar_2p5mm and then solves silently).
    std::ofstream node(dir / "sliver.node"), ele(dir / "sliver.ele");
    node << "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0.3 0.3 1e-7\n";
    ele << "1 4 0\n1 1 2 3 4\n";
  }
  const std::string sliver = (dir / "sliver.node").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"modes /nonexistent/mesh.obj", "no such file"},
      {"modes " + data + "open_box.obj", "hole"},
      {"modes " + data + "edge_three_faces.obj", "shared by 3 faces"},
      {"modes " + data + "two_cubes_vertex.obj", "non-manifold"},
      {"modes " + data + "flipped_face.obj", "orient"},
      {"modes " + data + "degenerate_face.obj", "degenerate"},
      {"modes " + data + "nan_coordinate.obj", "finite"},
      {"modes " + data + "empty.obj", ""},
      {"modes " + data + "truncated_binary.stl", ""},
      {"modes " + data + "missing_vertex.off", ""},
      {"modes " + data + "bad_tets.node", ""},
      {"modes " + overlap, "intersect"},
      {"modes " + sliver, "near-zero volume"},
      {"modes " + bar + " --poisson-ratio 0.5", "Poisson ratio"},
      {"modes " + bar + " --poisson-ratio -1.2", "Poisson ratio"},
      {"modes " + bar + " --youngs-modulus 0", "Young's modulus"},
      {"modes " + bar + " --density -7850", "density"},
      {"modes " + bar + " --rayleigh-mass -1", "Rayleigh"},
      {"modes " + bar + " --rayleigh-stiffness -1e-8", "Rayleigh"},
      {"modes " + bar + " --youngs-modulus nan", ""},
      {"modes " + bar + " --material unobtainium", "unknown material"},
      {"modes " + bar + " --fix \"q<=0\"", "--fix"},
      {"modes " + bar + " --fix \"x<=-1\"", "selects no vertex"},
      {"modes " + bar + " --excite \"vertex:999999\"", "does not exist"},
      {"modes " + bar + " --excite \"dance:3\"", "unknown kind"},
      {"modes " + bar + " --fmin 5000 --fmax 100", "band"},
      {"modes " + bar + " --modes 0", "--modes"},
      {"modes " + bar + " --scale 0", "--scale"},
      {"modes " + bar + " --max-tet-volume -1", "--max-tet-volume"},
      {"modes " + bar + " --element-order 4", "element-order"},
      {"modes " + bar + " --element-scale 0", "--element-scale"},
      {"modes " + bar + " --element-scale nan", ""},
      {"modes " + bar + " --boundary-distance 0", "--boundary-distance"},
      {"modes " + bar + " --boundary-distance -0.001", "--boundary-distance"},
      {"modes " + bar + " --radiation foo", "--radiation"},
  };
  for (const auto& [args, phrase] : cases) {
    const auto r = run(args + " --modes 3 -o " + out("model.modal.json"));
    EXPECT_NE(r.exit_code, 0) << args << "\n" << r.output;
    EXPECT_NE(r.exit_code, 70) << "internal error instead of a user error: " << args << "\n" << r.output;
    if (!phrase.empty()) EXPECT_NE(r.output.find(phrase), std::string::npos) << args << "\n" << r.output;
    EXPECT_FALSE(fs::exists(out("model.modal.json"))) << args;
    // One message, not a cascade.
    EXPECT_LE(std::count(r.output.begin(), r.output.end(), '\n'), 3) << args << "\n" << r.output;
  }
  // An output directory that does not exist: clear error, nothing written.
  const auto r = run("modes " + bar + " --modes 3 -o " + out("missing-dir/model.modal.json"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("does not exist"), std::string::npos) << r.output;
  for (auto name : {"overlap.obj", "sliver.node", "sliver.ele"}) fs::remove(dir / name);
  EXPECT_TRUE(dir_empty());
}

TEST_F(Scratch, TheAnalysisBinaryLeavesTheFaustRuntimeToMesh2dspFull) {
  // `mesh2dsp` does not load libfaust, LLVM, PETSc or MPI (seen through ldd), hands the runtime
  // commands and --solver slepc to mesh2dsp-full beside it, global options before the command
  // included, and without mesh2dsp-full says so in one line, exit 1.
  const fs::path bin = fs::canonical(MESH2DSP_BIN);
  const auto libs = mesh2dsp::test::run_command("ldd " + bin.string());
  ASSERT_EQ(libs.exit_code, 0) << libs.output;
  EXPECT_EQ(libs.output.find("libfaust"), std::string::npos) << libs.output;
  EXPECT_EQ(libs.output.find("libLLVM"), std::string::npos) << libs.output;
  EXPECT_EQ(libs.output.find("libpetsc"), std::string::npos) << libs.output;
  EXPECT_EQ(libs.output.find("libmpi"), std::string::npos) << libs.output;
  const auto help = run("-q render --help");
  ASSERT_EQ(help.exit_code, 0) << help.output;
  EXPECT_NE(help.output.find("--sample-rate"), std::string::npos) << help.output;
  const auto listed = run("--help");
  for (const char* command : {"modes", "generate", "render", "play", "validate", "fit"})
    EXPECT_NE(listed.output.find(std::string("  ") + command + " "), std::string::npos) << command << listed.output;

  fs::copy_file(bin, dir / "mesh2dsp");
  const auto alone = mesh2dsp::test::run_command((dir / "mesh2dsp").string() + " render x.dsp -o " + out("x.wav"));
  EXPECT_EQ(alone.exit_code, 1) << alone.output;
  EXPECT_NE(alone.output.find("needs mesh2dsp-full"), std::string::npos) << alone.output;
  EXPECT_FALSE(fs::exists(out("x.wav")));
  const auto slepc = mesh2dsp::test::run_command((dir / "mesh2dsp").string() + " modes " + source("meshes/bar.obj") +
                                                 " --solver slepc -o " + out("x.modal.json"));
  EXPECT_EQ(slepc.exit_code, 1) << slepc.output;
  EXPECT_NE(slepc.output.find("--solver slepc needs mesh2dsp-full"), std::string::npos) << slepc.output;
  EXPECT_FALSE(fs::exists(out("x.modal.json")));
  const auto modes = mesh2dsp::test::run_command((dir / "mesh2dsp").string() + " --version");
  EXPECT_EQ(modes.exit_code, 0) << modes.output;
}
