#include "fem/elements.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>

#include <cmath>
#include <vector>

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

// K_(a,i),(b,j) = ∫ λ ∂ᵢNₐ ∂ⱼN_b + μ ∂ⱼNₐ ∂ᵢN_b + μ δᵢⱼ ∇Nₐ·∇N_b over a quadrature rule. Every term
// is an entry of H = Σ_q w_q G_q G_qᵀ (G_q: the 3·Nodes gradient components at point q), formed
// as one matrix product at the end: added point by point and node pair by node pair in 3 × 3
// blocks, the curved P2 elements of a thin-walled bell took ~6 % of its whole analysis.
template <int Nodes, int Points>
class IsotropicStiffness {
 public:
  void add(const Eigen::Matrix<double, Nodes, 3>& g, double weight) {
    for (int a = 0; a < Nodes; ++a) gradients_.template block<1, 3>(points_, 3 * a) = g.row(a);
    weights_[points_++] = weight;
  }
  void finish(double lambda, double mu, Eigen::Matrix<double, 3 * Nodes, 3 * Nodes>& k) const {
    const auto g = gradients_.topRows(points_);
    const Eigen::Matrix<double, 3 * Nodes, 3 * Nodes> h =
        (g.array().colwise() * weights_.head(points_).array()).matrix().transpose() * g;
    for (int a = 0; a < Nodes; ++a)
      for (int b = 0; b < Nodes; ++b) {
        const double dot = h(3 * a, 3 * b) + h(3 * a + 1, 3 * b + 1) + h(3 * a + 2, 3 * b + 2);
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            k(3 * a + i, 3 * b + j) =
                lambda * h(3 * a + i, 3 * b + j) + mu * h(3 * b + i, 3 * a + j) + (i == j ? mu * dot : 0.0);
      }
  }

 private:
  Eigen::Matrix<double, Points, 3 * Nodes> gradients_;
  Eigen::Matrix<double, Points, 1> weights_;
  int points_ = 0;
};

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
  IsotropicStiffness<4, 1> k;
  k.add(grad, volume);
  k.finish(lambda, mu, stiffness);
  Eigen::Matrix4d scalar = Eigen::Matrix4d::Constant(1.0);
  scalar.diagonal().setConstant(2.0);
  expand_scalar_mass<4>(scalar * (density * volume / 20.0), mass);
}

void p2_element_matrices(const TetCorners& x, double lambda, double mu, double density,
                         Eigen::Matrix<double, 30, 30>& stiffness,
                         Eigen::Matrix<double, 30, 30>& mass) {
  Eigen::Matrix<double, 4, 3> gL;
  const double volume = barycentric_gradients(x, gL);
  IsotropicStiffness<10, 4> k;
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
    k.add(g, volume / 4.0);
  }
  k.finish(lambda, mu, stiffness);
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

namespace {

// Keast's 14-point rule of degree 5 on the tetrahedron (P. Keast, "Moderate-degree tetrahedral
// quadrature formulas", 1986): barycentric points and weights summing to 1 (× the volume).
constexpr int kKeastPoints = 14;
struct QuadraturePoint {
  double L[4];
  double weight;
};
std::vector<QuadraturePoint> keast14() {
  std::vector<QuadraturePoint> rule;
  const double a1 = 0.0927352503108912, w1 = 0.0734930431163619;
  const double a2 = 0.3108859192633006, w2 = 0.1126879257180162;
  const double b = 0.4544962958743504, c = 0.0455037041256496, w3 = 0.0425460207770812;
  for (const auto [a, w] : {std::pair{a1, w1}, std::pair{a2, w2}})
    for (int k = 0; k < 4; ++k) {
      QuadraturePoint q{{a, a, a, a}, w};
      q.L[k] = 1 - 3 * a;
      rule.push_back(q);
    }
  for (int e = 0; e < 6; ++e) {
    QuadraturePoint q{{c, c, c, c}, w3};
    q.L[kTetEdges[e][0]] = b;
    q.L[kTetEdges[e][1]] = b;
    rule.push_back(q);
  }
  return rule;
}
const std::vector<QuadraturePoint>& quadrature() {
  static const std::vector<QuadraturePoint> rule = keast14();
  return rule;
}

// Shape functions and their derivatives in the reference coordinates ξ = (L1, L2, L3) (L0 =
// 1 − ξ₁ − ξ₂ − ξ₃) at barycentric point L.
void p2_shape(const double* L, Eigen::Matrix<double, 10, 1>& n, Eigen::Matrix<double, 10, 3>& dn) {
  Eigen::Matrix<double, 10, 4> dL;  // ∂N/∂L_k, the L_k taken as independent
  dL.setZero();
  for (int a = 0; a < 4; ++a) {
    n[a] = L[a] * (2 * L[a] - 1);
    dL(a, a) = 4 * L[a] - 1;
  }
  for (int e = 0; e < 6; ++e) {
    const int i = kTetEdges[e][0], j = kTetEdges[e][1];
    n[4 + e] = 4 * L[i] * L[j];
    dL(4 + e, i) = 4 * L[j];
    dL(4 + e, j) = 4 * L[i];
  }
  for (int k = 0; k < 3; ++k) dn.col(k) = dL.col(k + 1) - dL.col(0);
}

bool edge_nodes_at_midpoints(const P2Nodes& x) {
  const double scale = (x.topRows<4>().colwise().maxCoeff() - x.topRows<4>().colwise().minCoeff()).norm();
  for (int e = 0; e < 6; ++e)
    if ((x.row(4 + e) - 0.5 * (x.row(kTetEdges[e][0]) + x.row(kTetEdges[e][1]))).norm() > 1e-12 * scale)
      return false;
  return true;
}

}  // namespace

void p2_element_matrices(const P2Nodes& x, double lambda, double mu, double density,
                         Eigen::Matrix<double, 30, 30>& stiffness,
                         Eigen::Matrix<double, 30, 30>& mass) {
  if (edge_nodes_at_midpoints(x)) {
    p2_element_matrices(TetCorners(x.topRows<4>()), lambda, mu, density, stiffness, mass);
    return;
  }
  IsotropicStiffness<10, kKeastPoints> k;
  Eigen::Matrix<double, 10, 10> scalar_mass = Eigen::Matrix<double, 10, 10>::Zero();
  Eigen::Matrix<double, 10, 1> n;
  Eigen::Matrix<double, 10, 3> dn;
  for (const auto& q : quadrature()) {
    p2_shape(q.L, n, dn);
    const Eigen::Matrix3d J = x.transpose() * dn;  // ∂x/∂ξ
    const double det = J.determinant();
    const double weight = q.weight * det / 6.0;   // the reference tetrahedron's volume is 1/6
    const Eigen::Matrix<double, 10, 3> g = dn * J.inverse();  // rows: ∇N_a
    k.add(g, weight);
    scalar_mass += (density * weight) * n * n.transpose();
  }
  k.finish(lambda, mu, stiffness);
  expand_scalar_mass<10>(scalar_mass, mass);
}

double p2_min_jacobian_ratio(const P2Nodes& x) {
  Eigen::Matrix<double, 4, 3> gL;
  const double straight = 6 * barycentric_gradients(TetCorners(x.topRows<4>()), gL);
  double worst = INFINITY;
  Eigen::Matrix<double, 10, 1> n;
  Eigen::Matrix<double, 10, 3> dn;
  auto check = [&](const double* L) {
    p2_shape(L, n, dn);
    worst = std::min(worst, (x.transpose() * dn).determinant() / straight);
  };
  for (int a = 0; a < 4; ++a) {
    double L[4] = {0, 0, 0, 0};
    L[a] = 1;
    check(L);
  }
  for (const auto& q : quadrature()) check(q.L);
  return worst;
}

namespace {

// Gauss–Jacobi points and weights on [0, 1] for the weight (1 − u)^alpha, by Golub and Welsch's
// eigenvalue method ("Calculation of Gauss quadrature rules", 1969) on the monic Jacobi
// recurrence for the weight (1 − t)^alpha on [−1, 1] (beta = 0), then u = (1 + t)/2.
void gauss_jacobi(int n, double alpha, std::vector<double>& u, std::vector<double>& w) {
  Eigen::MatrixXd jacobi = Eigen::MatrixXd::Zero(n, n);
  for (int k = 0; k < n; ++k) {
    const double s = 2 * k + alpha;
    // −alpha²/(s(s + 2)), whose k = 0 limit is −alpha/(alpha + 2) (also for alpha = 0).
    jacobi(k, k) = k == 0 ? -alpha / (alpha + 2) : -alpha * alpha / (s * (s + 2));
    if (k + 1 < n) {
      const double m = k + 1, t = 2 * m + alpha;
      jacobi(k, k + 1) = jacobi(k + 1, k) =
          std::sqrt(4 * m * m * (m + alpha) * (m + alpha) / (t * t * (t + 1) * (t - 1)));
    }
  }
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(jacobi);
  u.resize(n);
  w.resize(n);
  for (int k = 0; k < n; ++k) {
    u[k] = 0.5 * (1 + eig.eigenvalues()[k]);
    // The weights sum to ∫₀¹ (1 − u)^alpha du = 1/(alpha + 1).
    w[k] = eig.eigenvectors()(0, k) * eig.eigenvectors()(0, k) / (alpha + 1);
  }
}

// Stroud's conical product rule ("Approximate calculation of multiple integrals", 1971): the
// collapsed map ξ = (u, v(1 − u), w(1 − u)(1 − v)) of the unit cube, whose Jacobian (1 − u)²(1 − v)
// is taken into Gauss–Jacobi weights; n points an axis are exact to degree 2n − 1.
std::vector<QuadraturePoint> conical_product(int n) {
  std::vector<double> u, wu, v, wv, s, ws;
  gauss_jacobi(n, 2, u, wu);
  gauss_jacobi(n, 1, v, wv);
  gauss_jacobi(n, 0, s, ws);
  std::vector<QuadraturePoint> rule;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        const double x1 = u[i], x2 = v[j] * (1 - u[i]), x3 = s[k] * (1 - u[i]) * (1 - v[j]);
        rule.push_back({{1 - x1 - x2 - x3, x1, x2, x3}, 6 * wu[i] * wv[j] * ws[k]});
      }
  return rule;
}

const std::vector<QuadraturePoint>& degree7_rule() {
  static const std::vector<QuadraturePoint> rule = conical_product(4);
  return rule;
}

// The face of the tetrahedron opposite corner k, as its three corners.
constexpr int kFaceCorners[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};

}  // namespace

void p3_shape(const double* L, Eigen::Matrix<double, 20, 1>& n, Eigen::Matrix<double, 20, 3>& dn) {
  Eigen::Matrix<double, 20, 4> dL;  // ∂N/∂L_k, the L_k taken as independent
  dL.setZero();
  for (int a = 0; a < 4; ++a) {
    const double l = L[a];
    n[a] = 0.5 * l * (3 * l - 1) * (3 * l - 2);
    dL(a, a) = 0.5 * (27 * l * l - 18 * l + 2);
  }
  for (int e = 0; e < 6; ++e)
    for (int side = 0; side < 2; ++side) {
      // The node a third of the way from corner i toward corner j: 9/2 LᵢLⱼ(3Lᵢ − 1).
      const int i = kTetEdges[e][side], j = kTetEdges[e][1 - side], node = 4 + 2 * e + side;
      n[node] = 4.5 * L[i] * L[j] * (3 * L[i] - 1);
      dL(node, i) = 4.5 * L[j] * (6 * L[i] - 1);
      dL(node, j) = 4.5 * L[i] * (3 * L[i] - 1);
    }
  for (int k = 0; k < 4; ++k) {
    const int p = kFaceCorners[k][0], q = kFaceCorners[k][1], r = kFaceCorners[k][2];
    n[16 + k] = 27 * L[p] * L[q] * L[r];
    dL(16 + k, p) = 27 * L[q] * L[r];
    dL(16 + k, q) = 27 * L[p] * L[r];
    dL(16 + k, r) = 27 * L[p] * L[q];
  }
  for (int k = 0; k < 3; ++k) dn.col(k) = dL.col(k + 1) - dL.col(0);
}

void p3_element_matrices(const P3Nodes& x, double lambda, double mu, double density,
                         Eigen::Matrix<double, 60, 60>& stiffness,
                         Eigen::Matrix<double, 60, 60>& mass) {
  Eigen::Matrix<double, 20, 1> n;
  Eigen::Matrix<double, 20, 3> dn;
  IsotropicStiffness<20, kKeastPoints> k;
  for (const auto& q : quadrature()) {
    p3_shape(q.L, n, dn);
    const Eigen::Matrix3d J = x.transpose() * dn;
    k.add(dn * J.inverse(), q.weight * J.determinant() / 6.0);
  }
  k.finish(lambda, mu, stiffness);
  // The mass needs more points than the stiffness: one point adds a rank-one term to it, and
  // 14 of them would leave the 20 × 20 scalar mass singular.
  Eigen::Matrix<double, 20, 20> scalar_mass = Eigen::Matrix<double, 20, 20>::Zero();
  for (const auto& q : degree7_rule()) {
    p3_shape(q.L, n, dn);
    const double weight = q.weight * (x.transpose() * dn).determinant() / 6.0;
    scalar_mass.noalias() += (density * weight) * n * n.transpose();
  }
  expand_scalar_mass<20>(scalar_mass, mass);
}

}  // namespace mesh2dsp
