#pragma once
// Forward and back substitution, L Lᵀ X = B, with a supernodal Cholesky factor in CHOLMOD's
// layout, for a block of a few right-hand sides (the Lanczos step's eight), on every core.
//
// Why not cholmod_solve2: it runs on one core, and a block solve, which reads the whole factor
// twice, is bound by memory: 145 ms for 8 right-hand sides with spot's 304 MB factor (4.2 GB/s,
// where this machine streams 8 GB/s on one core and 15 GB/s on two), and splitting the
// right-hand sides between two cholmod_solve2 calls on two cores gained 6 % (each reads the whole
// factor). Here the factor's elimination tree is cut into one set of subtrees per core, of about
// equal size, and the separators above them: the subtrees are substituted at once, each core
// reading only its part of the factor, and the separators (12 % of spot's factor) after them on
// one core. The right-hand sides are kept row by row, so each factor entry is one vector
// multiply-add on a row; columns are taken four at a time and the next factor entries and rows
// prefetched. Spot's block solve: 145 -> 55 ms, the same modes to the printed digit.
#include <Eigen/Core>
#include <vector>

namespace mesh2dsp {

// A supernodal factor as CHOLMOD stores it (cholmod_factor's super, pi, px, s and x).
struct SupernodalFactorView {
  int rows = 0;
  int supernodes = 0;
  const int* first_column = nullptr;  // supernode s holds columns first_column[s] .. first_column[s+1]-1
  const int* row_start = nullptr;     // its row indices are row_index[row_start[s] .. row_start[s+1]-1]
  const int* value_start = nullptr;   // its values start at values[value_start[s]], column-major,
                                      // leading dimension its row count; the first rows are its columns
  const int* row_index = nullptr;
  const double* values = nullptr;
};

class SupernodalSolve {
 public:
  // The schedule for `parts` cores (1: serial); the factor's arrays must outlive this object.
  SupernodalSolve(const SupernodalFactorView& factor, int parts);

  // X = (L Lᵀ)⁻¹ B in the factor's own (permuted) order; `x` is resized.
  void solve(const Eigen::MatrixXd& b, Eigen::MatrixXd& x);

  int parts() const { return static_cast<int>(subtrees_.size()); }

 private:
  template <int W>
  void solve_block(double* x);

  SupernodalFactorView f_;
  std::vector<std::vector<int>> subtrees_;  // each core's supernodes, ascending (children first)
  std::vector<int> separators_;             // the rest, ascending
  std::vector<int> separator_row_;          // row → its index among the separators' rows, or −1
  int separator_rows_ = 0;
  std::vector<std::vector<double>> update_;    // per core: its updates of the separators' rows
  std::vector<std::vector<double>> scratch_;   // per core: a supernode's off-diagonal rows
  std::vector<double> work_;                   // B's columns, a block of W at a time, row-major
};

}  // namespace mesh2dsp
