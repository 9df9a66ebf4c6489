// The continuum references of `validate --analytic` against published values: the Timoshenko
// bar table of the benchmark bar and Leissa's free square plate.
#include <gtest/gtest.h>

#include <cmath>

#include "fem/material.hpp"
#include "validate/analytic_references.hpp"

using namespace mesh2dsp;
using namespace mesh2dsp::validate;

TEST(AnalyticReferences, TimoshenkoBarMatchesTheBenchmarkTable) {
  // The benchmark table: the 0.30 x 0.03 x 0.02 m steel bar, free-free, Timoshenko with
  // kappa = 10(1+nu)/(12+11nu); "z" bends across the 0.02 m side, "y" across the 0.03 m side.
  const Material steel = find_material_preset("steel");
  const double z_hz[4] = {1135.0, 3043.2, 5747.1, 9083.4}, y_hz[4] = {1671.0, 4350.4, 7943.4, 12133.3};
  const std::vector<double> z = timoshenko_free_free_hz(0.30, 0.03, 0.02, steel, 4);
  const std::vector<double> y = timoshenko_free_free_hz(0.30, 0.02, 0.03, steel, 4);
  ASSERT_EQ(z.size(), 4u);
  ASSERT_EQ(y.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    // Within 3e-5: the table's last digit (y4 differs by 0.2 Hz, 1.7e-5, at every mesh density).
    EXPECT_NEAR(z[i] / z_hz[i], 1.0, 3e-5) << "z" << i + 1 << ": " << z[i];
    EXPECT_NEAR(y[i] / y_hz[i], 1.0, 3e-5) << "y" << i + 1 << ": " << y[i];
  }
}

TEST(AnalyticReferences, SlenderBarTendsToEulerBernoulliAndTheRodToCOver2L) {
  // L/h = 1000: shear and rotary inertia vanish, f_n = (beta_n L)^2/(2 pi L^2) sqrt(EI/(rho A)) with
  // beta_1 L = 4.730041 (free-free), and the Rayleigh-Love correction of the rod goes to 0.
  const Material steel = find_material_preset("steel");
  const double length = 1.0, side = 1e-3;
  const std::vector<double> f = timoshenko_free_free_hz(length, side, side, steel, 1);
  const double ei_over_rho_a = steel.youngs_modulus_pa * side * side / 12 / steel.density_kg_m3;
  const double euler = 4.730041 * 4.730041 / (2 * M_PI * length * length) * std::sqrt(ei_over_rho_a);
  EXPECT_NEAR(f[0] / euler, 1.0, 1e-5);
  const std::vector<double> rod = longitudinal_free_free_hz(length, side, side, steel, 2);
  const double c = std::sqrt(steel.youngs_modulus_pa / steel.density_kg_m3);
  EXPECT_NEAR(rod[0] / (c / (2 * length)), 1.0, 1e-6);
  EXPECT_NEAR(rod[1] / (c / length), 1.0, 1e-6);
}

TEST(AnalyticReferences, ThinFreeSquarePlateMatchesLeissa) {
  // Leissa, "Vibration of Plates" (NASA SP-160, 1969), completely free square plate, nu = 0.3:
  // omega a^2 sqrt(rho h / D) = 13.468, 19.596, 24.270, 34.801 (twice), 61.093 (twice).
  Material m = find_material_preset("steel");
  m.poisson_ratio = 0.3;
  const double a = 0.2, h = 2e-4;  // a/h = 1000: the thin-plate limit of Mindlin's theory
  const double d = m.youngs_modulus_pa * h * h * h / (12 * (1 - 0.09));
  const std::vector<double> f = mindlin_free_plate_hz(a, a, h, m, 7);
  ASSERT_EQ(f.size(), 7u);
  const double leissa[7] = {13.468, 19.596, 24.270, 34.801, 34.801, 61.093, 61.093};
  for (int i = 0; i < 7; ++i) {
    const double lambda = 2 * M_PI * f[i] * a * a * std::sqrt(m.density_kg_m3 * h / d);
    EXPECT_NEAR(lambda / leissa[i], 1.0, 2e-4) << "mode " << i + 1 << ": " << lambda;
  }
  // A thick plate (a/h = 10) sits below the thin one: shear and rotary inertia soften it.
  const std::vector<double> thick = mindlin_free_plate_hz(a, a, a / 10, m, 1);
  const double d_thick = m.youngs_modulus_pa * std::pow(a / 10, 3) / (12 * (1 - 0.09));
  EXPECT_LT(2 * M_PI * thick[0] * a * a * std::sqrt(m.density_kg_m3 * (a / 10) / d_thick), 13.468 * 0.995);
}

TEST(AnalyticReferences, BoxesAreClassifiedByTheirSides) {
  EXPECT_EQ(classify_box(0.3, 0.03, 0.02).kind, "bar");
  EXPECT_EQ(classify_box(0.2, 0.005, 0.2).kind, "plate");
  EXPECT_EQ(classify_box(0.1, 0.1, 0.1).kind, "");
  const BoxShape b = classify_box(0.02, 0.3, 0.03);
  EXPECT_DOUBLE_EQ(b.extent_m[0], 0.02);
  EXPECT_DOUBLE_EQ(b.extent_m[2], 0.3);
}
