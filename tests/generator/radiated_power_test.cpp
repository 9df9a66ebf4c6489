// Each mode's radiated power by the boundary-element solve against O'Brien's weights, on the
// bundled bar (small against the wavelength: the acoustic short circuit) and the bundled plate
// (large against it at its high modes: the two close). Radiated power, ∫|p·r|² dΩ over a far
// sphere (r = 50 m: 12 Gauss–Legendre rings in cos θ × 24 azimuths, the same listeners for both
// models), weighs every direction instead of one listener's. O'Brien's gains are eq. 10's
// quantity (O'Brien, Cook & Essl 2001); times k/2π they are the Rayleigh integral's pressure of
// a baffled surface, the BEM's pressure per unit modal velocity.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis/analysis.hpp"
#include "radiation/radiation.hpp"
#include "util/gauss_legendre.hpp"

namespace mesh2dsp {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct PowerComparison {
  std::vector<double> frequency_hz, ka, db;  // per mode; db = BEM − O'Brien
  ModalModel bem;
};

// Analyses `o` with both radiation models on the far sphere of listeners and compares each
// mode's radiated power; `radius_m` (the object's half diagonal) gives the ka column.
PowerComparison compare_radiated_power(AnalysisOptions o, double radius_m, const std::string& name) {
  constexpr int kRings = 12, kAzimuths = 24;
  constexpr double kListenerDistance = 50;
  std::vector<double> z, w;
  gauss_legendre(kRings, z, w);
  std::vector<double> weights;
  o.listeners.clear();
  for (int a = 0; a < kRings; ++a)
    for (int b = 0; b < kAzimuths; ++b) {
      const double phi = 2 * kPi * (b + 0.5) / kAzimuths, rho = std::sqrt(1 - z[a] * z[a]);
      o.listeners.push_back(fmt::format("{},{},{}", kListenerDistance * rho * std::cos(phi),
                                        kListenerDistance * rho * std::sin(phi), kListenerDistance * z[a]));
      weights.push_back(w[a] * 2 * kPi / kAzimuths);
    }
  o.radiation = "obrien";
  const ModalModel obrien = analyze_mesh(o);
  o.radiation = "bem";
  PowerComparison out;
  out.bem = analyze_mesh(o);
  EXPECT_EQ(obrien.modes.size(), out.bem.modes.size());
  EXPECT_EQ(out.bem.listeners.size(), weights.size());
  fmt::print("{}, radiated power per unit modal velocity (∫|p r|² dΩ at {} m), BEM against O'Brien·k/2π:\n"
             "  mode     Hz     ka     BEM        O'Brien    BEM − O'Brien dB\n",
             name, kListenerDistance);
  for (size_t n = 0; n < out.bem.modes.size() && n < obrien.modes.size(); ++n) {
    const double f = out.bem.modes[n].frequency_hz, k = 2 * kPi * f / kSpeedOfSoundMS;
    double power_bem = 0, power_obrien = 0;
    for (size_t l = 0; l < weights.size(); ++l) {
      power_bem += weights[l] * std::norm(out.bem.listeners[l].pressure[n] * kListenerDistance);
      power_obrien += weights[l] * std::pow(obrien.listeners[l].gains[n] * k / (2 * kPi) * kListenerDistance, 2);
    }
    const double db = 10 * std::log10(std::max(power_bem, 1e-300) / std::max(power_obrien, 1e-300));
    out.frequency_hz.push_back(f);
    out.ka.push_back(k * radius_m);
    out.db.push_back(db);
    fmt::print("  {:2d} {:8.1f} {:6.2f} {:10.4g} {:10.4g} {:+7.1f}\n", n, f, k * radius_m, power_bem, power_obrien, db);
  }
  return out;
}

// O'Brien's weights carry no acoustic short circuit: a free bar's bending modes push air from
// one face to the other around a 2-3 cm section, far below the wavelength, so the true field
// falls below what the faces radiated separately give.
TEST(RadiatedPower, BarBelowOBrienWeightsOnItsFirstBendingMode) {
  AnalysisOptions o;
  o.input = std::string(MESH2DSP_SOURCE_DIR) + "/meshes/bar.obj";
  o.modes = 8;
  o.excite = "auto:2";
  const PowerComparison bar = compare_radiated_power(o, 0.5 * std::sqrt(0.30 * 0.30 + 0.03 * 0.03 + 0.02 * 0.02), "bar");
  const std::vector<double>& db = bar.db;
  // Measured (the table in the README): the first bending mode (1135 Hz, across the 20 mm
  // thickness: k·20 mm = 0.42) radiates 4.6 dB less power than O'Brien's weights say, the second
  // (1672 Hz, across the 30 mm width) 1.2 dB less; from 3 kHz up (the section no longer small
  // against the wavelength) the BEM is 2.2-5.0 dB above them (their cos θ obliquity and no
  // diffraction round the bar). Not "far below": O'Brien's visibility already keeps each
  // direction from hearing the face that would cancel, so what is missing is the flow round the
  // section, a few dB at k·thickness ≈ 0.4. The bounds: the short circuit shows on the first
  // mode, and it is the low modes' alone.
  ASSERT_FALSE(db.empty());
  EXPECT_LT(db[0], -3) << "no acoustic short circuit on the first bending mode";
  for (size_t n = 0; n < db.size(); ++n)
    if (bar.frequency_hz[n] > 2500) {
      EXPECT_LT(std::abs(db[n]), 6) << "mode " << n;
      EXPECT_GT(db[n] - db[0], 5) << "mode " << n;
    }
  EXPECT_EQ(bar.bem.analysis.radiation, "bem");
  EXPECT_GE(bar.bem.modes[0].directivity_order, 2);
}

// A plate large against the wavelength at its high modes: there the two models should be
// close. The bundled plate (0.2 × 0.2 m, 5 mm steel, its own 1760 triangles), 20 modes to 6 kHz.
// Measured: the two lowest modes (408 and 596 Hz, ka 1.1 and 1.5, the plate's twist and saddle)
// 15.2 and 12.4 dB below O'Brien's weights (the short circuit round the plate's edges); from
// ka = 8 up (above 3 kHz, above the plate's coincidence frequency near 2.45 kHz, where its
// bending waves are faster than sound and radiate as beams) the BEM 3.7-6.3 dB above them,
// falling with frequency: the beams leave at sin θ = k_bending/k, 50° from the normal at 4 kHz,
// where O'Brien's cos θ obliquity takes 4 dB off. A 6.5 k-triangle remesh of the plate
// (30 modes to 8.7 kHz) gives the same within 0.6 dB, and +2.5 to +3.3 dB at 6-8.7 kHz.
// Between (ka 2-6, the subsonic modes, which radiate from the edges and corners) the two
// differ by up to 12 dB either way and are not bounded here.
TEST(RadiatedPower, PlateCloseToOBrienWeightsOnItsHighModes) {
  AnalysisOptions o;
  o.input = std::string(MESH2DSP_SOURCE_DIR) + "/meshes/plate.obj";
  o.modes = 20;
  o.keep_surface = true;
  const PowerComparison plate = compare_radiated_power(o, 0.5 * std::sqrt(0.2 * 0.2 + 0.2 * 0.2), "plate");
  const std::vector<double>& db = plate.db;
  ASSERT_GE(db.size(), 20u);
  EXPECT_LT(db[0], -10) << "no acoustic short circuit on the plate's first mode";
  EXPECT_LT(db[1], -10) << "no acoustic short circuit on the plate's second mode";
  int high = 0;
  for (size_t n = 0; n < db.size(); ++n)
    if (plate.ka[n] > 8) {
      ++high;
      EXPECT_GT(db[n], 0) << "mode " << n;
      EXPECT_LT(db[n], 8) << "mode " << n;
    }
  EXPECT_GE(high, 8);
}

}  // namespace
}  // namespace mesh2dsp
