#include "validate/analytic_references.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <vector>

#include "util/error.hpp"
#include "util/gauss_legendre.hpp"

namespace mesh2dsp::validate {
namespace {

// Eigenfrequencies (Hz) of K x = ω² M x, ascending, the first `skip` (rigid) dropped.
std::vector<double> dense_frequencies_hz(const Eigen::MatrixXd& k, const Eigen::MatrixXd& m, int skip, int count) {
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> solver(k, m, Eigen::EigenvaluesOnly);
  if (solver.info() != Eigen::Success) throw Error("analytic reference: the dense eigen solve failed");
  std::vector<double> hz;
  const Eigen::VectorXd& lambda = solver.eigenvalues();
  for (int i = skip; i < lambda.size() && static_cast<int>(hz.size()) < count; ++i)
    hz.push_back(std::sqrt(std::max(lambda[i], 0.0)) / (2 * M_PI));
  return hz;
}

// Timoshenko beam by n two-node elements: deflection and rotation linear, shear strain at the
// element midpoint (reduced integration, free of shear locking), consistent mass with rotary
// inertia. Its frequencies converge as h²; see Richardson below.
std::vector<double> timoshenko_fe_hz(int n, double length_m, double area_m2, double inertia_m4,
                                     const Material& mat, int count) {
  const double e = mat.youngs_modulus_pa, g = lame_mu(mat), rho = mat.density_kg_m3, nu = mat.poisson_ratio;
  const double kappa = 10 * (1 + nu) / (12 + 11 * nu);  // Cowper (1966), rectangular section
  const double l = length_m / n;
  const int dofs = 2 * (n + 1);  // (w, θ) per node
  Eigen::MatrixXd k = Eigen::MatrixXd::Zero(dofs, dofs), m = Eigen::MatrixXd::Zero(dofs, dofs);
  Eigen::Vector4d b_shear(-1 / l, -0.5, 1 / l, -0.5);  // γ = w' − θ at the midpoint
  Eigen::Matrix4d ke = kappa * g * area_m2 * l * b_shear * b_shear.transpose();
  ke(1, 1) += e * inertia_m4 / l;
  ke(3, 3) += e * inertia_m4 / l;
  ke(1, 3) -= e * inertia_m4 / l;
  ke(3, 1) -= e * inertia_m4 / l;
  Eigen::Matrix4d me = Eigen::Matrix4d::Zero();
  for (int f = 0; f < 2; ++f) {  // f = 0: w with ρA, f = 1: θ with ρI
    const double c = rho * (f == 0 ? area_m2 : inertia_m4) * l / 6;
    me(f, f) = me(2 + f, 2 + f) = 2 * c;
    me(f, 2 + f) = me(2 + f, f) = c;
  }
  for (int el = 0; el < n; ++el) {
    k.block<4, 4>(2 * el, 2 * el) += ke;
    m.block<4, 4>(2 * el, 2 * el) += me;
  }
  return dense_frequencies_hz(k, m, 2, count);  // rigid translation and rotation
}

// Legendre P_0..P_p and their first derivatives at z (|z| < 1).
void legendre(int p, double z, Eigen::VectorXd& value, Eigen::VectorXd& slope) {
  value.resize(p + 1);
  slope.resize(p + 1);
  value[0] = 1;
  slope[0] = 0;
  if (p >= 1) {
    value[1] = z;
    slope[1] = 1;
  }
  for (int k = 2; k <= p; ++k) {
    value[k] = ((2 * k - 1) * z * value[k - 1] - (k - 1) * value[k - 2]) / k;
    slope[k] = slope[k - 2] + (2 * k - 1) * value[k - 1];
  }
}

}  // namespace

std::vector<double> timoshenko_free_free_hz(double length_m, double width_m, double height_m,
                                            const Material& material, int count) {
  const double area = width_m * height_m, inertia = width_m * height_m * height_m * height_m / 12;
  // Richardson extrapolation of the h² error from n and 2n elements: (4 f_2n − f_n) / 3.
  const int n = 128;
  const std::vector<double> coarse = timoshenko_fe_hz(n, length_m, area, inertia, material, count);
  const std::vector<double> fine = timoshenko_fe_hz(2 * n, length_m, area, inertia, material, count);
  std::vector<double> hz;
  for (size_t i = 0; i < std::min(coarse.size(), fine.size()); ++i) hz.push_back((4 * fine[i] - coarse[i]) / 3);
  return hz;
}

std::vector<double> longitudinal_free_free_hz(double length_m, double width_m, double height_m,
                                              const Material& material, int count) {
  // Rayleigh–Love rod: ω² = c² k² / (1 + ν² k² r²), c = √(E/ρ), k = nπ/L, r² the section's polar
  // radius of gyration squared ((w² + h²)/12) (Graff, "Wave Motion in Elastic Solids", 1975, §8.1).
  const double c = std::sqrt(material.youngs_modulus_pa / material.density_kg_m3);
  const double r2 = (width_m * width_m + height_m * height_m) / 12, nu = material.poisson_ratio;
  std::vector<double> hz;
  for (int n = 1; n <= count; ++n) {
    const double k = n * M_PI / length_m;
    hz.push_back(c * k / std::sqrt(1 + nu * nu * k * k * r2) / (2 * M_PI));
  }
  return hz;
}

std::vector<double> mindlin_free_plate_hz(double a_m, double b_m, double h_m, const Material& material,
                                          int count) {
  // Rayleigh–Ritz on the Mindlin plate energies (Mindlin, "Influence of rotatory inertia and shear
  // on flexural motions of isotropic, elastic plates", 1951): w, ψx, ψy each a tensor Legendre
  // series of degree p in ξ = 2x/a − 1, η = 2y/b − 1 — complete polynomials, so the free edges
  // need no constraint and the three rigid modes come out at ω = 0. Every energy integral is a
  // Kronecker product of 1-D integrals of P_i P_k, P_i' P_k and P_i' P_k'.
  const int p = 18, n1 = p + 1, n = n1 * n1, q = p + 2;
  const double e = material.youngs_modulus_pa, nu = material.poisson_ratio, rho = material.density_kg_m3;
  const double d = e * h_m * h_m * h_m / (12 * (1 - nu * nu)), kgh = 5.0 / 6.0 * lame_mu(material) * h_m;
  std::vector<double> gx, gw;
  Eigen::VectorXd value, slope;
  gauss_legendre(q, gx, gw);
  Eigen::MatrixXd s00 = Eigen::MatrixXd::Zero(n1, n1), s10 = s00, s11 = s00;  // ∫PP, ∫P'P, ∫P'P' on [-1, 1]
  for (int g = 0; g < q; ++g) {
    legendre(p, gx[g], value, slope);
    s00 += gw[g] * value * value.transpose();
    s10 += gw[g] * slope * value.transpose();
    s11 += gw[g] * slope * slope.transpose();
  }
  auto kron = [&](const Eigen::MatrixXd& x, const Eigen::MatrixXd& y) {
    Eigen::MatrixXd out(n, n);
    for (int i = 0; i < n1; ++i)
      for (int k = 0; k < n1; ++k) out.block(i * n1, k * n1, n1, n1) = x(i, k) * y;
    return out;
  };
  const double cx = 2 / a_m, cy = 2 / b_m, jac = a_m * b_m / 4;
  const Eigen::MatrixXd ff = jac * kron(s00, s00);                      // ∫ φ φᵀ
  const Eigen::MatrixXd xx = jac * cx * cx * kron(s11, s00);            // ∫ φ,x φ,xᵀ
  const Eigen::MatrixXd yy = jac * cy * cy * kron(s00, s11);            // ∫ φ,y φ,yᵀ
  const Eigen::MatrixXd xy = jac * cx * cy * kron(s10, s10.transpose());  // ∫ φ,x φ,yᵀ
  const Eigen::MatrixXd xf = jac * cx * kron(s10, s00);                 // ∫ φ,x φᵀ
  const Eigen::MatrixXd yf = jac * cy * kron(s00, s10);                 // ∫ φ,y φᵀ
  // Unknowns [w | ψx | ψy]; bending D[ψx,x² + ψy,y² + 2ν ψx,x ψy,y + (1−ν)/2 (ψx,y + ψy,x)²],
  // shear κGh[(w,x + ψx)² + (w,y + ψy)²], kinetic ρh w² + ρh³/12 (ψx² + ψy²).
  const double g_b = d * (1 - nu) / 2;
  Eigen::MatrixXd k(3 * n, 3 * n), m = Eigen::MatrixXd::Zero(3 * n, 3 * n);
  k.block(0, 0, n, n) = kgh * (xx + yy);
  k.block(0, n, n, n) = kgh * xf;
  k.block(0, 2 * n, n, n) = kgh * yf;
  k.block(n, n, n, n) = d * xx + g_b * yy + kgh * ff;
  k.block(2 * n, 2 * n, n, n) = d * yy + g_b * xx + kgh * ff;
  k.block(n, 2 * n, n, n) = d * nu * xy + g_b * xy.transpose();
  k.block(n, 0, n, n) = k.block(0, n, n, n).transpose();
  k.block(2 * n, 0, n, n) = k.block(0, 2 * n, n, n).transpose();
  k.block(2 * n, n, n, n) = k.block(n, 2 * n, n, n).transpose();
  m.block(0, 0, n, n) = rho * h_m * ff;
  m.block(n, n, n, n) = m.block(2 * n, 2 * n, n, n) = rho * h_m * h_m * h_m / 12 * ff;
  // The plate's two mirror symmetries split the problem in four (P_i has the parity of i): w of
  // parity (sx, sy) couples only to ψx of (1 − sx, sy) and ψy of (sx, 1 − sy).
  std::vector<double> hz;
  for (int sx = 0; sx < 2; ++sx)
    for (int sy = 0; sy < 2; ++sy) {
      std::vector<int> index;
      for (int field = 0; field < 3; ++field)
        for (int i = 0; i < n1; ++i)
          for (int j = 0; j < n1; ++j)
            if (i % 2 == (field == 1 ? 1 - sx : sx) && j % 2 == (field == 2 ? 1 - sy : sy))
              index.push_back(field * n + i * n1 + j);
      const int size = static_cast<int>(index.size());
      Eigen::MatrixXd ks(size, size), ms(size, size);
      for (int r = 0; r < size; ++r)
        for (int c = 0; c < size; ++c) {
          ks(r, c) = k(index[r], index[c]);
          ms(r, c) = m(index[r], index[c]);
        }
      const std::vector<double> part = dense_frequencies_hz(ks, ms, 0, count + 3);
      hz.insert(hz.end(), part.begin(), part.end());
    }
  std::sort(hz.begin(), hz.end());
  hz.erase(hz.begin(), hz.begin() + 3);  // the rigid translation and two rotations (ω = 0)
  if (static_cast<int>(hz.size()) > count) hz.resize(count);
  return hz;
}

BoxShape classify_box(double ex_m, double ey_m, double ez_m) {
  BoxShape box;
  double e[3] = {ex_m, ey_m, ez_m};
  std::sort(e, e + 3);
  std::copy(e, e + 3, box.extent_m);
  if (e[2] >= 4 * e[1]) box.kind = "bar";
  else if (e[0] <= e[1] / 10) box.kind = "plate";
  return box;
}

std::vector<AnalyticMode> analytic_modes(const BoxShape& box, const Material& material, double fmax_hz) {
  std::vector<AnalyticMode> modes;
  auto add = [&](const std::vector<double>& hz, const std::string& label) {
    for (size_t i = 0; i < hz.size(); ++i)
      if (hz[i] <= fmax_hz) modes.push_back({hz[i], label + " " + std::to_string(i + 1)});
  };
  const double* e = box.extent_m;
  if (box.kind == "bar") {
    // Bending in the plane of the thinnest side, then of the middle one; the longitudinal modes.
    add(timoshenko_free_free_hz(e[2], e[1], e[0], material, 12), "bending (thin side)");
    add(timoshenko_free_free_hz(e[2], e[0], e[1], material, 12), "bending (wide side)");
    add(longitudinal_free_free_hz(e[2], e[0], e[1], material, 6), "longitudinal");
  } else if (box.kind == "plate") {
    add(mindlin_free_plate_hz(e[2], e[1], e[0], material, 40), "plate bending");
  } else {
    throw Error("analytic reference: only bars and thin plates have one");
  }
  std::sort(modes.begin(), modes.end(), [](const auto& x, const auto& y) { return x.frequency_hz < y.frequency_hz; });
  return modes;
}

}  // namespace mesh2dsp::validate
