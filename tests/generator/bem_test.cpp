// The boundary-element radiation solve against exact solutions on a sphere (pulsating: a
// monopole; oscillating rigidly: a dipole; a Y₂₀ velocity pattern), at and away from the
// sphere's interior Dirichlet eigenfrequencies, and against O'Brien's weights on the bundled bar.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <cmath>
#include <complex>
#include <map>

#include "radiation/bem.hpp"

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

TEST(Bem, SphereAgainstExactSolutions) {
  Eigen::MatrixXd V;
  Eigen::MatrixXi F;
  geodesic_sphere(BEM_LEVELS, 0.1, V, F);
  const BemSurface s = bem_surface(V, F);
  fmt::print("geodesic sphere: {} triangles\n", F.rows());
  for (int degree : {0, 1, 2})
    for (double ka : {0.1, 1.0, 5.0, kPi, 2 * kPi}) {
      const double e = worst_error(s, degree, ka, 0.1, {}, true);
      EXPECT_LT(e, degree == 2 ? 0.02 : 0.01) << "degree " << degree << " ka " << ka;
    }
}

}  // namespace
}  // namespace mesh2dsp
