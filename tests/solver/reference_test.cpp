// The reference render against the generator's modal analysis on the same tet mesh, and the
// radiation's physics (O'Brien, Cook & Essl 2001): peaks at the modal frequencies, Rayleigh
// decay, convergence in dt, the centre/off-centre plate strike (Figs. 6–7), distance and
// occlusion.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "fem/boundary.hpp"
#include "fem/fem_mesh.hpp"
#include "modal/damping.hpp"
#include "modal/modal_analysis.hpp"
#include "reference.hpp"
#include "spectrum.hpp"
#include "fem/structured_box.hpp"

using namespace mesh2dsp;
using namespace mesh2dsp::test;

namespace {

std::vector<double> generator_frequencies(const FemMesh& fem, const Material& material,
                                          const std::vector<std::string>& fix, int modes,
                                          Eigen::MatrixXd* shapes = nullptr) {
  ModalAnalysisRequest request;
  request.modes = modes;
  request.fmin_hz = 20;
  request.fmax_hz = 20000;
  for (const auto& f : fix) request.fix.push_back(parse_half_space(f));
  const auto result = analyze_modes(fem, material, request);
  std::vector<double> f;
  for (double lambda : result.eigenvalues) f.push_back(std::sqrt(lambda) / (2 * M_PI));
  if (shapes) *shapes = result.shapes;
  return f;
}

std::vector<bool> clamp(const FemMesh& fem, const std::vector<std::string>& fix) {
  if (fix.empty()) return {};
  std::vector<HalfSpace> h;
  for (const auto& f : fix) h.push_back(parse_half_space(f));
  return clamped_nodes(fem.nodes, h);
}

// Modes with no other mode within `gap` (relative): a peak can be told apart.
bool isolated(const std::vector<double>& f, size_t i, double gap) {
  for (size_t j = 0; j < f.size(); ++j)
    if (j != i && std::abs(f[j] - f[i]) < gap * f[i]) return false;
  return true;
}

struct Match {
  double expected_hz, measured_hz, height;
};

// The generator's modes that show as a peak in the spectrum (within ±1.5 %, above −60 dB of
// the strongest), with where the peak is.
std::vector<Match> match_peaks(const Spectrum& s, const std::vector<double>& modes, double below_hz) {
  std::vector<Match> out;
  const double floor = 1e-3 * s.max_all();
  for (size_t i = 0; i < modes.size(); ++i) {
    if (modes[i] > below_hz || !isolated(modes, i, 0.03)) continue;
    double h = 0;
    const double p = s.peak_in(0.985 * modes[i], 1.015 * modes[i], &h);
    if (p > 0 && h > floor) out.push_back({modes[i], p, h});
  }
  return out;
}

Material damped_steel() {
  Material m = find_material_preset("steel");
  m.rayleigh_mass_per_s = 20;
  m.rayleigh_stiffness_s = 5e-8;
  return m;
}

ReferenceSettings bar_settings(const TetMesh& bar) {
  ReferenceSettings s;
  s.duration_s = 0.3;
  s.show_progress = false;
  s.force = parse_force("impulse", 1e-3);
  // Oblique, so bending in both planes, torsion and stretching are all excited.
  s.strike = parse_strike("auto", "1,0.7,-1", bar, {});
  s.listeners_m = {Eigen::Vector3d(0.45, 0.3, 0.25)};
  return s;
}

}  // namespace

TEST(FreeBar, PeaksSitAtTheGeneratorFrequenciesAndDecayAtTheRayleighT60) {
  const TetMesh bar = structured_box({0, 0, 0}, {0.30, 0.03, 0.02}, 10, 3, 2);
  const FemMesh fem = make_fem_mesh(bar, 1);
  const Material steel = damped_steel();
  const auto modes = generator_frequencies(fem, steel, {}, 16);
  const ReferenceSettings settings = bar_settings(bar);
  const auto r = render_reference(bar, fem, steel, {}, settings);
  ASSERT_EQ(r.channels.size(), 1u);
  const Spectrum s = spectrum(r.channels[0], settings.sample_rate_hz);
  // The automatic step holds Newmark's period error to 0.5 % up to f_max/2 = 10 kHz.
  const auto matches = match_peaks(s, modes, 0.5 * r.cutoff_hz);
  ASSERT_GE(matches.size(), 5u) << "too few modes show as peaks";
  for (const auto& m : matches) {
    const double error = (m.measured_hz - m.expected_hz) / m.expected_hz;
    std::printf("bar mode %8.1f Hz: peak at %8.1f Hz, error %+.4f %%\n", m.expected_hz,
                m.measured_hz, 100 * error);
    EXPECT_LT(std::abs(error), 0.005) << "mode at " << m.expected_hz << " Hz";
  }
  // Decay of each strong mode against ξ = ½(α/ω + βω), T60 = ln(1000)/(ξω) (Hiner 2024, §2.2).
  int measured = 0;
  const double strongest = std::max_element(matches.begin(), matches.end(), [](auto& a, auto& b) {
                             return a.height < b.height;
                           })->height;
  for (const auto& m : matches) {
    if (m.height < 0.03 * strongest) continue;  // strong modes only
    bool clear = true;  // neighbours further than the frame's main lobe
    for (double f : modes)
      if (f != m.expected_hz && std::abs(f - m.expected_hz) < 200) clear = false;
    if (!clear) continue;
    const double omega = 2 * M_PI * m.expected_hz;
    const double t60 = t60_seconds(
        rayleigh_damping_ratio(steel.rayleigh_mass_per_s, steel.rayleigh_stiffness_s, omega), omega);
    const size_t frame = 2048, hop = 256, start = 480;
    const auto env = envelope_at(r.channels[0], settings.sample_rate_hz, m.measured_hz, start, frame, hop);
    std::vector<double> t, db;
    for (size_t i = 0; i < env.size(); ++i) {
      if (env[i] < 1e-3 * env[0]) break;  // the first 60 dB at most
      t.push_back((start + i * hop) / settings.sample_rate_hz);
      db.push_back(20 * std::log10(env[i]));
    }
    ASSERT_GE(t.size(), 8u);
    const double measured_t60 = -60 / slope(t, db);
    std::printf("bar mode %8.1f Hz: T60 %.4f s, Rayleigh %.4f s, error %+.2f %%\n", m.expected_hz,
                measured_t60, t60, 100 * (measured_t60 / t60 - 1));
    EXPECT_NEAR(measured_t60 / t60, 1.0, 0.10) << "mode at " << m.expected_hz << " Hz";
    ++measured;
  }
  EXPECT_GE(measured, 3);
}

TEST(FreeBar, HalvingTheTimeStepMovesThePeaksByLessThanATenthOfAPercent) {
  // A bar twice as long (linear elements are stiff): its bending modes come down so that
  // several lie in the range checked.
  const TetMesh bar = structured_box({0, 0, 0}, {0.60, 0.03, 0.02}, 20, 3, 2);
  const FemMesh fem = make_fem_mesh(bar, 1);
  const Material steel = damped_steel();
  const auto modes = generator_frequencies(fem, steel, {}, 16);
  ReferenceSettings settings = bar_settings(bar);
  settings.duration_s = 0.15;
  const auto coarse = render_reference(bar, fem, steel, {}, settings);
  settings.dt_s = 0.5 * coarse.dt_s;
  const auto fine = render_reference(bar, fem, steel, {}, settings);
  const Spectrum a = spectrum(coarse.channels[0], settings.sample_rate_hz);
  const Spectrum b = spectrum(fine.channels[0], settings.sample_rate_hz);
  // Newmark's period error is (ωΔt)²/12: at the default Δt = 1/288 000 s a halving moves a
  // peak by 0.1 % at 5.8 kHz. The bar's modes up to 5.5 kHz are checked.
  const auto matches = match_peaks(a, modes, 5500);
  ASSERT_GE(matches.size(), 3u);
  for (const auto& m : matches) {
    const double f2 = b.peak_in(0.99 * m.measured_hz, 1.01 * m.measured_hz);
    const double shift = (f2 - m.measured_hz) / m.measured_hz;
    std::printf("bar mode %8.1f Hz: dt %.3g s -> %8.2f Hz, dt/2 -> %8.2f Hz, shift %+.4f %%\n",
                m.expected_hz, coarse.dt_s, m.measured_hz, f2, 100 * shift);
    EXPECT_LT(std::abs(shift), 0.001) << "mode at " << m.expected_hz << " Hz";
  }
}

namespace {

// 0.4 × 0.4 × 0.01 m: linear elements lock in bending, and a smaller plate would put most
// of its modes above f_max/2.
const std::vector<std::string> kPlateFix = {"x<=0", "x>=0.4", "y<=0", "y>=0.4"};

ReferenceSettings plate_settings(const TetMesh& plate, const std::vector<bool>& clamped_vertices,
                                 const std::string& strike) {
  ReferenceSettings s;
  s.duration_s = 0.2;
  s.show_progress = false;
  s.force = parse_force("impulse", 1e-3);
  s.strike = parse_strike(strike, "", plate, clamped_vertices);
  // Off the plate's symmetry axes, or antisymmetric modes would cancel at the listener.
  s.listeners_m = {Eigen::Vector3d(0.54, 0.38, 0.4)};
  return s;
}

}  // namespace

TEST(ClampedPlate, PeaksAtTheGeneratorFrequenciesAndACentreStrikeSilencesNodalModes) {
  const TetMesh plate = structured_box({0, 0, 0}, {0.4, 0.4, 0.01}, 10, 10, 2);
  const FemMesh fem = make_fem_mesh(plate, 1);
  const Material steel = find_material_preset("steel");
  Eigen::MatrixXd shapes;
  const auto modes = generator_frequencies(fem, steel, kPlateFix, 12, &shapes);
  const auto clamped = clamp(fem, kPlateFix);
  std::vector<bool> clamped_vertices(clamped.begin(), clamped.begin() + plate.vertices.rows());

  const auto centre = render_reference(plate, fem, steel, clamped,
                                       plate_settings(plate, clamped_vertices, "point:0.2,0.2,0.01"));
  // The paper's off-centre strike: 25 % of the width off horizontally, 17 % vertically (§4).
  const auto off = render_reference(plate, fem, steel, clamped,
                                    plate_settings(plate, clamped_vertices, "point:0.3,0.268,0.01"));
  const Spectrum sc = spectrum(centre.channels[0], 48000), so = spectrum(off.channels[0], 48000);

  const auto matches = match_peaks(so, modes, 0.5 * off.cutoff_hz);
  ASSERT_GE(matches.size(), 4u);
  for (const auto& m : matches) {
    const double error = (m.measured_hz - m.expected_hz) / m.expected_hz;
    std::printf("plate mode %8.1f Hz: peak at %8.1f Hz, error %+.4f %%\n", m.expected_hz,
                m.measured_hz, 100 * error);
    EXPECT_LT(std::abs(error), 0.005) << "mode at " << m.expected_hz << " Hz";
  }

  // Modes with a nodal line through the centre: the centre node's normal displacement is 0.
  const int centre_node = 5 + 11 * (5 + 11 * 2);
  ASSERT_NEAR((plate.vertices.row(centre_node) - Eigen::RowVector3d(0.2, 0.2, 0.01)).norm(), 0, 1e-12);
  // Both spectra measured relative to their fundamental (excited by both strikes).
  const double ref_c = sc.max_in(0.995 * modes[0], 1.005 * modes[0]);
  const double ref_o = so.max_in(0.995 * modes[0], 1.005 * modes[0]);
  int silent = 0;
  for (size_t n = 0; n < modes.size(); ++n) {
    double top = 0, top_any = 0;
    for (int v = 0; v < plate.vertices.rows(); ++v)
      if (plate.vertices(v, 2) > 0.0099) {
        top = std::max(top, std::abs(shapes(3 * v + 2, n)));
        top_any = std::max(top_any, shapes.block<3, 1>(3 * v, n).norm());
      }
    const double at_centre = std::abs(shapes(3 * centre_node + 2, n)) / top;
    const bool bending = top > 0.5 * top_any;  // not an in-plane mode
    const double c = sc.max_in(0.995 * modes[n], 1.005 * modes[n]) / ref_c;
    const double o = so.max_in(0.995 * modes[n], 1.005 * modes[n]) / ref_o;
    std::printf("plate mode %2zu %8.1f Hz: |phi(centre)|/max %.2e, centre strike %7.1f dB, "
                "off-centre %7.1f dB%s\n", n, modes[n], at_centre, 20 * std::log10(c), 20 * std::log10(o),
                bending ? "" : " (in-plane)");
    if (at_centre > 1e-6 || !bending) continue;
    // Keep clear of non-silent neighbours whose peak skirts would be measured instead.
    bool clear = true;
    for (size_t j = 0; j < modes.size(); ++j)
      if (j != n && std::abs(modes[j] - modes[n]) < 0.02 * modes[n]) {
        double tj = 0;
        for (int v = 0; v < plate.vertices.rows(); ++v)
          if (plate.vertices(v, 2) > 0.0099) tj = std::max(tj, std::abs(shapes(3 * v + 2, j)));
        if (std::abs(shapes(3 * centre_node + 2, j)) / tj > 1e-6) clear = false;
      }
    if (!clear) continue;
    ++silent;
    EXPECT_GT(o / c, 10.0) << "mode " << n << " at " << modes[n] << " Hz: the off-centre strike should "
                           << "excite it at least 20 dB more than the centre strike";
    EXPECT_GT(so.peak_in(0.99 * modes[n], 1.01 * modes[n]), 0) << "no peak off-centre at mode " << n;
  }
  EXPECT_GE(silent, 2) << "the plate should have modes with a nodal line through the centre";
}

TEST(ClampedPlate, TwiceTheDistanceDelaysByROverCAndHalvesTheAmplitude) {
  const TetMesh plate = structured_box({0, 0, 0}, {0.4, 0.4, 0.01}, 10, 10, 2);
  const FemMesh fem = make_fem_mesh(plate, 1);
  const Material steel = find_material_preset("steel");
  const auto clamped = clamp(fem, kPlateFix);
  std::vector<bool> clamped_vertices(clamped.begin(), clamped.begin() + plate.vertices.rows());
  ReferenceSettings s = plate_settings(plate, clamped_vertices, "point:0.3,0.268,0.01");
  const double r = 1.0;
  s.duration_s = 0.03;
  s.listeners_m = {Eigen::Vector3d(0.2, 0.2, 0.01 + r), Eigen::Vector3d(0.2, 0.2, 0.01 + 2 * r)};
  const auto result = render_reference(plate, fem, steel, clamped, s);
  auto onset = [](const std::vector<float>& x) {
    double peak = 0;
    for (float v : x) peak = std::max(peak, static_cast<double>(std::abs(v)));
    for (size_t i = 0; i < x.size(); ++i)
      if (std::abs(x[i]) > 0.01 * peak) return static_cast<double>(i);
    return -1.0;
  };
  auto rms = [](const std::vector<float>& x, size_t from) {
    double sum = 0;
    for (size_t i = from; i < x.size(); ++i) sum += double(x[i]) * x[i];
    return std::sqrt(sum / (x.size() - from));
  };
  const double delay_samples = onset(result.channels[1]) - onset(result.channels[0]);
  const double expected = r / kSpeedOfSoundMS * s.sample_rate_hz;
  std::printf("onset delay %.1f samples, r/c = %.2f samples\n", delay_samples, expected);
  EXPECT_NEAR(delay_samples, expected, 1.0);
  // Amplitude over the same stretch of sound (after both onsets).
  const size_t from = static_cast<size_t>(onset(result.channels[1]));
  const size_t shift = static_cast<size_t>(std::lround(expected));
  std::vector<float> near(result.channels[0].begin() + from - shift, result.channels[0].end() - shift);
  std::vector<float> far(result.channels[1].begin() + from, result.channels[1].end());
  const double ratio = rms(far, 0) / rms(near, 0);
  std::printf("amplitude ratio at 2r: %.4f\n", ratio);
  EXPECT_NEAR(ratio, 0.5, 0.025);
}

TEST(Radiation, AnOccludedListenerReceivesLessThanOneInFront) {
  // A clamped plate above a large clamped block; one listener above the plate, one below the
  // block: the plate's underside is hidden from the second by the block.
  const TetMesh plate = structured_box({0, 0, 0}, {0.2, 0.2, 0.01}, 6, 6, 1);
  const TetMesh block = structured_box({-0.1, -0.1, -0.08}, {0.4, 0.4, 0.05}, 3, 3, 1);
  Eigen::MatrixXd vertices(plate.vertices.rows() + block.vertices.rows(), 3);
  vertices << plate.vertices, block.vertices;
  Eigen::MatrixXi tets(plate.tets.rows() + block.tets.rows(), 4);
  tets << plate.tets, block.tets.array() + static_cast<int>(plate.vertices.rows());
  const TetMesh scene = tet_mesh_from_elements(vertices, tets);
  const FemMesh fem = make_fem_mesh(scene, 1);
  const std::vector<std::string> fix = {"x<=0", "x>=0.2", "y<=0", "y>=0.2", "z<=-0.01"};
  const auto clamped = clamp(fem, fix);
  std::vector<bool> clamped_vertices(clamped.begin(), clamped.begin() + scene.vertices.rows());
  ReferenceSettings s;
  s.duration_s = 0.02;
  s.show_progress = false;
  s.force = parse_force("impulse", 1e-3);
  s.strike = parse_strike("point:0.13,0.12,0.01", "", scene, clamped_vertices);
  s.listeners_m = {Eigen::Vector3d(0.13, 0.12, 0.6), Eigen::Vector3d(0.13, 0.12, -0.6)};
  const Material steel = find_material_preset("steel");
  auto rms = [](const std::vector<float>& x) {
    double sum = 0;
    for (float v : x) sum += double(v) * v;
    return std::sqrt(sum / x.size());
  };
  const auto seen = render_reference(scene, fem, steel, clamped, s);
  std::printf("front %.3e, behind %.3e\n", rms(seen.channels[0]), rms(seen.channels[1]));
  EXPECT_LT(rms(seen.channels[1]), 0.01 * rms(seen.channels[0]));
  // Without the visibility term the plate's underside would be heard below almost as loudly.
  s.visibility = false;
  const auto unseen = render_reference(scene, fem, steel, clamped, s);
  EXPECT_GT(rms(unseen.channels[1]), 0.5 * rms(unseen.channels[0]));
}

TEST(NonLinear, SmallDeformationsMatchLinearLargeOnesDoNot) {
  const TetMesh bar = structured_box({0, 0, 0}, {0.30, 0.03, 0.02}, 6, 2, 2);
  const FemMesh fem = make_fem_mesh(bar, 1);
  const Material steel = find_material_preset("steel");
  ReferenceSettings s;
  s.duration_s = 0.002;
  s.show_progress = false;
  s.force = parse_force("cosine:0.0002", 1.0);
  s.strike = parse_strike("auto", "", bar, {});
  s.listeners_m = {default_listener(bar)};
  auto run = [&](bool nonlinear, double amplitude) {
    ReferenceSettings t = s;
    t.nonlinear = nonlinear;
    t.force.amplitude = amplitude;
    auto r = render_reference(bar, fem, steel, {}, t);
    std::vector<double> x(r.channels[0].begin(), r.channels[0].end());
    for (double& v : x) v /= amplitude;
    return x;
  };
  auto difference = [](const std::vector<double>& a, const std::vector<double>& b) {
    double num = 0, den = 0;
    for (size_t i = 0; i < a.size(); ++i) num += (a[i] - b[i]) * (a[i] - b[i]), den += a[i] * a[i];
    return std::sqrt(num / den);
  };
  const auto linear = run(false, 1.0);
  EXPECT_LT(difference(linear, run(true, 1.0)), 1e-3);  // 1 N on a steel bar: linear regime
  EXPECT_GT(difference(linear, run(true, 1e5)), 1e-2);  // 100 kN: large deformation
}

TEST(LinearSolvers, ConjugateGradientsRenderWhatTheFactorizationRenders) {
  const TetMesh bar = structured_box({0, 0, 0}, {0.30, 0.03, 0.02}, 6, 2, 2);
  const FemMesh fem = make_fem_mesh(bar, 1);
  const Material steel = find_material_preset("steel");
  ReferenceSettings s;
  s.duration_s = 0.01;
  s.show_progress = false;
  s.force = parse_force("cosine:0.0001", 1.0);
  s.strike = parse_strike("auto", "", bar, {});
  s.listeners_m = {default_listener(bar)};
  // Against the double factor: the float one (the default) differs by ~7e-5 at this fine step.
  s.single_precision = false;
  const auto direct = render_reference(bar, fem, steel, {}, s);
  s.solver = LinearSolverKind::conjugate_gradient;
  const auto cg = render_reference(bar, fem, steel, {}, s);
  double num = 0, den = 0;
  for (size_t i = 0; i < direct.channels[0].size(); ++i) {
    const double d = direct.channels[0][i] - cg.channels[0][i];
    num += d * d;
    den += double(direct.channels[0][i]) * direct.channels[0][i];
  }
  std::printf("CG: %.1f iterations per step, relative difference %.2e\n", cg.mean_cg_iterations,
              std::sqrt(num / den));
  EXPECT_LT(std::sqrt(num / den), 1e-5);
}
