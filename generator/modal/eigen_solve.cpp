#include "modal/eigen_solve.hpp"

#include <fmt/format.h>

#include <Eigen/CholmodSupport>
#include <Spectra/MatOp/SparseSymMatProd.h>
#include <Spectra/SymGEigsShiftSolver.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <functional>
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

// OpenBLAS (Debian's libopenblas0-pthread, picked by the libblas.so.3 alternative) spins its
// threads while waiting; on the single-vector triangular solves of the Lanczos steps that only
// costs time, 4x on a loaded 2-core machine. Threads help the factorization, so the iteration
// runs with one. Looked up at run time: with another BLAS the call does nothing.
class SingleThreadedBlas {
 public:
  SingleThreadedBlas() {
    set_ = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    auto get = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    if (set_ && get) {
      previous_ = get();
      set_(1);
    }
  }
  ~SingleThreadedBlas() {
    if (set_ && previous_ > 0) set_(previous_);
  }

 private:
  void (*set_)(int) = nullptr;
  int previous_ = 0;
};

}  // namespace

EigenSolution solve_lowest_modes(const SparseMatrix& k, const SparseMatrix& m,
                                 const EigenSolveOptions& options,
                                 const std::function<int(const EigenSolution&)>& more) {
  const int n = static_cast<int>(k.rows());
  if (n == 0 || k.rows() != m.rows()) throw Error("empty or inconsistent FEM system");
  if (options.shift >= 0) throw Error("internal: the eigen shift must be negative");

  Progress factor_progress("factorization");
  const auto factor_start = std::chrono::steady_clock::now();
  Progress iterate_progress("eigen iterations");
  CholmodShiftInvert op(k, m, iterate_progress);
  op.set_shift(options.shift);  // factorizes K − σM once for every round below
  const double factorization_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - factor_start).count();
  factor_progress.finish(fmt::format("{} DOF", n));
  Spectra::SparseSymMatProd<double, Eigen::Lower> bop(m);
  const SingleThreadedBlas single_threaded_iteration;

  EigenSolution out;
  for (int count = options.count; count > 0;) {
    const int nev = std::min(count, n - 1);
    if (nev < 1) throw Error("the model has too few degrees of freedom for the modes requested");
    const int ncv = std::min(n, std::max(2 * nev + 1, nev + 20));
    op.expected_operations = op.operations + 2.0 * ncv;
    Spectra::SymGEigsShiftSolver<CholmodShiftInvert, Spectra::SparseSymMatProd<double, Eigen::Lower>,
                                 Spectra::GEigsMode::ShiftInvert>
        solver(op, bop, nev, ncv, options.shift);  // the factor is reused: same shift
    solver.init();
    const int converged = static_cast<int>(solver.compute(Spectra::SortRule::LargestMagn,
                                                          options.max_restarts, options.tolerance,
                                                          Spectra::SortRule::SmallestAlge));
    if (solver.info() != Spectra::CompInfo::Successful || converged < nev)
      throw Error(fmt::format(
          "the eigen solver did not converge ({} of {} modes after {} restarts)", converged, nev,
          options.max_restarts));
    // Spectra returns the requested order; make it ascending.
    const Eigen::VectorXd values = solver.eigenvalues();
    const Eigen::MatrixXd vectors = solver.eigenvectors();
    std::vector<int> order(values.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return values[a] < values[b]; });
    out.eigenvalues.resize(nev);
    out.vectors.resize(n, nev);
    for (int i = 0; i < nev; ++i) {
      out.eigenvalues[i] = values[order[i]];
      out.vectors.col(i) = vectors.col(order[i]);
    }
    const int next = (more && nev < n - 1) ? more(out) : 0;
    count = next > nev ? next : 0;
  }
  iterate_progress.finish(fmt::format("{} modes, {} Lanczos steps", out.eigenvalues.size(), op.operations));
  out.factorizations = op.factorizations;
  out.factorization_s = factorization_s;
  out.operations = op.operations;
  out.triangular_solve_s = op.solve_s;
  return out;
}

}  // namespace mesh2dsp
