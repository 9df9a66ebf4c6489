#include "fem/elements.hpp"

#include <Eigen/LU>

#include "fem/fem_mesh.hpp"

namespace mesh2dsp {

double barycentric_gradients(const TetCorners& x, Eigen::Matrix<double, 4, 3>& grad) {
  Eigen::Matrix3d J;
  J.col(0) = (x.row(1) - x.row(0)).transpose();
  J.col(1) = (x.row(2) - x.row(0)).transpose();
  J.col(2) = (x.row(3) - x.row(0)).transpose();
  const double det = J.determinant();
  const Eigen::Matrix3d Jinv = J.inverse();  // rows: ∇L1, ∇L2, ∇L3
  grad.row(1) = Jinv.row(0);
  grad.row(2) = Jinv.row(1);
  grad.row(3) = Jinv.row(2);
  grad.row(0) = -(Jinv.row(0) + Jinv.row(1) + Jinv.row(2));
  return det / 6.0;
}

namespace {

// K_(a,i),(b,j) = ∫ λ ∂ᵢNₐ ∂ⱼN_b + μ ∂ⱼNₐ ∂ᵢN_b + μ δᵢⱼ ∇Nₐ·∇N_b, added at one quadrature point.
template <int Nodes>
void add_isotropic_stiffness(const Eigen::Matrix<double, Nodes, 3>& g, double weight,
                             double lambda, double mu,
                             Eigen::Matrix<double, 3 * Nodes, 3 * Nodes>& k) {
  for (int a = 0; a < Nodes; ++a)
    for (int b = 0; b < Nodes; ++b) {
      const Eigen::Vector3d ga = g.row(a).transpose(), gb = g.row(b).transpose();
      Eigen::Matrix3d block = lambda * ga * gb.transpose() + mu * gb * ga.transpose();
      block.diagonal().array() += mu * ga.dot(gb);
      k.template block<3, 3>(3 * a, 3 * b) += weight * block;
    }
}

template <int Nodes>
void expand_scalar_mass(const Eigen::Matrix<double, Nodes, Nodes>& scalar,
                        Eigen::Matrix<double, 3 * Nodes, 3 * Nodes>& mass) {
  mass.setZero();
  for (int a = 0; a < Nodes; ++a)
    for (int b = 0; b < Nodes; ++b)
      for (int i = 0; i < 3; ++i) mass(3 * a + i, 3 * b + i) = scalar(a, b);
}

}  // namespace

void p1_element_matrices(const TetCorners& x, double lambda, double mu, double density,
                         Eigen::Matrix<double, 12, 12>& stiffness,
                         Eigen::Matrix<double, 12, 12>& mass) {
  Eigen::Matrix<double, 4, 3> grad;
  const double volume = barycentric_gradients(x, grad);
  stiffness.setZero();
  add_isotropic_stiffness<4>(grad, volume, lambda, mu, stiffness);
  Eigen::Matrix4d scalar = Eigen::Matrix4d::Constant(1.0);
  scalar.diagonal().setConstant(2.0);
  expand_scalar_mass<4>(scalar * (density * volume / 20.0), mass);
}

void p2_element_matrices(const TetCorners& x, double lambda, double mu, double density,
                         Eigen::Matrix<double, 30, 30>& stiffness,
                         Eigen::Matrix<double, 30, 30>& mass) {
  Eigen::Matrix<double, 4, 3> gL;
  const double volume = barycentric_gradients(x, gL);
  stiffness.setZero();
  // 4-point rule, exact for quadratics (the integrand ∇N·∇N of P2 is quadratic).
  constexpr double qa = 0.5854101966249685, qb = 0.1381966011250105;
  for (int q = 0; q < 4; ++q) {
    double L[4] = {qb, qb, qb, qb};
    L[q] = qa;
    Eigen::Matrix<double, 10, 3> g;
    // Corner nodes: N = L(2L − 1) → ∇N = (4L − 1)∇L. Edge nodes: N = 4LᵢLⱼ.
    for (int a = 0; a < 4; ++a) g.row(a) = (4 * L[a] - 1) * gL.row(a);
    for (int e = 0; e < 6; ++e) {
      const int i = kTetEdges[e][0], j = kTetEdges[e][1];
      g.row(4 + e) = 4 * (L[j] * gL.row(i) + L[i] * gL.row(j));
    }
    add_isotropic_stiffness<10>(g, volume / 4.0, lambda, mu, stiffness);
  }
  // Exact ∫NₐN_b for straight-sided P2 (from ∫L^a L^b L^c L^d = a!b!c!d!·3!·V/(a+b+c+d+3)!):
  // corner–corner 6 (same) / 1; corner–edge −4 (edge touches the corner) / −6; edge–edge 32
  // (same) / 16 (sharing a corner) / 8 (opposite); all × ρV/420.
  Eigen::Matrix<double, 10, 10> s;
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) s(a, b) = a == b ? 6 : 1;
  for (int a = 0; a < 4; ++a)
    for (int e = 0; e < 6; ++e) {
      const bool touches = kTetEdges[e][0] == a || kTetEdges[e][1] == a;
      s(a, 4 + e) = s(4 + e, a) = touches ? -4 : -6;
    }
  for (int e = 0; e < 6; ++e)
    for (int f = 0; f < 6; ++f) {
      const int shared = (kTetEdges[e][0] == kTetEdges[f][0]) + (kTetEdges[e][0] == kTetEdges[f][1]) +
                         (kTetEdges[e][1] == kTetEdges[f][0]) + (kTetEdges[e][1] == kTetEdges[f][1]);
      s(4 + e, 4 + f) = e == f ? 32 : (shared == 1 ? 16 : 8);
    }
  expand_scalar_mass<10>(s * (density * volume / 420.0), mass);
}

}  // namespace mesh2dsp
