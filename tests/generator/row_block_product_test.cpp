// The Lanczos step's row-block kernels against Eigen's own products and copies: every width the
// step uses (8 and 24) and others, on enough rows to be split among the cores.
#include <gtest/gtest.h>

#include <vector>

#include "fem/assembly.hpp"
#include "fem/fem_mesh.hpp"
#include "fem/structured_box.hpp"
#include "modal/row_block_product.hpp"

using namespace mesh2dsp;

TEST(RowBlockProduct, MatchesEigensProductAtEveryWidth) {
  const TetMesh box = structured_box({0, 0, 0}, {0.2, 0.1, 0.1}, 12, 6, 6);
  const FemMatrices fem = assemble_fem_matrices(make_fem_mesh(box, 2), find_material_preset("steel"));
  RowMajorSparse m = symmetric_from_lower(fem.mass);
  m.makeCompressed();
  const int n = static_cast<int>(m.rows());
  ASSERT_GT(n, 2 * 4096);  // split among the cores where there are two
  for (int columns : {1, 3, 8, 11, 16, 24, 32}) {
    const Eigen::MatrixXd x = Eigen::MatrixXd::Random(n, columns);
    std::vector<double> rows(static_cast<std::size_t>(n) * columns), product(rows.size());
    copy_to_rows(x, 0, columns, rows.data());
    for (int r = 0; r < n; r += 997)
      for (int c = 0; c < columns; ++c) ASSERT_EQ(rows[static_cast<std::size_t>(r) * columns + c], x(r, c));
    sparse_times_row_block(m, rows.data(), columns, product.data());
    Eigen::MatrixXd y = Eigen::MatrixXd::Zero(n, columns + 2);
    copy_from_rows(product.data(), 1, columns, y);
    const Eigen::MatrixXd want = m * x;
    EXPECT_LT((y.middleCols(1, columns) - want).cwiseAbs().maxCoeff(), 1e-14 * want.cwiseAbs().maxCoeff())
        << columns << " columns";
    EXPECT_EQ(y.col(0).cwiseAbs().maxCoeff(), 0) << "a column outside the copy was written";
    EXPECT_EQ(y.col(columns + 1).cwiseAbs().maxCoeff(), 0) << "a column outside the copy was written";
  }
}
