#include "modal/eigen_solve.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/SparseCore>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "modal/cholmod_factor.hpp"
#include "modal/memory_estimate.hpp"
#include "modal/row_block_product.hpp"
#include "util/error.hpp"
#include "util/free_memory.hpp"
#include "util/serial_threads.hpp"
#include "util/progress.hpp"
#include "util/run_parts.hpp"

namespace mesh2dsp {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The reorthogonalisation products are tall and skinny (n × k times k × b); the reference BLAS
// interface (OpenBLAS here) runs them without Eigen's copy of the whole basis per product.
extern "C" void dgemm_(const char* transa, const char* transb, const int* m, const int* n,
                       const int* k, const double* alpha, const double* a, const int* lda,
                       const double* b, const int* ldb, const double* beta, double* c,
                       const int* ldc);

// The reorthogonalisation products read the whole basis for b columns of work: bound by memory
// bandwidth, which one core does not saturate. Their rows are split among the cores (each part
// one single-threaded dgemm), as the mass products' and the block solves' are; OpenBLAS's own
// threads stay off, since they spin between its calls and the cores are already ours
// (serial_threads.hpp), through run_parts.hpp's row split.

// Columns first..first+columns of `basis` (n × columns)ᵀ times x.
Eigen::MatrixXd transpose_times(const Eigen::MatrixXd& basis, int first, int columns, const Eigen::MatrixXd& x) {
  const int n = static_cast<int>(basis.rows()), b = static_cast<int>(x.cols());
  const int parts = row_parts(n);
  std::vector<Eigen::MatrixXd> partial(parts, Eigen::MatrixXd(columns, b));
  run_parts(parts, [&](int part) {
    const int begin = part_begin(n, part, parts), rows = part_begin(n, part + 1, parts) - begin;
    const double one = 1, zero = 0;
    dgemm_("T", "N", &columns, &b, &rows, &one, basis.data() + static_cast<long>(first) * n + begin, &n, x.data() + begin, &n,
           &zero, partial[part].data(), &columns);
  });
  for (int part = 1; part < parts; ++part) partial[0] += partial[part];
  return std::move(partial[0]);
}

// x = α (columns first..first+columns of basis) · c + β x.
void scaled_product(const Eigen::MatrixXd& basis, int first, int columns, const Eigen::MatrixXd& c, double alpha,
                    double beta, Eigen::MatrixXd& x) {
  const int n = static_cast<int>(basis.rows()), b = static_cast<int>(c.cols());
  if (beta == 0) x.resize(n, b);
  const int parts = row_parts(n);
  run_parts(parts, [&](int part) {
    const int begin = part_begin(n, part, parts), rows = part_begin(n, part + 1, parts) - begin;
    dgemm_("N", "N", &rows, &b, &columns, &alpha, basis.data() + static_cast<long>(first) * n + begin, &n, c.data(),
           &columns, &beta, x.data() + begin, &n);
  });
}

// x −= (columns first..first+columns of basis) · c.
void subtract_product(const Eigen::MatrixXd& basis, int first, int columns, const Eigen::MatrixXd& c, Eigen::MatrixXd& x) {
  scaled_product(basis, first, columns, c, -1, 1, x);
}

// out = a · c for a tall block a and a small square c (the Lanczos step's n × b blocks).
void block_times(const Eigen::MatrixXd& a, const Eigen::MatrixXd& c, Eigen::MatrixXd& out) {
  scaled_product(a, 0, static_cast<int>(a.cols()), c, 1, 0, out);
}

// LAPACK's MRRR symmetric eigensolver (Dhillon & Parlett 2004), which forms only the eigenvectors
// asked for: the Ritz step needs the `wanted` largest of T's, not all k. On a 1 000 × 1 000 T
// with 300 wanted it took 0.25 s where Eigen's full solve took 1.14 s, and a 300-mode solve
// checks its Ritz values a dozen times.
extern "C" void dsyevr_(const char* jobz, const char* range, const char* uplo, const int* n, double* a,
                        const int* lda, const double* vl, const double* vu, const int* il, const int* iu,
                        const double* abstol, int* m, double* w, double* z, const int* ldz, int* isuppz,
                        double* work, const int* lwork, int* iwork, const int* liwork, int* info);

// The `wanted` largest eigenvalues (ascending) and their eigenvectors of the symmetric matrix
// whose upper triangle is `upper`.
void largest_eigenpairs(Eigen::MatrixXd upper, int wanted, Eigen::VectorXd& values, Eigen::MatrixXd& vectors) {
  const int n = static_cast<int>(upper.rows());
  wanted = std::clamp(wanted, 0, n);
  values.resize(wanted);
  vectors.resize(n, wanted);
  if (wanted == 0) return;
  const int il = n - wanted + 1, iu = n;
  const double unused = 0, abstol = 0;  // abstol 0: LAPACK's own (full) accuracy
  int found = 0, info = 0, lwork = -1, liwork = -1, iwork_size = 0;
  double work_size = 0;
  Eigen::VectorXd all(n);
  std::vector<int> support(2 * static_cast<std::size_t>(wanted));
  dsyevr_("V", "I", "U", &n, upper.data(), &n, &unused, &unused, &il, &iu, &abstol, &found, all.data(),
          vectors.data(), &n, support.data(), &work_size, &lwork, &iwork_size, &liwork, &info);
  lwork = static_cast<int>(work_size);
  liwork = iwork_size;
  std::vector<double> work(static_cast<std::size_t>(std::max(lwork, 1)));
  std::vector<int> iwork(static_cast<std::size_t>(std::max(liwork, 1)));
  if (info == 0)
    dsyevr_("V", "I", "U", &n, upper.data(), &n, &unused, &unused, &il, &iu, &abstol, &found, all.data(),
            vectors.data(), &n, support.data(), work.data(), &lwork, iwork.data(), &liwork, &info);
  if (info != 0 || found != wanted)
    throw Error(fmt::format("the eigen solver failed on its projected matrix (LAPACK dsyevr: info {}, {} of {} "
                            "eigenpairs)", info, found, wanted));
  values = all.head(wanted);
}

using Permutation = Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int>;

// Row k of x to row order[k], in place, a column at a time through a column of scratch per core
// (no second copy of the shapes, which are the solve's peak; Eigen's in-place permutation
// follows the cycles row by row and took 0.17 s on the statue's 50 shapes).
void rows_to_mesh_order(const Eigen::VectorXi& order, Eigen::MatrixXd& x) {
  const int columns = static_cast<int>(x.cols()), parts = std::max(1, std::min(omp_get_num_procs(), columns));
  run_parts(parts, [&](int part) {
    Eigen::VectorXd column(x.rows());
    for (int c = part; c < columns; c += parts) {
      column = x.col(c);
      for (Eigen::Index k = 0; k < x.rows(); ++k) x(order[k], c) = column[k];
    }
  });
}

// P A Pᵀ with A's rows and columns taken in `order` (entry k: A's row taken k-th).
RowMajorSparse in_order(const RowMajorSparse& a, const Eigen::VectorXi& order) {
  const Permutation p = Permutation(order).inverse();
  return RowMajorSparse(p * a * p.transpose());
}

// Block Lanczos on S = (K − σM)⁻¹M, which is self-adjoint in the M inner product, with full
// reorthogonalisation (the recurrence's blocks, then classical Gram–Schmidt over the whole
// basis, repeated when needed) and no restarts: the basis only grows, so
// asking for more modes continues the same Krylov space. A block of b vectors per step lets one
// pass over the factor solve b right-hand sides (5-6x cheaper per vector than one at a time)
// and finds up to b-fold degenerate modes directly. Grimes, Lewis & Simon, "A shifted block
// Lanczos algorithm for solving sparse symmetric generalized eigenproblems" (SIAM J. Matrix
// Anal. Appl. 15(1), 1994), eq. (2.4): S Vⱼ = Vⱼ₋₁Bⱼᵀ + VⱼAⱼ + Vⱼ₊₁Bⱼ₊₁, T = VᵀM S V.
class BlockLanczos {
 public:
  // The basis is kept in the factor's fill-reducing order (CholmodFactor::solve_in_order),
  // `order` (entry k: the mesh's row taken k-th), and M with it.
  BlockLanczos(const CholmodFactor& factor, const SparseMatrix& mass, const Eigen::VectorXi& order, int block,
               int capacity)
      : factor_(factor), n_(static_cast<int>(mass.rows())), b_(block) {
    // Mₙ (nine times smaller), in the order, when the order moves each node's three rows together.
    bool node_blocked = order.size() == n_ && n_ % 3 == 0;
    for (int k = 0; node_blocked && k < n_; ++k) node_blocked = order[k] == 3 * (order[k - k % 3] / 3) + k % 3;
    if (node_blocked) {
      Eigen::VectorXi node_order(n_ / 3);
      for (int k = 0; k < n_ / 3; ++k) node_order[k] = order[3 * k] / 3;
      node_mass_ = node_mass_from_lower(mass, node_order);
    }
    if (node_mass_.size() == 0) mass_rows_ = in_order(symmetric_from_lower(mass), order);
    reserve(std::max(capacity, 2 * b_));
    append_block(random_block(b_), 0, 1.0);
  }

  // Rigid-body modes (λ ≈ 0, so θ ≈ 1/|σ|: a million times the elastic θ when σ sits at 10 Hz
  // and the first elastic mode at 10 kHz) converge in a few steps; left in the iteration, the
  // rounding of each solve along them (relative ε·cond(K − σM)) leaks into the elastic part of T
  // and costs the elastic modes 1e-7 of accuracy, differently from run to run. They are found
  // first, locked as exact eigenvectors (T diagonal there, no coupling), and the iteration
  // restarts M-orthogonal to them. θ ≥ `theta_floor` marks them.
  void lock_rigid_modes(double theta_floor) {
    for (int step = 0; step < 3 && can_extend(); ++step) extend();
    const Ritz r = ritz(k_);
    std::vector<int> rigid;
    for (int i = 0; i < k_; ++i)
      if (r.theta[i] >= theta_floor) {
        // 1e-8: the solves' own rounding along these modes (what the locking leaves out).
        if (r.residual[i] > 1e-8 * r.theta[i]) return;  // not converged: keep the plain basis
        rigid.push_back(i);
      }
    if (rigid.empty() || static_cast<int>(rigid.size()) + 2 * b_ > n_) return;
    const int l = static_cast<int>(rigid.size());
    Eigen::MatrixXd y(k_, l);
    for (int i = 0; i < l; ++i) y.col(i) = r.y.col(rigid[i]);
    Eigen::MatrixXd z = ritz_vectors(y);
    // Restart: the locked vectors first (M-orthonormalised afresh), then a new random block.
    k_ = 0;
    locked_ = 0;
    t_.setZero();
    Eigen::MatrixXd start = random_block(b_);
    for (int i = 0; i < l; ++i) {
      Eigen::MatrixXd col = z.col(i);
      for (int round = 0; round < 2 && i > 0; ++round)
        subtract_product(v_, 0, i, mass_coefficients(i, col), col);
      const Eigen::MatrixXd mcol = mass_times(col);
      const double norm = std::sqrt(col.col(0).dot(mcol.col(0)));
      v_.col(i) = col / norm;
      t_(i, i) = r.theta[rigid[i]];
    }
    for (int round = 0; round < 2; ++round)
      subtract_product(v_, 0, l, mass_coefficients(l, start), start);
    append_block(start, l, 1.0);
    previous_mass_block_.resize(0, 0);
    k_ = locked_ = l;
  }

  int dimension() const { return k_; }
  bool can_extend() const { return k_ + 2 * b_ <= n_; }

  // One block step: the next b basis vectors.
  void extend() {
    const int j = k_, kk = k_ + b_;
    reserve(kk + b_);
    const auto t0 = Clock::now();
    Eigen::MatrixXd& y = solved_;
    factor_.solve_in_order(mass_block_, y);  // S Vⱼ
    solve_s += seconds_since(t0);
    solves += b_;
    // The recurrence's own terms first: S Vⱼ lies almost wholly in Vⱼ₋₁ and Vⱼ (eq. 2.4), so
    // the local pass removes nearly all of it, and one pass over the whole basis then removes
    // only rounding-level components (Daniel, Gragg, Kaufman & Stewart,
    // "Reorthogonalization and stable algorithms for updating the Gram-Schmidt QR
    // factorization", Math. Comp. 30, 1976: repeat only when a pass removes more than half the
    // norm²). Two full passes read the basis four times per step; this reads it twice.
    // Its coefficients (M Vⱼ₋₁, M Vⱼ)ᵀ y come from the M products kept from the last two steps:
    // their rounding is what the full pass removes.
    const bool two_blocks = j - b_ >= locked_ && previous_mass_block_.cols() == b_;
    const int local_begin = two_blocks ? j - b_ : j, local = kk - local_begin;
    Eigen::MatrixXd c = Eigen::MatrixXd::Zero(kk, b_);
    c.middleRows(j, b_) = transpose_times(mass_block_, 0, b_, y);
    if (two_blocks) c.middleRows(j - b_, b_) = transpose_times(previous_mass_block_, 0, b_, y);
    subtract_product(v_, local_begin, local, c.middleRows(local_begin, local), y);
    const double reference = c.colwise().norm().maxCoeff();
    for (int pass = 0; pass < 2; ++pass) {
      Eigen::MatrixXd& my = mass_y_;
      mass_times(y, my);
      const Eigen::ArrayXd norm2 = y.cwiseProduct(my).colwise().sum().transpose().array();
      const Eigen::MatrixXd c2 = transpose_times(v_, 0, kk, my);
      subtract_product(v_, 0, kk, c2, y);
      c += c2;
      // V is M-orthonormal: what the pass removed is ‖c2‖² of the column's norm².
      if ((c2.colwise().squaredNorm().transpose().array() <= 0.5 * norm2).all()) break;
    }
    // Locked vectors are exact eigenvectors: what the solve puts along them is rounding noise
    // (amplified by their large θ), projected out above but kept out of T.
    c.topRows(locked_).setZero();
    t_.block(0, j, kk, b_) = c;
    // The newest M block becomes the previous one; append_block refills mass_block_.
    previous_mass_block_.swap(mass_block_);
    t_.block(kk, j, b_, b_) = append_block(y, kk, reference);
    k_ = kk;
  }

  struct Ritz {
    Eigen::VectorXd theta;     // ascending
    Eigen::MatrixXd y;         // eigenvectors of T
    Eigen::VectorXd residual;  // ‖S z − θ z‖_M of the Ritz vectors z = V y
  };
  // The `wanted` largest Ritz values (all when wanted ≥ the dimension), ascending.
  Ritz ritz(int wanted) const {
    Ritz r;
    largest_eigenpairs(t_.topLeftCorner(k_, k_), std::min(wanted, k_), r.theta, r.y);
    r.residual = (t_.block(k_, k_ - b_, b_, b_) * r.y.bottomRows(b_)).colwise().norm().transpose();
    return r;
  }
  // V y through OpenBLAS (every core when its threads are on), not Eigen's baseline-x86 product.
  Eigen::MatrixXd ritz_vectors(const Eigen::MatrixXd& y) const {
    Eigen::MatrixXd z(n_, y.cols());
    const int columns = static_cast<int>(y.cols());
    const double one = 1, zero = 0;
    dgemm_("N", "N", &n_, &columns, &k_, &one, v_.data(), &n_, y.data(), &k_, &zero, z.data(), &n_);
    return z;
  }

  void release_step_buffers() {
    for (Eigen::MatrixXd* m : {&solved_, &mass_y_, &block_, &mass_block_work_, &next_block_, &next_mass_block_,
                               &mass_block_, &previous_mass_block_})
      *m = Eigen::MatrixXd();
    mass_in_ = std::vector<double>();
    mass_out_ = std::vector<double>();
  }

  int solves = 0;
  double solve_s = 0;
  mutable int mass_products = 0;
  mutable double mass_product_s = 0;

 private:
  // M·x with M stored whole, row by row, and x row-major: each output row gathers 8 contiguous
  // values per entry (CHOLMOD's product on the lower triangle scatters as well), on every core
  // (sparse_times_row_block). This product runs three or four times per block step.
  // Into `out`, through row-major buffers kept between calls (like every n × b block of the
  // step: allocated once, not mapped and zeroed by the kernel again each time).
  void mass_times(const Eigen::MatrixXd& x, Eigen::MatrixXd& out) const {
    const auto start = Clock::now();
    const int b = static_cast<int>(x.cols());
    mass_in_.resize(static_cast<std::size_t>(n_) * b);
    mass_out_.resize(static_cast<std::size_t>(n_) * b);
    copy_to_rows(x, 0, b, mass_in_.data());
    const bool by_node = node_mass_.size() > 0;
    // Mₙ ⊗ I₃ times x is Mₙ times x with each node's three rows side by side.
    sparse_times_row_block(by_node ? node_mass_ : mass_rows_, mass_in_.data(), by_node ? 3 * b : b,
                           mass_out_.data());
    out.resize(n_, b);
    copy_from_rows(mass_out_.data(), 0, b, out);
    ++mass_products;
    mass_product_s += seconds_since(start);
  }

  Eigen::MatrixXd mass_times(const Eigen::MatrixXd& x) const {
    Eigen::MatrixXd y;
    mass_times(x, y);
    return y;
  }

  // (first `columns` basis vectors)ᵀ M x. M·basis is not stored: it would double the basis
  // memory (the wheel's 300 modes: 7 GB), and M·x for a block of b vectors costs less than one
  // pass over the basis, which these products are bound by (memory bandwidth, not flops).
  Eigen::MatrixXd mass_coefficients(int columns, const Eigen::MatrixXd& x) const {
    return transpose_times(v_, 0, columns, mass_times(x));
  }

  Eigen::MatrixXd random_block(int columns) {
    Eigen::MatrixXd x(n_, columns);
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal_(random_);
    return x;
  }

  void reserve(int columns) {
    columns = std::min(columns, n_);
    if (v_.cols() >= columns) return;
    const int grown = std::min(n_, std::max(columns, static_cast<int>(v_.cols()) * 3 / 2));
    v_.conservativeResize(n_, grown);
    t_.conservativeResize(grown + b_, grown);
  }

  // M-orthonormalises the block x (already M-orthogonal to the first `at` basis vectors) into
  // basis columns at..at+b and returns R with x = Vnew R. Directions of x that vanish next to
  // `reference` (the Krylov space has closed) are replaced by random vectors, with zero rows in R.
  Eigen::MatrixXd append_block(const Eigen::MatrixXd& block, int at, double reference) {
    Eigen::MatrixXd r = Eigen::MatrixXd::Identity(b_, b_);
    Eigen::MatrixXd &x = block_, &mx = mass_block_work_, &xn = next_block_, &mxn = next_mass_block_;
    x = block;
    // M·x afresh in each pass: the second pass's Gram matrix is close to I, so the M·basis it
    // combines stays M times the basis to rounding. (Carried through the first pass's
    // combination, M·x drifts by cond(G)·ε, and the rigid-body modes, 10⁶ times larger in the
    // shift-inverted spectrum, amplify that drift into the elastic Ritz values.)
    for (int pass = 0; pass < 2; ++pass) {
      mass_times(x, mx);
      Eigen::MatrixXd g = transpose_times(x, 0, b_, mx);
      g = 0.5 * (g + g.transpose()).eval();
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(g);
      const Eigen::VectorXd s = es.eigenvalues().cwiseMax(0.0).cwiseSqrt();
      const Eigen::MatrixXd& q = es.eigenvectors();
      // Only a direction at rounding level next to the block's size is lost: what is dropped
      // goes out of the Krylov relation, and the rigid-body modes (θ = 1/|σ|, 10⁶ times the
      // elastic ones) set `reference`, so a looser floor drops elastic information.
      const double floor = pass == 0 ? 8 * std::numeric_limits<double>::epsilon() * reference : 0.5;
      // The kept directions scaled to unit M-norm, all b at once: one pass over x and M·x each
      // (column by column, each product would read the whole n × b block b times).
      Eigen::MatrixXd scaled = Eigen::MatrixXd::Zero(b_, b_);
      Eigen::MatrixXd rp = Eigen::MatrixXd::Zero(b_, b_);
      std::vector<int> lost;
      for (int i = 0; i < b_; ++i) {
        if (s[i] > floor) {
          scaled.col(i) = q.col(i) / s[i];
          rp.row(i) = s[i] * q.col(i).transpose();
        } else {
          lost.push_back(i);
        }
      }
      block_times(x, scaled, xn);
      block_times(mx, scaled, mxn);
      // Kept columns and the replacements made so far are final; the others are not yet.
      std::vector<bool> final_column(b_, true);
      for (int i : lost) final_column[i] = false;
      auto filled = [&](int column) { return final_column[column]; };
      for (int i : lost) {
        Eigen::VectorXd z = random_block(1);
        for (int round = 0; round < 2; ++round) {
          if (at > 0) {
            Eigen::MatrixXd zm = z;
            subtract_product(v_, 0, at, mass_coefficients(at, zm), zm);
            z = zm.col(0);
          }
          for (int other = 0; other < b_; ++other)
            if (filled(other)) z -= xn.col(other) * mxn.col(other).dot(z);
        }
        const Eigen::VectorXd mz = mass_times(z);
        const double norm = std::sqrt(std::max(z.dot(mz), 0.0));
        if (!(norm > 0)) throw Error("the eigen solver lost its basis (numerical breakdown)");
        xn.col(i) = z / norm;
        mxn.col(i) = mz / norm;
        final_column[i] = true;
      }
      x.swap(xn);
      mx.swap(mxn);
      r = rp * r;
    }
    // On every core: the basis's columns are first touched here (a host fault per page on a
    // virtual machine: the sword scan's 160 columns, 0.85 s on one core).
    run_row_parts(n_, [&](int begin, int end) {
      v_.block(begin, at, end - begin, b_) = x.middleRows(begin, end - begin);
    });
    mass_block_ = mx;
    return r;
  }

  const CholmodFactor& factor_;
  RowMajorSparse mass_rows_;  // M whole (empty when node_mass_ stands for it)
  RowMajorSparse node_mass_;  // Mₙ with M = Mₙ ⊗ I₃, or empty
  int n_, b_, k_ = 0;
  int locked_ = 0;  // leading basis columns that are exact eigenvectors (rigid-body modes)
  Eigen::MatrixXd v_, t_;  // basis, projected matrix (upper part + sub-diagonal blocks)
  Eigen::MatrixXd mass_block_;  // M times the newest block of the basis (the next solve's input)
  Eigen::MatrixXd previous_mass_block_;  // M times the block before it (or empty)
  // n × b buffers of a step, reused from step to step.
  Eigen::MatrixXd solved_, mass_y_, block_, mass_block_work_, next_block_, next_mass_block_;
  mutable std::vector<double> mass_in_, mass_out_;  // x and M·x row by row
  std::mt19937_64 random_{20261126};  // fixed: the same mesh gives the same modes, run after run
  std::normal_distribution<double> normal_;
};

// Small problems: the dense generalized eigensolver, all eigenpairs at once.
EigenSolution solve_dense(const SparseMatrix& k, const SparseMatrix& m, const EigenSolveOptions& options,
                          const std::function<int(const EigenSolution&)>& more) {
  const Eigen::MatrixXd kd = Eigen::MatrixXd(symmetric_from_lower(k));
  const Eigen::MatrixXd md = Eigen::MatrixXd(symmetric_from_lower(m));
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(kd, md);
  if (es.info() != Eigen::Success)
    throw Error("the eigen solver failed: the mass matrix is not positive definite (broken mesh?)");
  const int n = static_cast<int>(k.rows());
  EigenSolution out;
  for (int count = options.count; count > 0;) {
    const int nev = std::min(count, n);
    out.eigenvalues = es.eigenvalues().head(nev);
    out.vectors = es.eigenvectors().leftCols(nev);  // Eigen normalises them to φᵀMφ = 1
    const int next = (more && nev < n) ? more(out) : 0;
    count = next > nev ? next : 0;
  }
  return out;
}

}  // namespace

EigenSolution solve_lowest_modes(const SparseMatrix& k, const SparseMatrix& m,
                                 const EigenSolveOptions& options,
                                 const std::function<int(const EigenSolution&)>& more) {
  return solve_lowest_modes(SparseMatrix(k), m, options, more);
}

EigenSolution solve_lowest_modes(SparseMatrix&& k, const SparseMatrix& m,
                                 const EigenSolveOptions& options,
                                 const std::function<int(const EigenSolution&)>& more) {
  const int n = static_cast<int>(k.rows());
  if (n == 0 || k.rows() != m.rows()) throw Error("empty or inconsistent FEM system");
  if (options.shift >= 0) throw Error("internal: the eigen shift must be negative");
  if (options.count < 1) throw Error("internal: no eigenpairs requested");
  const int b = std::max(1, options.block_size);
  const int expected = std::max(options.count, options.expected_count);
  // Small problems, or most of a small spectrum: a dense solve is exact, fast and needs no
  // Krylov space as large as the problem.
  const int basis = expected_basis_columns(expected, b, n);
  if (n < options.dense_below_dof || (basis + 2 * b > n && n < 3 * options.dense_below_dof))
    return solve_dense(k, m, options, more);
  if (options.count + 2 * b > n)
    throw Error(fmt::format("{} modes asked of a model with only {} degrees of freedom: ask for "
                            "fewer modes or refine the mesh",
                            options.count, n));

  const auto ordering_start = Clock::now();
  SparseMatrix shifted;
  shifted.swap(k);  // Eigen 3.4's sparse matrices have no move constructor: std::move would copy
  shifted.makeCompressed();
  subtract_scaled_in_place(shifted, options.shift, m);
  const auto nonzeros = static_cast<double>(shifted.nonZeros());
  // Symbolic analysis only: the sizes, before committing memory. The factor takes the matrix
  // over (in its own order; `shifted` is freed).
  CholmodFactor factor(std::move(shifted), options.node_corners, options.memory_limit_bytes);
  const double ordering_s = seconds_since(ordering_start);
  const SolveEstimate estimate = estimate_eigen_solve(n, nonzeros, factor.size(), expected, b);
  check_memory(estimate, options.memory_limit_bytes);
  if (estimate.time_s() >= options.notice_above_s)
    notice(fmt::format("eigen solve: {}{} DOF, up to {} modes: about {} of memory (factor {}) and {:.0f} s",
                       options.problem.empty() ? "" : options.problem + ", ", n, expected,
                       format_bytes(estimate.peak_bytes()), format_bytes(estimate.factor_bytes),
                       std::ceil(estimate.time_s())));

  Progress factor_progress("factorization");
  return_free_memory_to_system();  // what the meshing and assembly freed: the solve is the peak
  const auto factor_start = Clock::now();
  factor.factorize();  // the matrix is freed: the factor holds what the iteration needs of it
  const double factorization_s = seconds_since(factor_start);
  factor_progress.finish(fmt::format("{} DOF", n));

  // OpenBLAS's and OpenMP's thread pools off for the iteration (their threads spin between
  // calls); the block solves, the basis and the mass products split their work over the cores
  // themselves (SupernodalSolve, row_parts, run_parts).
  std::optional<SerialThreads> single_threaded_iteration(std::in_place);
  Progress progress("eigen iterations");
  // The iteration runs in the factor's fill-reducing order (nested dissection: each part of the
  // mesh a contiguous range of rows), not the mesher's: the mass products then gather their
  // neighbours' rows from nearby memory instead of across the whole block, and the solves skip
  // the permutation. The modes are put back in the mesh's order at the end.
  const Eigen::VectorXi order = factor.order();
  BlockLanczos lanczos(factor, m, order, b, expected_basis_columns(expected, b, n) + b);
  return_free_memory_to_system();  // the factorization's workspace
  lanczos.lock_rigid_modes(0.5 / -options.shift);
  EigenSolution out;
  // The eigenvectors of T for the modes of the last round: the Ritz vectors (an n × k × nev
  // product, 17 % of a 300-mode solve) are formed once, at the end, not for every round whose
  // eigenvalues only decide whether to ask for more.
  Eigen::MatrixXd ritz_y;
  for (int count = options.count; count > 0;) {
    const int nev = std::min(count, n - 1);
    int next_check = nev + b;
    for (;;) {
      if (lanczos.dimension() >= next_check) {
        const BlockLanczos::Ritz ritz = lanczos.ritz(nev);
        const int kdim = lanczos.dimension();
        int converged = 0;
        for (int i = 0; i < nev; ++i)
          if (ritz.residual[i] <= options.tolerance * std::abs(ritz.theta[i])) ++converged;
        progress.update(std::min(0.99, static_cast<double>(converged) / nev),
                        fmt::format("{} of {} modes, {} Lanczos vectors", converged, nev, kdim));
        if (converged == nev) {
          out.eigenvalues.resize(nev);
          ritz_y.resize(kdim, nev);
          for (int i = 0; i < nev; ++i) {  // largest θ first: ascending λ = σ + 1/θ
            out.eigenvalues[i] = options.shift + 1.0 / ritz.theta[nev - 1 - i];
            ritz_y.col(i) = ritz.y.col(nev - 1 - i);
          }
          break;
        }
        // A Ritz check (dsyevr on the k × k T) costs about as much per k³ as a block step costs
        // per n·k·b (its passes over the basis): a 1 000-wide T with 300 wanted took 0.25 s; a
        // step over 900 vectors of 291 k DOF reads the basis (2.1 GB) two or three times, about
        // 0.3-0.5 s at the 15 GB/s the block solves reach. A check every ⌈4k²/(n·b)⌉
        // steps keeps the checks under a fifth of the iteration, and the basis at most that
        // many steps past convergence: a 50-mode basis is checked every step (the sword's
        // 184 -> 176 vectors), a 300-mode one every few. Never further apart than k/8 vectors
        // (the spacing before), which bounds the overshoot where the basis nears the space's size.
        const double steps_per_check = std::ceil(4.0 * kdim * static_cast<double>(kdim) / (static_cast<double>(n) * b));
        next_check = kdim + b * static_cast<int>(std::clamp(steps_per_check, 1.0, std::max(1.0, kdim / (8.0 * b))));
      }
      if (!lanczos.can_extend())
        throw Error(fmt::format(
            "the eigen solver did not converge ({} modes asked of {} degrees of freedom)", nev, n));
      lanczos.extend();
    }
    const int next = (more && nev < n - 1) ? more(out) : 0;
    count = next > nev ? next : 0;
  }
  single_threaded_iteration.reset();  // the Ritz vectors are one large product: every thread
  // The factor and the step buffers are done with: freed before the shapes are formed, which is
  // where the solve's memory peaks.
  lanczos.release_step_buffers();
  factor.release();
  if (options.vectors) {
    out.vectors = lanczos.ritz_vectors(ritz_y);
    rows_to_mesh_order(order, out.vectors);
  }
  progress.finish(fmt::format("{} modes, {} Lanczos vectors", out.eigenvalues.size(), lanczos.dimension()));
  out.factorizations = 1;
  out.ordering_s = ordering_s;
  out.factorization_s = factorization_s;
  out.operations = lanczos.solves;
  out.triangular_solve_s = lanczos.solve_s;
  out.mass_products = lanczos.mass_products;
  out.mass_product_s = lanczos.mass_product_s;
  out.estimate = estimate;
  return out;
}

}  // namespace mesh2dsp
