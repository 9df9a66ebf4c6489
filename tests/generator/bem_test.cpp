// The boundary-element radiation solve against exact solutions on a sphere (pulsating: a
// monopole; oscillating rigidly: a dipole; a Y₂₀ velocity pattern), at and away from the
// sphere's interior Dirichlet eigenfrequencies (against O'Brien's weights: radiated_power_test.cpp).
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <cmath>
#include <complex>
#include <fstream>
#include <map>
#include <sstream>
#include <algorithm>

#include "radiation/bem.hpp"
#include "radiation/bem_kernels.hpp"
#include "util/error.hpp"

namespace mesh2dsp {
namespace {

using cd = std::complex<double>;
constexpr double kPi = 3.14159265358979323846;

// A geodesic sphere: each face of an icosahedron split into n² triangles, the vertices projected
// onto the sphere; 20·n² triangles, outward.
void geodesic_sphere(int n, double radius_m, Eigen::MatrixXd& V, Eigen::MatrixXi& F) {
  const double t = (1 + std::sqrt(5.0)) / 2;
  std::vector<Eigen::Vector3d> ico = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                                      {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                                      {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  const std::vector<std::array<int, 3>> faces = {
      {0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9},  {5, 11, 4},
      {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6},  {3, 6, 8},
      {3, 8, 9},  {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  std::vector<Eigen::Vector3d> v;
  std::map<std::array<long long, 3>, int> index;  // shared edge points by rounded position
  auto vertex = [&](const Eigen::Vector3d& p) {
    const Eigen::Vector3d u = p.normalized();
    const std::array<long long, 3> key = {std::llround(u.x() * 1e9), std::llround(u.y() * 1e9),
                                          std::llround(u.z() * 1e9)};
    auto it = index.find(key);
    if (it != index.end()) return it->second;
    v.push_back(u);
    return index[key] = static_cast<int>(v.size()) - 1;
  };
  std::vector<std::array<int, 3>> f;
  for (const auto& [a, b, c] : faces) {
    auto at = [&](int i, int j) {  // i steps along a→b, j along a→c
      return vertex(ico[a] + (ico[b] - ico[a]) * i / double(n) + (ico[c] - ico[a]) * j / double(n));
    };
    for (int i = 0; i < n; ++i)
      for (int j = 0; i + j < n; ++j) {
        f.push_back({at(i, j), at(i + 1, j), at(i, j + 1)});
        if (i + j + 1 < n) f.push_back({at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)});
      }
  }
  V.resize(v.size(), 3);
  for (size_t i = 0; i < v.size(); ++i) V.row(i) = radius_m * v[i].transpose();
  F.resize(f.size(), 3);
  for (size_t i = 0; i < f.size(); ++i) F.row(i) << f[i][0], f[i][1], f[i][2];
}

// The points on each face's edges (rows 3j + e, edge from corner e to e + 1) on the sphere, as a
// quadratic finite-element mesh of it places its boundary edge nodes.
Eigen::MatrixXd sphere_edge_points(const Eigen::MatrixXd& V, const Eigen::MatrixXi& F, double radius_m) {
  Eigen::MatrixXd points(3 * F.rows(), 3);
  for (Eigen::Index j = 0; j < F.rows(); ++j)
    for (int e = 0; e < 3; ++e)
      points.row(3 * j + e) = radius_m * (V.row(F(j, e)) + V.row(F(j, (e + 1) % 3))).normalized();
  return points;
}

struct Case {
  const char* name;
  int degree;  // 0 monopole, 1 dipole, 2 Y20
};

// Relative error of the BEM pressure against p = iωρ·Y(d)·h_n(kr)/(k·h_n'(ka)) at r = 2a and
// 10a in a few directions, for the normal velocity v_n = Y(n) of degree n (Y = 1, z, and the
// Y20 shape (3z² − 1)/2).
double worst_error(const BemSurface& s, int degree, double ka, double radius_m,
                   const BemOptions& options, bool print) {
  const double c = options.speed_of_sound_m_s, rho = options.density_kg_m3;
  const double k = ka / radius_m, frequency_hz = k * c / (2 * kPi);
  auto pattern = [degree](const Eigen::Vector3d& d) {
    return degree == 0 ? 1.0 : degree == 1 ? d.z() : 0.5 * (3 * d.z() * d.z() - 1);
  };
  Eigen::VectorXcd v(s.faces.rows());
  for (Eigen::Index j = 0; j < v.size(); ++j)
    v[j] = pattern(degree == 1 ? Eigen::Vector3d(s.geometry.normals.row(j))
                               : Eigen::Vector3d(s.geometry.centres.row(j).normalized()));
  const BemSolution sol = bem_solve(s, frequency_hz, v, options);
  std::vector<Eigen::Vector3d> dirs = {Eigen::Vector3d(0, 0, 1), Eigen::Vector3d(1, 1, 2).normalized(),
                                       Eigen::Vector3d(0.3, -0.2, -1).normalized()};
  if (degree == 0) dirs.push_back(Eigen::Vector3d(1, 0, 0));
  double worst = 0;
  for (double r_over_a : {2.0, 10.0}) {
    Eigen::MatrixXd points(dirs.size(), 3);
    for (size_t m = 0; m < dirs.size(); ++m) points.row(m) = r_over_a * radius_m * dirs[m].transpose();
    const Eigen::VectorXcd p = bem_field_pressure(s, sol, points);
    for (size_t m = 0; m < dirs.size(); ++m) {
      const cd exact = cd(0, 2 * kPi * frequency_hz * rho) * pattern(dirs[m]) *
                       spherical_hankel1(degree, k * r_over_a * radius_m) /
                       (k * spherical_hankel1_derivative(degree, ka));
      const double error = std::abs(p[m] - exact) / std::abs(exact);
      worst = std::max(worst, error);
      if (print && m == 0)
        fmt::print("  degree {} ka {:5.3f} r {:4.1f}a: |p| bem {:.5g} exact {:.5g} ({:+.3f} %), phase "
                   "bem {:+.4f} exact {:+.4f} rad, error {:.3f} %  [{} GMRES iterations]\n",
                   degree, ka, r_over_a, std::abs(p[m]), std::abs(exact),
                   100 * (std::abs(p[m]) / std::abs(exact) - 1), std::arg(p[m]), std::arg(exact),
                   100 * error, sol.iterations);
    }
  }
  return worst;
}

// The tolerance is the 1 % at every ka, the interior resonances included. Measured worst
// (of the directions and r = 2a, 10a) on 2880 curved triangles (their edge points on the sphere,
// as a quadratic FEM mesh's boundary): 0.04 % at ka = 0.1 and 1, 0.11 % at ka = 5 (the dipole),
// 0.25 % at ka = π and 2π (the monopole at 2π). On the same triangles flat (the inscribed
// polyhedron) it is 1.05 % (the dipole at ka = 0.1), 1.8 % (the dipole at ka = 5) and 2.0 % (Y20,
// ka = 2π), which these bounds catch: the error was the flat facets' geometry, not the
// piecewise-constant pressure: 720 unknowns, each spread over four flat triangles with their
// corners on the sphere, gave the 2880 flat triangles' errors to within 0.07 % (points).
// Without the Burton–Miller term the monopole is 3× off at ka = π and 2.5× at ka = 2π (the
// interior Dirichlet eigenfrequencies).
constexpr double kTolerance = 0.01;

// The geodesic sphere's triangles curved through edge points on the sphere.
BemSurface curved_sphere(int n, double radius_m) {
  Eigen::MatrixXd V;
  Eigen::MatrixXi F;
  geodesic_sphere(n, radius_m, V, F);
  return bem_surface(V, F, sphere_edge_points(V, F, radius_m));
}

const BemSurface& test_sphere() {
  static const BemSurface s = curved_sphere(12, 0.1);
  return s;
}

TEST(Bem, MonopoleDipoleAndY20AgainstExactSolutions) {
  fmt::print("geodesic sphere: {} curved triangles, a = 0.1 m\n", test_sphere().faces.rows());
  for (int degree : {0, 1, 2})
    for (double ka : {0.1, 1.0, 5.0}) {
      const double e = worst_error(test_sphere(), degree, ka, 0.1, {}, true);
      EXPECT_LT(e, kTolerance) << "degree " << degree << " ka " << ka;
    }
}

TEST(Bem, NoSpikeAtInteriorEigenfrequencies) {
  for (int degree : {0, 1, 2})
    for (double ka : {kPi, 2 * kPi}) {
      const double e = worst_error(test_sphere(), degree, ka, 0.1, {}, true);
      EXPECT_LT(e, kTolerance) << "degree " << degree << " ka " << ka;
    }
}

// The check above can fail: the plain Helmholtz integral equation (no hypersingular term) is
// singular at the pulsating sphere's interior Dirichlet eigenfrequencies.
TEST(Bem, WithoutBurtonMillerTheInteriorResonanceShows) {
  BemOptions plain;
  plain.burton_miller = false;
  EXPECT_GT(worst_error(test_sphere(), 0, kPi, 0.1, plain, false), 2 * kTolerance);
  EXPECT_GT(worst_error(test_sphere(), 0, 2 * kPi, 0.1, plain, false), 2 * kTolerance);
}

// The same sphere's triangles flat (no edge points: the inscribed polyhedron) miss the bound on
// the dipole at ka = 5 (measured 1.8 %): the curved elements are what meet it.
TEST(Bem, FlatFacetsMissTheDipoleBound) {
  Eigen::MatrixXd V;
  Eigen::MatrixXi F;
  geodesic_sphere(12, 0.1, V, F);
  EXPECT_GT(worst_error(bem_surface(V, F), 1, 5.0, 0.1, {}, false), 1.5 * kTolerance);
}

TEST(Bem, DirectivityOfADipole) {
  // The far-field pattern of the rigid sphere oscillating along z is F(d) = A·cos θ: all of it
  // in the l = 1, m = 0 coefficient (ACN 2). The expansion is checked against the field
  // pressure at 50a, which the representation formula gives independently.
  const BemSurface& s = test_sphere();
  Eigen::VectorXcd v(s.faces.rows());
  for (Eigen::Index j = 0; j < v.size(); ++j) v[j] = s.geometry.normals(j, 2);
  const double ka = 2, k = ka / 0.1;
  const BemSolution sol = bem_solve(s, k * kSpeedOfSoundMS / (2 * kPi), v);
  const Directivity d = bem_directivity(s, sol, directivity_order(k, 0.1), Eigen::Vector3d::Zero());
  EXPECT_EQ(d.order, 4);
  double others = 0;
  for (Eigen::Index c = 0; c < d.coefficients.size(); ++c)
    if (c != 2) others = std::max(others, std::abs(d.coefficients[c]));
  EXPECT_LT(others, 1e-3 * std::abs(d.coefficients[2]));
  const double r = 50 * 0.1;
  for (const Eigen::Vector3d dir : {Eigen::Vector3d(0, 0, 1), Eigen::Vector3d(1, 0, 1).normalized()}) {
    const cd far = d.evaluate(dir) * std::polar(1.0 / r, k * r);
    const cd near = bem_field_pressure(s, sol, (r * dir).transpose())[0];
    EXPECT_LT(std::abs(far - near), 0.02 * std::abs(near));
  }
}

TEST(Bem, BadInputIsAnError) {
  const BemSurface& s = test_sphere();
  EXPECT_THROW(bem_solve(s, 100, Eigen::VectorXcd::Ones(3)), Error);
  EXPECT_THROW(bem_solve(s, 0, Eigen::VectorXcd::Ones(s.faces.rows())), Error);
  Eigen::MatrixXd V(3, 3);
  V << 0, 0, 0, 1, 0, 0, 2, 0, 0;
  Eigen::MatrixXi F(1, 3);
  F << 0, 1, 2;
  EXPECT_THROW(bem_surface(V, F), Error);
  // Curved triangles: edge points of the wrong count, or one that folds the patch over itself.
  V << 0, 0, 0, 1, 0, 0, 0, 1, 0;
  EXPECT_NO_THROW(bem_surface(V, F));
  EXPECT_THROW(bem_surface(V, F, Eigen::MatrixXd::Zero(2, 3)), Error);
  Eigen::MatrixXd edge_points(3, 3);
  edge_points << 0.5, 0, 0, 0.5, 0.5, 0, 0, 0.5, 0;
  EXPECT_NO_THROW(bem_surface(V, F, edge_points));
  edge_points.row(0) << 0.5, 2, 0;  // edge (0, 1)'s point pulled across the triangle
  EXPECT_THROW(bem_surface(V, F, edge_points), Error);
  // ... unless asked to make such triangles flat (the analysis does).
  const BemSurface straightened = bem_surface(V, F, edge_points, true);
  EXPECT_EQ(straightened.straightened, 1);
  EXPECT_NEAR(straightened.geometry.areas_m2[0], 0.5, 1e-12);
  EXPECT_EQ(bem_surface(V, F, Eigen::MatrixXd(), true).straightened, 0);
}

// The bundled bar's surface (a box with sharp edges, triangles of 10 mm): uniform normal
// velocity at ka ≪ 1 radiates as a point source of the surface's volume velocity Q,
// p = −iωρQ·e^{ikr}/(4πr); rigid translation along z as a dipole, p ∝ cos θ, nothing at θ = 90°.
TEST(Bem, BarSurfaceAtLowFrequency) {
  std::ifstream in(std::string(MESH2DSP_SOURCE_DIR) + "/meshes/bar.obj");
  std::vector<Eigen::Vector3d> v;
  std::vector<Eigen::Vector3i> f;
  for (std::string line; std::getline(in, line);) {
    std::istringstream l(line);
    std::string tag;
    l >> tag;
    if (tag == "v") {
      Eigen::Vector3d p;
      l >> p.x() >> p.y() >> p.z();
      v.push_back(p);
    } else if (tag == "f") {
      Eigen::Vector3i t;
      l >> t.x() >> t.y() >> t.z();
      f.push_back(t.array() - 1);
    }
  }
  ASSERT_EQ(f.size(), 624u);
  Eigen::MatrixXd V(v.size(), 3);
  Eigen::MatrixXi F(f.size(), 3);
  for (size_t i = 0; i < v.size(); ++i) V.row(i) = v[i].transpose();
  for (size_t i = 0; i < f.size(); ++i) F.row(i) = f[i].transpose();
  const BemSurface s = bem_surface(V, F);
  const double frequency_hz = 100, k = 2 * kPi * frequency_hz / kSpeedOfSoundMS, r = 2.0;
  const BemSolution mono = bem_solve(s, frequency_hz, Eigen::VectorXcd::Ones(s.faces.rows()));
  const cd p = bem_field_pressure(s, mono, Eigen::RowVector3d(0, 0, r))[0];
  const cd expected = cd(0, -2 * kPi * frequency_hz * kAirDensityKgM3) * s.geometry.areas_m2.sum() *
                      std::polar(1.0 / (4 * kPi * r), k * r);
  fmt::print("bar, uniform normal velocity at 100 Hz, 2 m: |p| {:.5g} point source {:.5g}\n", std::abs(p),
             std::abs(expected));
  EXPECT_LT(std::abs(p - expected), 0.02 * std::abs(expected));
  Eigen::VectorXcd vz(s.faces.rows());
  for (Eigen::Index j = 0; j < vz.size(); ++j) vz[j] = s.geometry.normals(j, 2);
  const BemSolution dip = bem_solve(s, frequency_hz, vz);
  Eigen::MatrixXd points(2, 3);
  points << 0, 0, r, 0, r, 0;
  const Eigen::VectorXcd pd = bem_field_pressure(s, dip, points);
  fmt::print("bar, rigid z translation at 100 Hz, 2 m: |p| on axis {:.4g}, at 90° {:.3g}, monopole of the "
             "same area {:.4g}\n", std::abs(pd[0]), std::abs(pd[1]), std::abs(expected));
  EXPECT_LT(std::abs(pd[1]), 1e-3 * std::abs(pd[0]));
  EXPECT_LT(std::abs(pd[0]), 0.1 * std::abs(expected));
}

// A smaller curved sphere (320 triangles) for the solver's own checks below, and a velocity
// pattern with no symmetry (so that nothing cancels by accident).
const BemSurface& small_sphere() {
  static const BemSurface s = curved_sphere(4, 0.1);
  return s;
}
Eigen::MatrixXcd small_sphere_velocities(int columns) {
  const BemSurface& s = small_sphere();
  Eigen::MatrixXcd v(s.faces.rows(), columns);
  for (Eigen::Index j = 0; j < v.rows(); ++j) {
    const Eigen::Vector3d d = s.geometry.centres.row(j).normalized();
    for (int c = 0; c < columns; ++c)
      v(j, c) = cd(d.z() + 0.3 * c * d.x() * d.y(), 0.2 * d.x() - c * d.y() * d.y());
  }
  return v;
}
double relative_difference(const Eigen::VectorXcd& a, const Eigen::VectorXcd& b) {
  return (a - b).norm() / b.norm();
}

// The block-Jacobi preconditioner changes the iterations, not the answer: with and without it
// the pressures agree to the GMRES tolerance (1e-6; measured ~1e-7), both against a direct
// (LU) solve of the same matrix. Blocks of 32 on 320 triangles: ten clusters.
TEST(Bem, PreconditionedAndPlainSolvesAgree) {
  const Eigen::MatrixXcd v = small_sphere_velocities(1);
  for (double ka : {0.5, 3.0}) {
    const double frequency_hz = ka / 0.1 * kSpeedOfSoundMS / (2 * kPi);
    BemOptions plain, blocks, direct;
    plain.preconditioner_block = 0;
    blocks.preconditioner_block = 32;
    direct.direct_below = 1000;
    const BemSolution p = bem_solve(small_sphere(), frequency_hz, v, plain);
    const BemSolution b = bem_solve(small_sphere(), frequency_hz, v, blocks);
    const BemSolution d = bem_solve(small_sphere(), frequency_hz, v, direct);
    EXPECT_EQ(d.iterations, 0);
    EXPECT_TRUE(d.factorised);
    EXPECT_FALSE(p.factorised || b.factorised) << "GMRES stagnated at ka " << ka;
    EXPECT_GT(p.iterations, 0);
    EXPECT_NE(p.iterations, b.iterations) << "the preconditioner did nothing at ka " << ka;
    EXPECT_LT(relative_difference(b.pressure_pa, d.pressure_pa), 1e-5) << "ka " << ka;
    EXPECT_LT(relative_difference(p.pressure_pa, d.pressure_pa), 1e-5) << "ka " << ka;
  }
}

// One BemSolver across frequencies and column counts (its matrix reused, not reallocated)
// gives what a fresh solve does; and a frequency's columns iterated together give what each
// column solved alone does.
TEST(Bem, ReusedSolverAndColumnsTogether) {
  const Eigen::MatrixXcd v = small_sphere_velocities(3);
  const double f1_hz = 3.0 / 0.1 * kSpeedOfSoundMS / (2 * kPi), f2_hz = 0.7 / 0.1 * kSpeedOfSoundMS / (2 * kPi);
  BemOptions options;
  options.preconditioner_block = 32;
  BemSolver solver(small_sphere(), options);
  const std::vector<BemSolution> first = solver.solve(f1_hz, v);
  ASSERT_EQ(first.size(), 3u);
  const std::vector<BemSolution> second = solver.solve(f2_hz, v.col(1));
  ASSERT_EQ(second.size(), 1u);
  const BemSolution fresh = bem_solve(small_sphere(), f2_hz, v.col(1), options);
  EXPECT_LT(relative_difference(second[0].pressure_pa, fresh.pressure_pa), 1e-12);
  EXPECT_EQ(second[0].iterations, fresh.iterations);
  EXPECT_FALSE(second[0].factorised);
  for (int c = 0; c < 3; ++c) {
    const BemSolution alone = bem_solve(small_sphere(), f1_hz, v.col(c), options);
    EXPECT_LT(relative_difference(first[c].pressure_pa, alone.pressure_pa), 1e-5) << "column " << c;
    EXPECT_FALSE(first[c].factorised || alone.factorised);
    EXPECT_EQ(first[c].wavenumber_rad_m, alone.wavenumber_rad_m);
  }
  EXPECT_THROW(solver.solve(f1_hz, Eigen::VectorXcd::Ones(5)), Error);
}

// The GMRES product's row kernel (bem_kernels.cpp) against Eigen's complex product, for a few
// vectors at once and a width that is not a multiple of its chunk.
TEST(Bem, RowsTimesVectors) {
  const int rows = 5, n = 1500, columns = 3;
  const Eigen::Matrix<std::complex<float>, -1, -1, Eigen::RowMajor> a =
      Eigen::Matrix<std::complex<float>, -1, -1, Eigen::RowMajor>::Random(rows, n);
  const Eigen::MatrixXcf v = Eigen::MatrixXcf::Random(n, columns);
  std::vector<float> forms(4 * n * columns);
  for (int c = 0; c < columns; ++c)
    for (int j = 0; j < n; ++j) {
      float* re_form = forms.data() + 4 * n * c;
      float* im_form = re_form + 2 * n;
      re_form[2 * j] = v(j, c).real(), re_form[2 * j + 1] = -v(j, c).imag();
      im_form[2 * j] = v(j, c).imag(), im_form[2 * j + 1] = v(j, c).real();
    }
  std::vector<double> out(2 * rows * columns);
  complex_rows_times_vectors(reinterpret_cast<const float*>(a.data()), rows, n, forms.data(), columns, out.data());
  const Eigen::MatrixXcd exact = a.cast<cd>() * v.cast<cd>();
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < columns; ++c) {
      const cd got(out[2 * (r * columns + c)], out[2 * (r * columns + c) + 1]);
      EXPECT_LT(std::abs(got - exact(r, c)), 1e-4 * std::sqrt(double(n))) << r << ", " << c;
    }
}

// The batch kernels' own sine and cosine (bem_kernels.cpp) against the library's, over the
// arguments the solve sees (k·r up to a few thousand radians) and negative ones.
TEST(Bem, VectorisedSincos) {
  std::vector<double> x;
  for (int i = -20000; i <= 200000; ++i) x.push_back(i * 0.0173);  // ±π/4 boundaries crossed often
  x.push_back(3.14159265358979323846 / 4);
  x.push_back(0);
  std::vector<double> s(x.size()), c(x.size());
  sincos_batch(static_cast<int>(x.size()), x.data(), s.data(), c.data());
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i)
    worst = std::max({worst, std::abs(s[i] - std::sin(x[i])), std::abs(c[i] - std::cos(x[i]))});
  EXPECT_LT(worst, 1e-13);
}

}  // namespace
}  // namespace mesh2dsp
