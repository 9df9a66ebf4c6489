#include "stvk.hpp"

#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "fem/elements.hpp"

namespace mesh2dsp {
namespace {

// Gradients (rows, 10 × 3) of the P2 shape functions at barycentric point l, node order of
// FemMesh: corners N = λ(2λ − 1), edges N = 4λᵢλⱼ.
void p2_gradients(const Eigen::Vector4d& l, const Eigen::Matrix<double, 4, 3>& g,
                  Eigen::Matrix<double, 10, 3>& out) {
  for (int a = 0; a < 4; ++a) out.row(a) = (4 * l[a] - 1) * g.row(a);
  for (int e = 0; e < 6; ++e) {
    const int i = kTetEdges[e][0], j = kTetEdges[e][1];
    out.row(4 + e) = 4 * (l[j] * g.row(i) + l[i] * g.row(j));
  }
}

template <int Nodes>
void element_force(const Eigen::Matrix<double, Nodes, 3>& grad, const Eigen::Matrix<double, Nodes, 3>& ue,
                   double lambda, double mu, double weight, Eigen::Matrix<double, Nodes, 3>& fe) {
  const Eigen::Matrix3d F = Eigen::Matrix3d::Identity() + ue.transpose() * grad;  // ∂x/∂X
  const Eigen::Matrix3d E = 0.5 * (F.transpose() * F - Eigen::Matrix3d::Identity());  // Green
  const Eigen::Matrix3d S = lambda * E.trace() * Eigen::Matrix3d::Identity() + 2 * mu * E;
  const Eigen::Matrix3d P = F * S;  // first Piola–Kirchhoff stress
  fe += weight * grad * P.transpose();  // f_a = ∫ P ∇N_a
}

}  // namespace

Eigen::VectorXd stvk_internal_force(const FemMesh& mesh, const Material& material,
                                    const Eigen::VectorXd& u) {
  const double lambda = lame_lambda(material), mu = lame_mu(material);
  const int nodes = static_cast<int>(mesh.nodes.rows());
  const int count = static_cast<int>(mesh.elements.rows());
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  std::vector<Eigen::VectorXd> partial(threads, Eigen::VectorXd::Zero(3 * nodes));
#pragma omp parallel
  {
    int id = 0;
#ifdef _OPENMP
    id = omp_get_thread_num();
#endif
    Eigen::VectorXd& f = partial[id];
    TetCorners x;
    Eigen::Matrix<double, 4, 3> g;
#pragma omp for schedule(static)
    for (int t = 0; t < count; ++t) {
      for (int c = 0; c < 4; ++c) x.row(c) = mesh.nodes.row(mesh.elements(t, c));
      const double volume = barycentric_gradients(x, g);
      if (mesh.order == 1) {
        Eigen::Matrix<double, 4, 3> ue, fe = Eigen::Matrix<double, 4, 3>::Zero();
        for (int a = 0; a < 4; ++a) ue.row(a) = u.segment<3>(3 * mesh.elements(t, a));
        element_force<4>(g, ue, lambda, mu, volume, fe);
        for (int a = 0; a < 4; ++a) f.segment<3>(3 * mesh.elements(t, a)) += fe.row(a).transpose();
      } else {
        Eigen::Matrix<double, 10, 3> ue, fe = Eigen::Matrix<double, 10, 3>::Zero(), grad;
        for (int a = 0; a < 10; ++a) ue.row(a) = u.segment<3>(3 * mesh.elements(t, a));
        constexpr double qa = 0.5854101966249685, qb = 0.1381966011250105;
        for (int q = 0; q < 4; ++q) {
          Eigen::Vector4d l = Eigen::Vector4d::Constant(qb);
          l[q] = qa;
          p2_gradients(l, g, grad);
          element_force<10>(grad, ue, lambda, mu, volume / 4, fe);
        }
        for (int a = 0; a < 10; ++a) f.segment<3>(3 * mesh.elements(t, a)) += fe.row(a).transpose();
      }
    }
  }
  for (int i = 1; i < threads; ++i) partial[0] += partial[i];
  return partial[0];
}

}  // namespace mesh2dsp
