#include "supernodal_solve.hpp"

#include <cholmod.h>

#include <Eigen/CholmodSupport>

#include "cpu_clones.hpp"
#include "util/error.hpp"
#include "util/serial_threads.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

// Double4 values cross only always-inlined helpers: the ABI note GCC gives for them does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace mesh2dsp {

long SupernodalCholesky::panel_values(const int* super, const int* row_start, int supernodes) {
  long size = kAlignValues;  // room to align the start
  for (int k = 0; k < supernodes; ++k) {
    const int columns = super[k + 1] - super[k], rows = row_start[k + 1] - row_start[k];
    for (int j0 = 0; j0 < columns; j0 += kPanel) {
      const int width = std::min(kPanel, columns - j0), below = j0 + width;
      size += kPanel * kPanel + static_cast<long>(width) * tiles(rows - below) * kTileRows;
    }
  }
  return size;
}

SupernodalCholesky::SupernodalCholesky(const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& lower,
                                       bool single_precision,
                                       const std::function<void(double)>& before_factorizing)
    : n_(static_cast<int>(lower.rows())), single_(single_precision) {
  // Factorized on one thread: after a threaded factorization OpenBLAS's idle workers spin on
  // sched_yield for ~0.1 s, into the time loop this factor is for (short renders took twice
  // their wall time in CPU, 40–100 % of it system time). Bundled P2 bar: 0.25 → 0.32 s.
  const SerialThreads serial;
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
    try {  // CHOLMOD's supernodal factor (xsize doubles) and our panels, double or float
      const double panels = static_cast<double>(panel_values(static_cast<const int*>(factor->super),
                                                             static_cast<const int*>(factor->pi),
                                                             static_cast<int>(factor->nsuper)));
      before_factorizing(8.0 * static_cast<double>(factor->xsize) + panels * (single_precision ? 4.0 : 8.0));
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
  perm_.assign(perm, perm + n_);
  super_.assign(super, super + nsuper + 1);
  row_start_.assign(pi, pi + nsuper + 1);
  rows_.assign(s, s + pi[nsuper]);
  nonzeros_ = static_cast<long long>(common.method[common.selected].lnz);
  const double* x = static_cast<const double*>(factor->x);
  if (single_) copy_to_panels(x, px, values_f_);
  else copy_to_panels(x, px, values_d_);
  cholmod_free_factor(&factor, &common);
  cholmod_finish(&common);
  int widest = 0;
  for (int k = 0; k < nsuper; ++k) widest = std::max(widest, row_start_[k + 1] - row_start_[k]);
  y_.setZero(n_);
  gathered_.setZero(widest + kTileRows);
}

template <typename Value>
void SupernodalCholesky::copy_to_panels(const double* blocks, const int* block_start, std::vector<Value>& values) {
  // Panels start at multiples of kTileRows values from a cache line's start (values_shift_ in):
  // no vector load splits a line.
  const int nsuper = static_cast<int>(super_.size()) - 1;
  values.assign(panel_values(super_.data(), row_start_.data(), nsuper), Value(0));
  const auto address = reinterpret_cast<std::uintptr_t>(values.data());
  values_shift_ = static_cast<long>((64 - address % 64) % 64 / sizeof(Value));
  inverse_diagonal_.resize(n_);
  panel_start_.clear();
  supernode_panels_.assign(1, 0);
  long at = 0;
  for (int k = 0; k < nsuper; ++k) {
    const int first = super_[k], columns = super_[k + 1] - first, rows = row_start_[k + 1] - row_start_[k];
    const double* block = blocks + block_start[k];  // column-major, leading dimension `rows`
    const auto entry = [&](int i, int j) { return block[i + static_cast<long>(j) * rows]; };
    for (int j = 0; j < columns; ++j) inverse_diagonal_[first + j] = 1 / static_cast<double>(static_cast<Value>(entry(j, j)));
    for (int j0 = 0; j0 < columns; j0 += kPanel) {
      const int width = std::min(kPanel, columns - j0), below = j0 + width;
      panel_start_.push_back(at);
      for (int j = 0; j < width; ++j)  // the small triangle, strictly below its diagonal
        for (int i = j + 1; i < width; ++i) values[values_shift_ + at + i + kPanel * j] = static_cast<Value>(entry(j0 + i, j0 + j));
      at += kPanel * kPanel;
      for (int t = below; t < rows; t += kTileRows)  // tiles of kTileRows rows × width columns
        for (int q = 0; q < width; ++q, at += kTileRows)
          for (int r = 0; r < kTileRows && t + r < rows; ++r) values[values_shift_ + at + r] = static_cast<Value>(entry(t + r, j0 + q));
    }
    supernode_panels_.push_back(static_cast<int>(panel_start_.size()));
  }
}

namespace {

constexpr int kPanel = SupernodalCholesky::kPanel;
constexpr int kTileRows = SupernodalCholesky::kTileRows;

// The factor's layout, as the sweeps read it.
struct SweepLayout {
  int supernodes;
  const int* super;              // first column of each supernode
  const int* row_start;          // into rows
  const int* rows;               // each supernode's rows, its own columns first
  const int* supernode_panels;   // first panel of each supernode
  const long* panel_start;       // into the values
  const double* inverse_diagonal;
};

// The hardware's prefetchers lose the stream at every panel (short runs, and the backward sweep
// walks the panels downwards): each tile asks for the lines this far ahead in the order the
// sweep reads them. Tuned on the bundled P2 bar: its float solve 0.89 → 0.71 ms (Sapphire Rapids).
// (In values: the double factor, read at half the values per second, gained from the same
// distances too, 85 → 81 CPU s per simulated second.)
constexpr long kForwardPrefetchValues = 256, kBackwardPrefetchValues = 1024;

// Prefetches the lines of one tile of W columns at `tile + offset`.
template <int W, typename Value>
[[gnu::always_inline]] inline void prefetch_tile(const Value* tile, long offset) {
  // As an integer: the address may lie outside the array (a prefetch never faults).
  const auto at = reinterpret_cast<std::uintptr_t>(tile) + static_cast<std::uintptr_t>(offset * static_cast<long>(sizeof(Value)));
  for (int line = 0; line < W * kTileRows * static_cast<int>(sizeof(Value)); line += 64)
    __builtin_prefetch(reinterpret_cast<const void*>(at + static_cast<std::uintptr_t>(line)));
}

// w[i] −= Σ_q L[i, q]·x[q] for the rows from..rows−1 of one panel (W columns, tiles of
// kTileRows rows, column after column). The last tile is zero-padded: it writes up to
// kTileRows − 1 values past `rows` into `w`'s slack, which nothing reads.
template <int W, typename Value>
[[gnu::always_inline]] inline void subtract_panel(const Value* tile, int rows, int from, const double* x, double* w) {
  // x points into w: copied to registers, or every store to w would reload them.
  Double4 scale[W];
  for (int q = 0; q < W; ++q) scale[q] = Double4{} + x[q];
  for (int i = from; i < rows; i += kTileRows, tile += W * kTileRows) {
    prefetch_tile<W>(tile, kForwardPrefetchValues);
    for (int h = 0; h < kTileRows; h += 4) {
      Double4 sum = load4(w + i + h);
      for (int q = 0; q < W; ++q) sum -= load4(tile + q * kTileRows + h) * scale[q];
      store4(w + i + h, sum);
    }
  }
}

// dot[q] = Σ_i L[i, q]·w[i] over the rows from..rows−1 of one panel (explicit 4-wide sums: GCC
// leaves several reductions in one loop scalar). The padded rows are zero, and so is `w` there.
template <int W, typename Value>
[[gnu::always_inline]] inline void panel_dots(const Value* tile, int rows, int from, const double* w, double* dot) {
  constexpr int kParts = kTileRows / 4;  // independent sums per column: FMA latency overlaps
  Double4 sum[W][kParts] = {};
  for (int i = from; i < rows; i += kTileRows, tile += W * kTileRows) {
    prefetch_tile<W>(tile, -kBackwardPrefetchValues);  // the panels before this one
    for (int h = 0; h < kParts; ++h) {
      const Double4 x = load4(w + i + 4 * h);
      for (int q = 0; q < W; ++q) sum[q][h] += load4(tile + q * kTileRows + 4 * h) * x;
    }
  }
  for (int q = 0; q < W; ++q) {
    Double4 s = sum[q][0];
    for (int h = 1; h < kParts; ++h) s += sum[q][h];
    dot[q] = (s[0] + s[1]) + (s[2] + s[3]);
  }
}

// L Lᵀ y = y in place (permuted order), supernode by supernode, its rows gathered in `w`. Each
// supernode is cut into panels of up to kPanel columns, stored as their small triangle and then
// tiles of kTileRows rows × the panel's columns, so a sweep reads the factor as one stream (the
// forward sweep forwards, the backward sweep panel by panel backwards). Per panel, the forward
// sweep subtracts its columns from the rows below in one pass and the backward sweep takes
// their dot products in one pass: each value is loaded once and `w` a quarter as often.
// Vectors and sums are double whatever the factor's type: a float factor then halves the bytes
// a sweep reads and adds only its own rounding (solver/README.md).
// Supernode k: its first column, column and row counts, row indices and the inverses of its
// diagonal.
struct Supernode {
  int first, columns, rows;
  const int* row;
  const double* inverse;
};
[[gnu::always_inline]] inline Supernode supernode(const SweepLayout& f, int k) {
  const int first = f.super[k];
  return {first, f.super[k + 1] - first, f.row_start[k + 1] - f.row_start[k], f.rows + f.row_start[k],
          f.inverse_diagonal + first};
}

template <typename Value>
[[gnu::always_inline]] inline void sweep_layout(const SweepLayout& f, const Value* values, double* y, double* w) {
  for (int k = 0; k < f.supernodes; ++k) {
    const auto [first, columns, rows, row, inverse] = supernode(f, k);
    for (int i = 0; i < columns; ++i) w[i] = y[first + i];
    for (int i = columns; i < rows; ++i) w[i] = 0;
    int panel = f.supernode_panels[k];
    for (int j0 = 0; j0 < columns; j0 += kPanel, ++panel) {
      const int width = std::min(kPanel, columns - j0), below = j0 + width;
      const Value* triangle = values + f.panel_start[panel];
      for (int j = 0; j < width; ++j) {
        w[j0 + j] *= inverse[j0 + j];
        for (int i = j + 1; i < width; ++i) w[j0 + i] -= static_cast<double>(triangle[i + kPanel * j]) * w[j0 + j];
      }
      const Value* tiles = triangle + kPanel * kPanel;
      switch (width) {
        case 4: subtract_panel<4>(tiles, rows, below, w + j0, w); break;
        case 3: subtract_panel<3>(tiles, rows, below, w + j0, w); break;
        case 2: subtract_panel<2>(tiles, rows, below, w + j0, w); break;
        default: subtract_panel<1>(tiles, rows, below, w + j0, w);
      }
    }
    for (int i = 0; i < columns; ++i) y[first + i] = w[i];
    for (int i = columns; i < rows; ++i) y[row[i]] += w[i];
  }
  for (int k = f.supernodes - 1; k >= 0; --k) {
    const auto [first, columns, rows, row, inverse] = supernode(f, k);
    for (int i = 0; i < columns; ++i) w[i] = y[first + i];
    for (int i = columns; i < rows; ++i) w[i] = y[row[i]];
    for (int i = rows; i < rows + kTileRows; ++i) w[i] = 0;
    int panel = f.supernode_panels[k + 1] - 1;
    for (int j0 = (columns - 1) / kPanel * kPanel; j0 >= 0; j0 -= kPanel, --panel) {
      const int width = std::min(kPanel, columns - j0), below = j0 + width;
      const Value* triangle = values + f.panel_start[panel];
      const Value* tiles = triangle + kPanel * kPanel;
      double dot[kPanel];
      switch (width) {
        case 4: panel_dots<4>(tiles, rows, below, w, dot); break;
        case 3: panel_dots<3>(tiles, rows, below, w, dot); break;
        case 2: panel_dots<2>(tiles, rows, below, w, dot); break;
        default: panel_dots<1>(tiles, rows, below, w, dot);
      }
      for (int j = width - 1; j >= 0; --j) {  // the small triangle, transposed
        double sum = w[j0 + j] - dot[j];
        for (int i = j + 1; i < width; ++i) sum -= static_cast<double>(triangle[i + kPanel * j]) * w[j0 + i];
        w[j0 + j] = sum * inverse[j0 + j];
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
  const SweepLayout layout{static_cast<int>(super_.size()) - 1, super_.data(), row_start_.data(), rows_.data(),
                           supernode_panels_.data(), panel_start_.data(), inverse_diagonal_.data()};
  if (single_) sweep_float(layout, values_f_.data() + values_shift_, y_.data(), gathered_.data());
  else sweep_double(layout, values_d_.data() + values_shift_, y_.data(), gathered_.data());
  for (int k = 0; k < n_; ++k) x[perm_[k]] = y_[k];
}

}  // namespace mesh2dsp
