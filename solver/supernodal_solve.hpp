#pragma once
// K_eff x = b for the time loop: a sparse Cholesky factor computed once by CHOLMOD
// (supernodal, the ordering with the least fill among AMD, METIS and nested dissection) and
// solved by our own serial supernodal triangular sweeps (issue 12, item 3):
//   - no allocation per solve (CHOLMOD's cholmod_solve allocates its dense results each call);
//   - no BLAS threads to spin: each supernode's dense triangle and rectangle are small;
//   - our own copy of the factor in panels of four columns, stored as tiles in the order the
//     sweeps read them (one stream, no partial cache lines), prefetched ahead in software;
//     AVX2 + FMA where the CPU has them (chosen at load time; AVX-512 was no faster: the sweeps
//     are bound by reading the factor);
//   - the factor in single precision (the reference's default) with double vectors and sums: half the bytes,
//     and only the factor's rounding (no float rounding of the state). The error this adds is
//     measured (tests/solver, "single precision") against the double render and reported in
//     solver/README.md.
#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <functional>
#include <vector>

namespace mesh2dsp {

class SupernodalCholesky {
 public:
  // `lower`: the lower triangle of a symmetric positive definite matrix (column-major).
  // Throws mesh2dsp::Error when it is not positive definite.
  // `before_factorizing`, when given, is called after the symbolic analysis with the bytes the
  // numeric factor will take (CHOLMOD's and our copy): it may throw to refuse a factor that
  // would not fit in memory, before any of it is allocated.
  SupernodalCholesky(const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& lower, bool single_precision,
                     const std::function<void(double factor_bytes)>& before_factorizing = {});
  // x = A⁻¹ b; `x` may alias nothing; no allocation.
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x);
  long long nonzeros() const { return nonzeros_; }
  const char* ordering() const { return ordering_; }
  bool single_precision() const { return single_; }

  // A panel: up to kPanel columns of a supernode, stored as its small triangle (kPanel² values,
  // column-major, strictly lower part) and then its rows below the triangle in tiles of
  // kTileRows rows × the panel's columns (column after column within a tile, the last tile
  // zero-padded).
  static constexpr int kPanel = 4;
  static constexpr int kTileRows = 8;

 private:
  static constexpr int kAlignValues = 16;  // values of slack to start the panels on a cache line
  static int tiles(int rows) { return (rows + kTileRows - 1) / kTileRows; }
  // Values the panels of a supernodal factor take (CHOLMOD's super and pi arrays), with slack.
  static long panel_values(const int* super, const int* row_start, int supernodes);
  template <typename Value>
  void copy_to_panels(const double* blocks, const int* block_start, std::vector<Value>& values);

  int n_ = 0;
  bool single_ = false;
  long long nonzeros_ = 0;
  const char* ordering_ = "?";
  std::vector<int> perm_;              // factor row k is matrix row perm_[k]
  std::vector<int> super_;             // first column of each supernode (nsuper + 1)
  std::vector<int> row_start_;         // into rows_ (nsuper + 1)
  std::vector<int> rows_;              // row indices of every supernode, its own columns first
  std::vector<int> supernode_panels_;  // first panel of each supernode (nsuper + 1)
  std::vector<long> panel_start_;      // into the values, from values_shift_
  long values_shift_ = 0;
  std::vector<double> values_d_;       // the panels, double or float
  std::vector<float> values_f_;
  std::vector<double> inverse_diagonal_;  // 1 / L's diagonal, in double for either factor
  Eigen::VectorXd y_, gathered_;
};

}  // namespace mesh2dsp
