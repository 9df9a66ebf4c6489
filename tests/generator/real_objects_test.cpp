// Real objects at real sizes (issue "Real objects at real sizes"): the mesh is sized for the
// modes asked, remeshing keeps the shape, sliver surfaces mesh. Meshes are made in the tests:
// scaled bundled meshes, CAD-style sliver triangulations, millimetre units.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>
#include <string>

#include "analysis/analysis.hpp"
#include "fem/resolution.hpp"
#include "fem/surface_remesh.hpp"
#include "modal/modal_model.hpp"
#include "support/command.hpp"
#include "test_meshes.hpp"

namespace fs = std::filesystem;
using namespace mesh2dsp;
using mesh2dsp::test::CommandRun;

namespace {

CommandRun run(const std::string& args) {
  return mesh2dsp::test::run_command(std::string(MESH2DSP_BIN) + " " + args);
}

std::string source(const std::string& rel) { return std::string(MESH2DSP_SOURCE_DIR) + "/" + rel; }

class RealObjects : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("mesh2dsp-real-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  // Runs `modes` and reads the model; fails the test on a non-zero exit.
  ModalModel modes(const std::string& args, const std::string& name, std::string* output = nullptr) {
    const auto r = run("modes " + args + " -o " + path(name));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    if (output) *output = r.output;
    return read_modal_model(path(name));
  }
  fs::path dir;
};

std::vector<double> frequencies(const ModalModel& m) {
  std::vector<double> f;
  for (const auto& mode : m.modes) f.push_back(mode.frequency_hz);
  return f;
}

double worst_relative_difference(const ModalModel& a, const ModalModel& b) {
  const auto fa = frequencies(a), fb = frequencies(b);
  EXPECT_EQ(fa.size(), fb.size());
  double worst = 0;
  for (size_t i = 0; i < std::min(fa.size(), fb.size()); ++i)
    worst = std::max(worst, std::abs(fa[i] / fb[i] - 1));
  return worst;
}

// The number after `label` in the summary line ("... 1234 tetrahedra ...").
int count_before(const std::string& output, const std::string& label) {
  std::smatch m;
  if (!std::regex_search(output, m, std::regex("([0-9]+) " + label))) return -1;
  return std::stoi(m[1]);
}

}  // namespace

TEST(Resolution, WeylsLawInvertsAndSizesForTheModesAsked) {
  const Material steel = find_material_preset("steel");
  const double volume_m3 = 0.5;
  const double f = weyl_frequency_hz(volume_m3, steel, 50);
  EXPECT_NEAR(weyl_mode_count(volume_m3, steel, f), 50, 1e-9);
  // Eight times the volume: the same count at half the frequency (N ∝ V f³).
  EXPECT_NEAR(weyl_frequency_hz(8 * volume_m3, steel, 50), f / 2, 1e-9 * f);
  EXPECT_DOUBLE_EQ(sizing_frequency_hz(volume_m3, steel, 50, 20000), kResolutionMargin * f);
  // A small object's 50th mode lies above --fmax: sized for --fmax as before.
  EXPECT_DOUBLE_EQ(sizing_frequency_hz(1.8e-4, steel, 50, 20000), 20000);
}

// A frequency measured on a mesh moves in its last bits from run to run (the assembly's atomic
// additions): what sizes the mesh must not, or the same input gets another mesh now and then.
TEST(Resolution, AMeasuredSizingFrequencyIsTheSameWhateverItsLastBits) {
  const double bell_hz = 2817.7095574236137;  // one run's; another's was 2817.7095574346486
  EXPECT_EQ(reproducible_frequency_hz(bell_hz), reproducible_frequency_hz(2817.7095574346486));
  EXPECT_EQ(reproducible_frequency_hz(bell_hz), reproducible_frequency_hz(bell_hz * (1 - 1e-11)));
  EXPECT_NEAR(reproducible_frequency_hz(bell_hz), bell_hz, 1e-5 * bell_hz);
  // Six significant digits at every scale; a round value stays what it is.
  EXPECT_NEAR(reproducible_frequency_hz(10755.04449), 10755.0, 1e-9);
  EXPECT_NEAR(reproducible_frequency_hz(37.2839123), 37.2839, 1e-12);
  EXPECT_EQ(reproducible_frequency_hz(20000), 20000);
  EXPECT_EQ(reproducible_frequency_hz(0), 0);
}

TEST(Resolution, RefinesOnceWhenTheModesReachAboveTheSizedFrequency) {
  TetMesh tets;
  tets.resolved_frequency_hz = 1000;
  ModalAnalysisRequest request;
  request.modes = 3;
  request.fmax_hz = 20000;
  ModalAnalysisResult result;
  auto with_highest = [&](double highest_hz) {
    result.eigenvalues.resize(3);
    for (int i = 0; i < 3; ++i) result.eigenvalues[i] = std::pow(2 * M_PI * highest_hz * (i + 1) / 3, 2);
    return refinement_frequency_hz(result, tets, request);
  };
  EXPECT_FALSE(with_highest(900).has_value());
  ASSERT_TRUE(with_highest(1200).has_value());
  EXPECT_NEAR(*with_highest(1200), kResolutionMargin * 1200, 1e-6);
  // Fewer modes than asked in the band: mesh for the whole band.
  result.eigenvalues.resize(2);
  result.eigenvalues << 1e4, 2e4;
  EXPECT_EQ(*refinement_frequency_hz(result, tets, request), 20000);
  // A mesh sized for --fmax already is never refined.
  tets.resolved_frequency_hz = 20000;
  EXPECT_FALSE(with_highest(1e5).has_value());
}

TEST_F(RealObjects, SphereKeepsItsMultipletsAndItsModes) {
  // The case: a steel sphere of radius 5 cm analysed up to 60 kHz. Remeshing the
  // surface would coarsen it (642 → 134 vertices, modes 1.2–1.6 % high, quintuplets split by
  // 0.4 %); bounded by the shape, the analysis matches the unremeshed surface.
  const std::string args = source("meshes/sphere.obj") + " --material steel --fmax 60000 --modes 12";
  std::string output;
  const ModalModel as_is = modes(args + " --keep-surface", "kept.modal.json");
  const ModalModel model = modes(args, "auto.modal.json", &output);
  EXPECT_LT(worst_relative_difference(model, as_is), 0.002) << output;
  // The lowest elastic modes of a sphere: a fivefold spheroidal (n = 2) group and a fivefold
  // torsional one; each must stay together.
  const auto f = frequencies(model);
  ASSERT_GE(f.size(), 10u);
  for (int group = 0; group < 2; ++group) {
    const double spread = f[5 * group + 4] / f[5 * group] - 1;
    EXPECT_LT(spread, 5e-4) << "group " << group << " at " << f[5 * group] << " Hz";
  }
}

TEST_F(RealObjects, SliverBoxInMillimetresMeshesLikeItsWellShapedTwin) {
  // A 100 × 20 × 12 mm block exported CAD-style (fans of slivers up to 60:1) as binary STL in
  // millimetres, and the same block with square-ish triangles.
  const std::string slivers = path("block-slivers.stl"), twin = path("block-grid.stl");
  mesh2dsp::test::write_binary_stl(slivers, mesh2dsp::test::sliver_box(100, 20, 12, 60));
  mesh2dsp::test::write_binary_stl(twin, mesh2dsp::test::grid_box(100, 20, 12, 4));
  const std::string common = " --scale 0.001 --material steel --modes 10 --keep-surface";
  std::string output;
  const ModalModel a = modes(slivers + common, "slivers.modal.json", &output);
  EXPECT_NE(output.find("sliver"), std::string::npos) << output;
  const ModalModel b = modes(twin + common, "grid.modal.json");
  EXPECT_LT(worst_relative_difference(a, b), 0.005);
  // Without --keep-surface, slivers this long send the surface straight to the volume mesher
  // (no TetGen attempt at keeping them first), and the modes still match the twin's.
  const ModalModel c = modes(slivers + " --scale 0.001 --material steel --modes 10", "volume.modal.json", &output);
  EXPECT_NE(output.find("times longer than wide) that would give flat elements: the volume was meshed"),
            std::string::npos) << output;
  EXPECT_LT(worst_relative_difference(c, b), 0.005);
  // --boundary-distance replaces the rules' bound on how far that volume's boundary may leave
  // the input (the notice measures it): a loose one lets it go further. (Not a hard bound at a
  // crease, which the volume mesher rounds: this block's 2 mm gave 3.06 mm at its edges.)
  const auto within_mm = [](const std::string& text) {
    const auto at = text.find("the boundary within ");
    return at == std::string::npos ? -1.0 : std::stod(text.substr(at + 20));
  };
  const double rules_mm = within_mm(output);
  modes(slivers + " --scale 0.001 --material steel --modes 10 --boundary-distance 0.002", "loose.modal.json", &output);
  const double loose_mm = within_mm(output);
  EXPECT_GT(rules_mm, 0) << output;
  EXPECT_GT(loose_mm, 1.5 * rules_mm) << output;
}

TEST_F(RealObjects, SliverCylinderProngMeshesLikeItsWellShapedTwin) {
  // A tuning-fork prong as CAD exports it: 16 facets around, each two triangles 60 mm long
  // and 1.6 mm wide; its twin has rings every 1.5 mm. Millimetres in the file.
  const std::string slivers = path("prong-slivers.stl"), twin = path("prong-rings.stl");
  mesh2dsp::test::write_binary_stl(slivers, mesh2dsp::test::cylinder(60, 4, 16, 1));
  mesh2dsp::test::write_binary_stl(twin, mesh2dsp::test::cylinder(60, 4, 16, 40));
  const std::string common = " --scale 0.001 --material steel --modes 8 --fmax 60000 --keep-surface";
  std::string output;
  const ModalModel a = modes(slivers + common, "slivers.modal.json", &output);
  EXPECT_NE(output.find("TetGen split them"), std::string::npos) << output;
  const ModalModel b = modes(twin + common, "rings.modal.json");
  ASSERT_GE(a.modes.size(), 6u);
  EXPECT_LT(worst_relative_difference(a, b), 0.005);
}

TEST_F(RealObjects, ASolidsLimbIsMeshedFineEnoughForItsModes) {
  // A steel ball (12 cm) with a horn (2 cm radius, 25 cm long), finely revolved (20 000
  // vertices): its volume is meshed for the physics, and its horn's bending modes are what the
  // cells and chords of a solid's limb get wrong. Against a mesh with elements 0.7x as long and a
  // boundary within 0.5 mm of the input (itself within 0.22 % of one at 0.5x and 0.3 mm), every
  // one of the 20 modes lies within 0.6 % (measured: 0.33 %). With the cells' radius-edge bound
  // of 3 and a boundary floor of 3 % of an element edge (the walls' bounds then), it was 1.02 %,
  // the horn's first pair highest.
  const std::string ball = path("horned-ball.obj");
  mesh2dsp::test::write_obj(ball, mesh2dsp::test::horned_ball(0.12, 0.02, 0.25, 96));
  const std::string common = ball + " --material steel --modes 20";
  std::string output;
  const ModalModel model = modes(common, "default.modal.json", &output);
  EXPECT_NE(output.find("meshed for the physics"), std::string::npos) << output;
  const ModalModel finer =
      modes(common + " --element-scale 0.7 --boundary-distance 0.0005", "finer.modal.json");
  ASSERT_EQ(model.modes.size(), 20u);
  EXPECT_LT(worst_relative_difference(model, finer), 0.006);
}

TEST_F(RealObjects, AVolumeMeshedForThePhysicsIsMadeOnceWhenACoarsePassSizesIt) {
  // The horned ball asked for 6 modes: its element edge says a small mesh (about a thousand
  // elements), so the mesh sized by Weyl's law was made first, found larger (over 5 000: the
  // solid's cell and boundary bounds set it), and thrown away after the coarse pass sized
  // another. A volume meshed for the physics goes to the coarse pass directly.
  const std::string ball = path("horned-ball.obj");
  mesh2dsp::test::write_obj(ball, mesh2dsp::test::horned_ball(0.12, 0.02, 0.25, 96));
  std::string output;
  const ModalModel model = modes(ball + " --material steel --modes 6", "default.modal.json", &output);
  EXPECT_EQ(model.modes.size(), 6u);
  EXPECT_NE(output.find("coarse pass puts mode 6"), std::string::npos) << output;
  std::size_t meshings = 0;
  for (auto at = output.find("meshed for the physics"); at != std::string::npos;
       at = output.find("meshed for the physics", at + 1))
    ++meshings;
  EXPECT_EQ(meshings, 1u) << output;
}

TEST_F(RealObjects, LargeObjectIsMeshedForItsModesNotForTheBand) {
  // A 0.8 × 0.5 × 0.3 m plastic block (a statue-sized lump): its 20 lowest modes lie below
  // 1.2 kHz. Sized for the whole band (--resolution band: what every analysis did before), an
  // 8.5 kHz band takes ~70 000 tetrahedra; sized for the modes asked (a coarse pass finds the
  // 20th mode), about 3 000. The band here is scaled down from 20 kHz so that the test stays
  // quick; the ratio is what the issue asks about.
  const std::string block = path("block.obj");
  mesh2dsp::test::write_obj(block, mesh2dsp::test::grid_box(0.8, 0.5, 0.3, 0.05));
  const std::string common = block + " --material plastic --modes 20 --fmax 8500";
  std::string sized_output, band_output;
  const ModalModel sized = modes(common, "sized.modal.json", &sized_output);
  modes(common + " --resolution band --element-order 1", "band.modal.json", &band_output);
  const int sized_tets = count_before(sized_output, "tetrahedra");
  const int band_tets = count_before(band_output, "tetrahedra");
  ASSERT_GT(sized_tets, 0) << sized_output;
  EXPECT_LE(20 * sized_tets, band_tets) << sized_output << band_output;
  EXPECT_NE(sized_output.find("coarse pass"), std::string::npos) << sized_output;
  // Refinement study: a P2 mesh sized for 3 kHz (2.5× the 20th mode, finer than the 2.2 kHz
  // the coarse pass chose; itself within 0.1 % of one sized for 5 kHz) moves no mode by more
  // than 0.5 % (measured: 0.2 %).
  const ModalModel finer = modes(block + " --material plastic --modes 20 --fmax 3000 --resolution band",
                                 "finer.modal.json");
  ASSERT_EQ(sized.modes.size(), 20u);
  EXPECT_LT(worst_relative_difference(sized, finer), 0.005);
}

TEST_F(RealObjects, AWalledBodyIsSizedCloserToItsLastMode) {
  // The bundled bowl at 0.5 m asked for 30 modes: a walled body (its median wall under 1/15 of
  // its size), whose elements come from its wall, so the coarse pass sizes it for 1.5× its 30th
  // mode, not a solid's 1.9× (analysis.cpp: kWalledMargin, with the sword and plate it was
  // measured on). Its wall sets its elements at any margin: sized for 2.5× that mode it has the
  // same mesh and modes.
  const std::string bowl = source("meshes/bowl.obj") + " --scale 4.17 --material ceramic --modes 30";
  std::string output;
  const ModalModel sized = modes(bowl, "sized.modal.json", &output);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(output, m, std::regex("coarse pass puts mode 30 near ([0-9]+) Hz: "
                                                      "mesh sized for ([0-9]+) Hz")))
      << output;
  const double coarse_hz = std::stod(m[1]);
  EXPECT_NEAR(std::stod(m[2]) / coarse_hz, 1.5, 0.01) << output;
  const ModalModel finer = modes(bowl + " --resolution band --fmax " + std::to_string(static_cast<int>(2.5 * coarse_hz)),
                                 "finer.modal.json");
  ASSERT_EQ(sized.modes.size(), 30u);
  EXPECT_LT(worst_relative_difference(sized, finer), 1e-6);
}

TEST_F(RealObjects, ThickSolidAtManyModesIsSizedCloserToItsLastMode) {
  // A 0.4 m plastic cube asked for 150 modes: its 150th mode (about 3.6 kHz) has a shear
  // wavelength short beside the body, so the coarse pass sizes the mesh for 1.3× that mode, not
  // 1.9× (analysis.cpp: the thick-solid margin): ~9 000 P2 tets instead of ~21 000 from Weyl's
  // estimate. Refinement study: a mesh sized for 6.3 kHz (1.74× the 150th mode) moves no mode by
  // more than 0.5 % (measured: 0.3 % against one sized for 7.2 kHz; on the 1.5 m statue-like
  // blob at 300 modes, 0.11 % against its 1.75× mesh).
  const std::string cube = path("cube.obj");
  mesh2dsp::test::write_obj(cube, mesh2dsp::test::grid_box(0.4, 0.4, 0.4, 0.04));
  std::string output;
  const ModalModel sized = modes(cube + " --material plastic --modes 150", "sized.modal.json", &output);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(output, m, std::regex("coarse pass puts mode 150 near ([0-9]+) Hz: "
                                                      "mesh sized for ([0-9]+) Hz")))
      << output;
  EXPECT_NEAR(std::stod(m[2]) / std::stod(m[1]), 1.3, 0.01) << output;
  const ModalModel finer = modes(cube + " --material plastic --modes 150 --resolution band --fmax 6300",
                                 "finer.modal.json");
  ASSERT_EQ(sized.modes.size(), 150u);
  EXPECT_GT(count_before(output, "tetrahedra"), 0);
  EXPECT_LT(worst_relative_difference(sized, finer), 0.005);
}
