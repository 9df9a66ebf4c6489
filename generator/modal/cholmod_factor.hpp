#pragma once
// CHOLMOD's supernodal Cholesky factor of a sparse symmetric matrix, through CHOLMOD's C
// interface rather than Eigen's wrapper: the symbolic analysis comes first and alone, so the
// factor's size and flop count are known (for the memory and time estimate) before any
// numeric work; the analysis is reused for every matrix of the same pattern; and every CHOLMOD
// failure ("problem too large", out of memory, not positive definite) becomes a
// mesh2dsp::Error instead of a message on stderr followed by a crash.
#include <Eigen/Core>
#include <memory>
#include <vector>

#include "fem/assembly.hpp"
#include "fem/fem_mesh.hpp"

namespace mesh2dsp {

struct FactorSize {
  double entries = 0;          // doubles the numeric factor holds (supernodal, with padding)
  double flops = 0;            // of the numeric factorization
  double workspace_bytes = 0;  // CHOLMOD's temporary memory while factorizing
  double bytes() const { return 8 * entries + workspace_bytes; }
};

class CholmodFactor {
 public:
  // Symbolic analysis of `pattern_lower` (the lower triangle; values ignored): fill-reducing
  // ordering (AMD and a nested dissection, the one with less fill). With `node_corners` (for
  // node k of the matrix, DOF 3k..3k+2: the corners of its entity, fem_mesh.hpp), the
  // dissection is found on the corners' graph and CAMD orders the nodes within its parts,
  // instead of METIS on the node graph (which stays where that gives no order: linear
  // elements, whose nodes are the corners). Meanwhile another thread faults in memory for the
  // factor's values, unless they would take more than half of `memory_limit_bytes` (0: the
  // memory available). Throws Error when CHOLMOD fails.
  explicit CholmodFactor(const SparseMatrix& pattern_lower, const NodeCorners& node_corners = {},
                         double memory_limit_bytes = 0);
  // The same of a matrix taken over: kept in the factor's order for factorize() (and freed
  // there), the matrix given freed as soon as it is (it is not needed again).
  CholmodFactor(SparseMatrix&& lower, const NodeCorners& node_corners, double memory_limit_bytes);
  ~CholmodFactor();
  CholmodFactor(const CholmodFactor&) = delete;
  CholmodFactor& operator=(const CholmodFactor&) = delete;

  const FactorSize& size() const { return size_; }
  Eigen::Index rows() const { return rows_; }

  // Numeric factorization of the matrix the constructor took over. Throws Error when the
  // matrix is not positive definite or memory runs out.
  void factorize();
  // Numeric factorization of `lower` (same pattern as the analysis), likewise.
  void factorize(const SparseMatrix& lower);
  // X = A⁻¹ B for a block of right-hand sides (one pass over the factor for all of them), into
  // `x`: B put in the factor's order, CHOLMOD's own solve, and back (for tests and occasional
  // solves: the Lanczos iteration keeps its vectors in the order). One caller at a time.
  void solve(const Eigen::MatrixXd& b, Eigen::MatrixXd& x) const;
  // The fill-reducing order: entry k is the row of A the factor takes k-th (L Lᵀ = P A Pᵀ).
  Eigen::VectorXi order() const;
  // The same solve in that order, X = (P A Pᵀ)⁻¹ B: for a caller that keeps its vectors
  // permuted (the Lanczos basis, whose mass products gain the order's locality). On every core
  // (SupernodalSolve), one caller at a time.
  void solve_in_order(const Eigen::MatrixXd& b, Eigen::MatrixXd& x) const;
  // The cores solve_in_order uses (0: one per core, fewer on small factors), set before the
  // first solve; for tests.
  void set_solve_parts(int parts) { solve_parts_ = parts; }
  // Frees the numeric factor and the solve buffers (size() stays); solve() throws after it.
  void release();

 private:
  void solve_system(int system, const Eigen::MatrixXd& b, Eigen::MatrixXd& x) const;
  void analyse(const SparseMatrix& lower, SparseMatrix* taken, const NodeCorners& node_corners,
               double memory_limit_bytes);
  void factorize_in_order(const SparseMatrix& a_lower);
  struct State;
  std::unique_ptr<State> state_;
  FactorSize size_;
  Eigen::Index rows_ = 0;
  int solve_parts_ = 0;
};

// The node order CholmodFactor tries when given the nodes' corners (a dissection of the
// corners' graph that the other nodes follow), for a node-blocked lower pattern; empty for
// linear elements or a pattern that is not node-blocked. For tests.
std::vector<int> corner_dissection_node_order(const SparseMatrix& pattern_lower, const NodeCorners& corners);

// lower-triangle-stored symmetric matrix × dense block, by CHOLMOD's sdmult (four columns per
// pass over the matrix; Eigen's selfAdjointView product goes column by column).
Eigen::MatrixXd symmetric_times(const SparseMatrix& lower, const Eigen::MatrixXd& x);

}  // namespace mesh2dsp
