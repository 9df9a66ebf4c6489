#include "modal/row_block_product.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>

#include "util/error.hpp"
#include "util/run_parts.hpp"
#include "util/vector_clones.hpp"

namespace mesh2dsp {
namespace {

constexpr int kEntriesAhead = 8;  // rows of x prefetched ahead of the entries that read them

// Rows begin..end of y = A x, for a row `8 × Chunks` values wide.
template <int Chunks>
MESH2DSP_INLINE void rows_times_block(const RowMajorSparse& a, const double* x, double* y, int begin, int end) {
  using Row = RowOf<8>::type;
  constexpr int width = 8 * Chunks;
  const int* start = a.outerIndexPtr();
  const int* column = a.innerIndexPtr();
  const double* value = a.valuePtr();
  const int last = start[a.rows()];
  for (int i = begin; i < end; ++i) {
    Row sum[Chunks] = {};
    for (int k = start[i]; k < start[i + 1]; ++k) {
      if (k + kEntriesAhead < last) __builtin_prefetch(x + static_cast<std::ptrdiff_t>(column[k + kEntriesAhead]) * width);
      const Row* row = reinterpret_cast<const Row*>(x + static_cast<std::ptrdiff_t>(column[k]) * width);
      for (int c = 0; c < Chunks; ++c) sum[c] += value[k] * row[c];
    }
    Row* out = reinterpret_cast<Row*>(y + static_cast<std::ptrdiff_t>(i) * width);
    for (int c = 0; c < Chunks; ++c) out[c] = sum[c];
  }
}

// Any other width, value by value.
MESH2DSP_INLINE void rows_times_any_block(const RowMajorSparse& a, const double* x, int width, double* y, int begin,
                                          int end) {
  const int* start = a.outerIndexPtr();
  for (int i = begin; i < end; ++i) {
    double* out = y + static_cast<std::ptrdiff_t>(i) * width;
    std::fill(out, out + width, 0.0);
    for (int k = start[i]; k < start[i + 1]; ++k) {
      const double* row = x + static_cast<std::ptrdiff_t>(a.innerIndexPtr()[k]) * width;
      for (int c = 0; c < width; ++c) out[c] += a.valuePtr()[k] * row[c];
    }
  }
}

MESH2DSP_VECTOR_CLONES void rows_times(const RowMajorSparse& a, const double* x, int width, double* y, int begin,
                                       int end) {
  switch (width) {
    case 8: rows_times_block<1>(a, x, y, begin, end); break;
    case 16: rows_times_block<2>(a, x, y, begin, end); break;
    case 24: rows_times_block<3>(a, x, y, begin, end); break;
    case 32: rows_times_block<4>(a, x, y, begin, end); break;
    default: rows_times_any_block(a, x, width, y, begin, end); break;
  }
}


}  // namespace

void copy_to_rows(const Eigen::MatrixXd& x, int first, int width, double* rows) {
  const Eigen::Index n = x.rows();
  run_row_parts(static_cast<int>(n), [&](int begin, int end) {
    const double* columns = x.data() + first * n;
    for (int r = begin; r < end; ++r)
      for (int c = 0; c < width; ++c) rows[static_cast<std::ptrdiff_t>(r) * width + c] = columns[c * n + r];
  });
}

void copy_from_rows(const double* rows, int first, int width, Eigen::MatrixXd& x) {
  const Eigen::Index n = x.rows();
  run_row_parts(static_cast<int>(n), [&](int begin, int end) {
    double* columns = x.data() + first * n;
    for (int r = begin; r < end; ++r)
      for (int c = 0; c < width; ++c) columns[c * n + r] = rows[static_cast<std::ptrdiff_t>(r) * width + c];
  });
}

void sparse_times_row_block(const RowMajorSparse& a, const double* x, int width, double* y) {
  if (!a.isCompressed()) throw Error("internal: the row-block product needs a compressed matrix");
  run_row_parts(static_cast<int>(a.rows()), [&](int begin, int end) { rows_times(a, x, width, y, begin, end); });
}

}  // namespace mesh2dsp
