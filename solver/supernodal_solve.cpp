#include "supernodal_solve.hpp"

#include <cholmod.h>

#include <Eigen/CholmodSupport>

#include "cpu_clones.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cstring>

namespace mesh2dsp {

SupernodalCholesky::SupernodalCholesky(const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& lower,
                                       bool single_precision,
                                       const std::function<void(double)>& before_factorizing)
    : n_(static_cast<int>(lower.rows())), single_(single_precision) {
  cholmod_common common;
  cholmod_start(&common);
  common.supernodal = CHOLMOD_SUPERNODAL;
  // Every step pays for the fill: try the three orderings and keep the sparsest factor.
  common.nmethods = 3;
  common.method[0].ordering = CHOLMOD_AMD;
  common.method[1].ordering = CHOLMOD_METIS;
  common.method[2].ordering = CHOLMOD_NESDIS;
  common.postorder = 1;
  Eigen::SparseMatrix<double, Eigen::ColMajor, int> matrix = lower;  // CHOLMOD's view wants it mutable
  matrix.makeCompressed();
  cholmod_sparse a = Eigen::viewAsCholmod(matrix);
  a.stype = -1;  // symmetric, lower triangle stored
  cholmod_factor* factor = cholmod_analyze(&a, &common);
  if (factor && before_factorizing) {
    try {  // CHOLMOD's supernodal factor (xsize doubles) and our copy of it, double or float
      before_factorizing(static_cast<double>(factor->xsize) * (single_precision ? 12.0 : 16.0));
    } catch (...) {
      cholmod_free_factor(&factor, &common);
      cholmod_finish(&common);
      throw;
    }
  }
  const bool ok = factor && cholmod_factorize(&a, factor, &common) && common.status == CHOLMOD_OK &&
                  factor->minor == factor->n && factor->is_super;
  if (!ok) {
    if (factor) cholmod_free_factor(&factor, &common);
    cholmod_finish(&common);
    throw Error("the effective matrix K + (2/dt)C + (4/dt²)M is not positive definite "
                "(check the material and the mesh)");
  }
  switch (common.method[common.selected].ordering) {
    case CHOLMOD_AMD: ordering_ = "AMD"; break;
    case CHOLMOD_METIS: ordering_ = "METIS"; break;
    case CHOLMOD_NESDIS: ordering_ = "NESDIS"; break;
    default: ordering_ = "other";
  }
  const int nsuper = static_cast<int>(factor->nsuper);
  const int* perm = static_cast<const int*>(factor->Perm);
  const int* super = static_cast<const int*>(factor->super);
  const int* pi = static_cast<const int*>(factor->pi);
  const int* px = static_cast<const int*>(factor->px);
  const int* s = static_cast<const int*>(factor->s);
  const double* x = static_cast<const double*>(factor->x);
  perm_.assign(perm, perm + n_);
  super_.assign(super, super + nsuper + 1);
  row_start_.assign(pi, pi + nsuper + 1);
  value_start_.assign(px, px + nsuper + 1);
  rows_.assign(s, s + pi[nsuper]);
  const long values = px[nsuper];
  if (single_) values_f_.assign(x, x + values);
  else values_d_.assign(x, x + values);
  nonzeros_ = static_cast<long long>(common.method[common.selected].lnz);
  cholmod_free_factor(&factor, &common);
  cholmod_finish(&common);
  int widest = 0;
  for (int k = 0; k < nsuper; ++k) widest = std::max(widest, row_start_[k + 1] - row_start_[k]);
  y_.setZero(n_);
  gathered_.setZero(widest);
  inverse_diagonal_.resize(n_);
  for (int k = 0; k < nsuper; ++k)
    for (int j = super_[k]; j < super_[k + 1]; ++j) {
      const int rows = row_start_[k + 1] - row_start_[k];
      const long diagonal = value_start_[k] + static_cast<long>(j - super_[k]) * (rows + 1);
      inverse_diagonal_[j] = 1 / (single_ ? static_cast<double>(values_f_[diagonal]) : values_d_[diagonal]);
    }
}

namespace {

// The factor's layout, as the sweeps read it.
struct SweepLayout {
  int supernodes;
  const int* super;         // first column of each supernode
  const int* row_start;     // into rows
  const long* value_start;  // into the values
  const int* rows;          // each supernode's rows, its own columns first
  const double* inverse_diagonal;
};

// w[i] −= Σ_q column_q[i]·x[q] for rows from..rows−1, W columns (stride `rows`) in one pass.
template <int W, typename Value>
[[gnu::always_inline]] inline void subtract_columns(const Value* column, int rows, int from, const double* x, double* w) {
  // x points into w: copied to registers, or every store to w would reload them.
  Double4 scale[W];
  for (int q = 0; q < W; ++q) scale[q] = Double4{x[q], x[q], x[q], x[q]};
  int i = from;
  for (; i + 4 <= rows; i += 4) {
    Double4 sum = load4(w + i);
    for (int q = 0; q < W; ++q) sum -= load4(column + static_cast<long>(q) * rows + i) * scale[q];
    store4(w + i, sum);
  }
  for (; i < rows; ++i)
    for (int q = 0; q < W; ++q) w[i] -= static_cast<double>(column[static_cast<long>(q) * rows + i]) * scale[q][0];
}

// dot[q] = Σ_i column_q[i]·w[i] for rows from..rows−1, W columns in one pass (explicit 4-wide
// sums: GCC leaves several reductions in one loop scalar).
template <int W, typename Value>
[[gnu::always_inline]] inline void column_dots(const Value* column, int rows, int from, const double* w, double* dot) {
  // Two sums per column, alternating: one FMA's latency per 8 rows, not per 4.
  Double4 sum[W] = {}, other[W] = {};
  int i = from;
  for (; i + 8 <= rows; i += 8) {
    const Double4 x = load4(w + i), x_next = load4(w + i + 4);
    for (int q = 0; q < W; ++q) {
      sum[q] += load4(column + static_cast<long>(q) * rows + i) * x;
      other[q] += load4(column + static_cast<long>(q) * rows + i + 4) * x_next;
    }
  }
  for (; i + 4 <= rows; i += 4) {
    const Double4 x = load4(w + i);
    for (int q = 0; q < W; ++q) sum[q] += load4(column + static_cast<long>(q) * rows + i) * x;
  }
  for (int q = 0; q < W; ++q) {
    sum[q] += other[q];
    dot[q] = (sum[q][0] + sum[q][1]) + (sum[q][2] + sum[q][3]);
    for (int r = i; r < rows; ++r) dot[q] += static_cast<double>(column[static_cast<long>(q) * rows + r]) * w[r];
  }
}

// L Lᵀ y = y in place (permuted order), column by column over each supernode's dense block
// (column-major, leading dimension its row count), its rows gathered in `w`. Up to four columns
// at a time: the forward sweep subtracts them from the rows below in one pass, the backward
// sweep takes their dot products in one pass, so each value is loaded once and `w` a quarter as
// often. Vectors and sums are double whatever the factor's type: a float factor then halves the
// bytes a sweep reads and adds only its own rounding (solver/README.md).
// Supernode k: its first column, column and row counts, dense block, row indices and the
// inverses of its diagonal.
template <typename Value>
struct Supernode {
  int first, columns, rows;
  const Value* block;
  const int* row;
  const double* inverse;
};
template <typename Value>
[[gnu::always_inline]] inline Supernode<Value> supernode(const SweepLayout& f, const Value* values, int k) {
  const int first = f.super[k];
  return {first, f.super[k + 1] - first, f.row_start[k + 1] - f.row_start[k], values + f.value_start[k],
          f.rows + f.row_start[k], f.inverse_diagonal + first};
}

template <typename Value>
[[gnu::always_inline]] inline void sweep_layout(const SweepLayout& f, const Value* values, double* y, double* w) {
  for (int k = 0; k < f.supernodes; ++k) {
    const auto [first, columns, rows, block, row, inverse] = supernode(f, values, k);
    for (int i = 0; i < columns; ++i) w[i] = y[first + i];
    for (int i = columns; i < rows; ++i) w[i] = 0;
    for (int j0 = 0; j0 < columns; j0 += 4) {
      const int width = std::min(4, columns - j0), below = j0 + width;
      for (int j = j0; j < below; ++j) {  // the small triangle of these columns
        w[j] *= inverse[j];
        for (int i = j + 1; i < below; ++i) w[i] -= static_cast<double>(block[i + static_cast<long>(j) * rows]) * w[j];
      }
      const Value* column = block + static_cast<long>(j0) * rows;
      switch (width) {
        case 4: subtract_columns<4>(column, rows, below, w + j0, w); break;
        case 3: subtract_columns<3>(column, rows, below, w + j0, w); break;
        case 2: subtract_columns<2>(column, rows, below, w + j0, w); break;
        default: subtract_columns<1>(column, rows, below, w + j0, w);
      }
    }
    for (int i = 0; i < columns; ++i) y[first + i] = w[i];
    for (int i = columns; i < rows; ++i) y[row[i]] += w[i];
  }
  for (int k = f.supernodes - 1; k >= 0; --k) {
    const auto [first, columns, rows, block, row, inverse] = supernode(f, values, k);
    for (int i = 0; i < columns; ++i) w[i] = y[first + i];
    for (int i = columns; i < rows; ++i) w[i] = y[row[i]];
    for (int j1 = columns; j1 > 0; j1 -= 4) {
      const int j0 = std::max(0, j1 - 4);
      double dot[4];
      const Value* column = block + static_cast<long>(j0) * rows;
      switch (j1 - j0) {
        case 4: column_dots<4>(column, rows, j1, w, dot); break;
        case 3: column_dots<3>(column, rows, j1, w, dot); break;
        case 2: column_dots<2>(column, rows, j1, w, dot); break;
        default: column_dots<1>(column, rows, j1, w, dot);
      }
      for (int j = j1 - 1; j >= j0; --j) {  // the small triangle, transposed
        double sum = w[j] - dot[j - j0];
        for (int i = j + 1; i < j1; ++i) sum -= static_cast<double>(block[i + static_cast<long>(j) * rows]) * w[i];
        w[j] = sum * inverse[j];
      }
    }
    for (int i = 0; i < columns; ++i) y[first + i] = w[i];
  }
}

MESH2DSP_CPU_CLONES void sweep_double(const SweepLayout& f, const double* values, double* y, double* w) {
  sweep_layout(f, values, y, w);
}
MESH2DSP_CPU_CLONES void sweep_float(const SweepLayout& f, const float* values, double* y, double* w) {
  sweep_layout(f, values, y, w);
}

}  // namespace

void SupernodalCholesky::solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) {
  x.resize(n_);
  for (int k = 0; k < n_; ++k) y_[k] = b[perm_[k]];
  const SweepLayout layout{static_cast<int>(super_.size()) - 1, super_.data(), row_start_.data(),
                           value_start_.data(), rows_.data(), inverse_diagonal_.data()};
  if (single_) sweep_float(layout, values_f_.data(), y_.data(), gathered_.data());
  else sweep_double(layout, values_d_.data(), y_.data(), gathered_.data());
  for (int k = 0; k < n_; ++k) x[perm_[k]] = y_[k];
}

}  // namespace mesh2dsp
