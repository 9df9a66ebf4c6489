#include "modal/eigen_solve.hpp"

#include <fmt/format.h>

#include <Eigen/CholmodSupport>
#include <Spectra/MatOp/SparseSymMatProd.h>
#include <Spectra/SymGEigsShiftSolver.h>
#include <algorithm>
#include <chrono>
#include <numeric>

#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {
namespace {

// Spectra's shift-invert operator y = (K − σM)⁻¹ x, on CHOLMOD's supernodal Cholesky instead of
// the SparseLU that Spectra's SymShiftInvert (and Mesh2Faust) use: K − σM is symmetric
// positive definite for σ < 0, and a Cholesky factor is several times cheaper in time and fill.
class CholmodShiftInvert {
 public:
  using Scalar = double;
  CholmodShiftInvert(const SparseMatrix& k, const SparseMatrix& m, Progress& progress)
      : k_(k), m_(m), progress_(progress) {
    // Try AMD and METIS and keep the ordering with less fill: METIS saves 15-30 % of the
    // factorization work on P2 tet meshes, and more as they grow.
    auto& common = solver_.cholmod();
    common.nmethods = 2;
    common.method[0].ordering = CHOLMOD_AMD;
    common.method[1].ordering = CHOLMOD_METIS;
  }
  Eigen::Index rows() const { return k_.rows(); }
  Eigen::Index cols() const { return k_.cols(); }

  void set_shift(double sigma) {
    if (factored_ && sigma == sigma_) return;
    SparseMatrix shifted = k_ - sigma * m_;
    solver_.compute(shifted);
    if (solver_.info() != Eigen::Success)
      throw Error(
          "the stiffness matrix could not be factorized (K − σM is not positive definite): the "
          "mesh or material is broken, or the model needs more memory than is available");
    sigma_ = sigma;
    factored_ = true;
    ++factorizations;
  }

  void perform_op(const double* x_in, double* y_out) const {
    Eigen::Map<const Eigen::VectorXd> x(x_in, rows());
    Eigen::Map<Eigen::VectorXd> y(y_out, rows());
    const auto t0 = std::chrono::steady_clock::now();
    y = solver_.solve(x);
    solve_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++operations;
    progress_.update(std::min(0.99, operations / expected_operations), fmt::format("{} Lanczos steps", operations));
  }

  mutable int operations = 0;
  mutable double solve_s = 0;
  int factorizations = 0;
  double expected_operations = 100;

 private:
  const SparseMatrix& k_;
  const SparseMatrix& m_;
  Progress& progress_;
  Eigen::CholmodSupernodalLLT<SparseMatrix, Eigen::Lower> solver_;
  double sigma_ = 0;
  bool factored_ = false;
};

}  // namespace

EigenSolution solve_lowest_modes(const SparseMatrix& k, const SparseMatrix& m,
                                 const EigenSolveOptions& options) {
  const int n = static_cast<int>(k.rows());
  if (n == 0 || k.rows() != m.rows()) throw Error("empty or inconsistent FEM system");
  if (options.shift >= 0) throw Error("internal: the eigen shift must be negative");
  const int nev = std::min(options.count, n - 1);
  if (nev < 1) throw Error("the model has too few degrees of freedom for the modes requested");
  const int ncv = std::min(n, std::max(2 * nev + 1, nev + 20));

  Progress factor_progress("factorization");
  const auto factor_start = std::chrono::steady_clock::now();
  Progress iterate_progress("eigen iterations");
  CholmodShiftInvert op(k, m, iterate_progress);
  op.expected_operations = 2.0 * ncv;
  Spectra::SparseSymMatProd<double, Eigen::Lower> bop(m);
  Spectra::SymGEigsShiftSolver<CholmodShiftInvert, Spectra::SparseSymMatProd<double, Eigen::Lower>,
                               Spectra::GEigsMode::ShiftInvert>
      solver(op, bop, nev, ncv, options.shift);  // factorizes K − σM
  const double factorization_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - factor_start).count();
  factor_progress.finish(fmt::format("{} DOF", n));
  solver.init();
  const int converged = static_cast<int>(solver.compute(Spectra::SortRule::LargestMagn,
                                                        options.max_restarts, options.tolerance,
                                                        Spectra::SortRule::SmallestAlge));
  iterate_progress.finish(fmt::format("{} modes, {} Lanczos steps", converged, op.operations));
  if (solver.info() != Spectra::CompInfo::Successful || converged < nev)
    throw Error(fmt::format(
        "the eigen solver did not converge ({} of {} modes after {} restarts)", converged, nev,
        options.max_restarts));
  EigenSolution out;
  out.eigenvalues = solver.eigenvalues();
  out.vectors = solver.eigenvectors();
  out.factorizations = op.factorizations;
  out.factorization_s = factorization_s;
  out.operations = op.operations;
  out.triangular_solve_s = op.solve_s;
  // Spectra returns the requested order; make sure it is ascending.
  std::vector<int> order(out.eigenvalues.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return out.eigenvalues[a] < out.eigenvalues[b]; });
  Eigen::VectorXd values(order.size());
  Eigen::MatrixXd vectors(n, order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    values[i] = out.eigenvalues[order[i]];
    vectors.col(i) = out.vectors.col(order[i]);
  }
  out.eigenvalues = std::move(values);
  out.vectors = std::move(vectors);
  return out;
}

}  // namespace mesh2dsp
