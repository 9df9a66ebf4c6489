#pragma once
// y = A x for a sparse A stored by rows and a block x of a few columns kept row by row
// (row-major: `width` values a row), the rows of A split among the cores. The Lanczos step's
// mass products: each matrix entry is one vector multiply-add on a row of x, where Eigen's
// sparse-times-dense product, built for the baseline x86-64, took about twice as long (spot's
// mass products with their copies between storage orders: 10 -> 4 ms each).
#include "fem/assembly.hpp"

namespace mesh2dsp {

// `a` compressed; x: a.cols() rows, y: a.rows() rows, `width` values each.
void sparse_times_row_block(const RowMajorSparse& a, const double* x, int width, double* y);

// Columns first..first+width of x, row by row, into `rows` (x.rows() × width values), and back:
// on every core (Eigen's assignment between the two storage orders took 2.4 ms for spot's
// 94 k × 8 block, as long as the product itself).
void copy_to_rows(const Eigen::MatrixXd& x, int first, int width, double* rows);
void copy_from_rows(const double* rows, int first, int width, Eigen::MatrixXd& x);

}  // namespace mesh2dsp
