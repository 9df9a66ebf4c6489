// The time loop's own supernodal triangular sweeps (solver/supernodal_solve.cpp) solve K_eff
// x = b as a dense Cholesky solve does, for the double and the float factor, on matrices whose
// supernodes have every panel width and row count (issue 12, item 3).
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <random>

#include "fem/assembly.hpp"
#include "fem/fem_mesh.hpp"
#include "fem/material.hpp"
#include "fem/structured_box.hpp"
#include "supernodal_solve.hpp"
#include "util/error.hpp"

using namespace mesh2dsp;

namespace {

using ColMajor = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

// max |x − x_dense| / max |x_dense| for a random right-hand side.
double solve_error(const ColMajor& lower, bool single_precision, unsigned seed) {
  SupernodalCholesky factor(lower, single_precision);
  const Eigen::MatrixXd dense = Eigen::MatrixXd(lower).selfadjointView<Eigen::Lower>();
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  Eigen::VectorXd b(lower.rows()), x;
  for (Eigen::Index i = 0; i < b.size(); ++i) b[i] = normal(rng);
  factor.solve(b, x);
  const Eigen::VectorXd expected = dense.llt().solve(b);
  return (x - expected).cwiseAbs().maxCoeff() / expected.cwiseAbs().maxCoeff();
}

// A random sparse SPD matrix of size n: a random pattern (each row couples `per_row` others)
// made diagonally dominant.
ColMajor random_spd_lower(int n, int per_row, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> column(0, n - 1);
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<Eigen::Triplet<double>> entries;
  Eigen::VectorXd row_sum = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < n; ++i)
    for (int e = 0; e < per_row; ++e) {
      const int j = column(rng);
      if (j == i) continue;
      const double v = value(rng);
      entries.emplace_back(std::max(i, j), std::min(i, j), v);
      row_sum[i] += std::abs(v), row_sum[j] += std::abs(v);
    }
  for (int i = 0; i < n; ++i) entries.emplace_back(i, i, row_sum[i] + 1);
  ColMajor lower(n, n);
  lower.setFromTriplets(entries.begin(), entries.end());  // duplicates summed: still dominant
  return lower;
}

}  // namespace

TEST(SupernodalSolve, SolvesRandomSparseMatricesOfEverySize) {
  // Sizes from 1 to a few hundred, sparse and dense: supernodes of 1 to many columns, panels of
  // width 1 to 4, row counts of every remainder modulo the tiles' eight rows.
  int cases = 0;
  for (int n : {1, 2, 3, 5, 7, 9, 17, 31, 64, 101, 257})
    for (int per_row : {1, 3, 12}) {
      const ColMajor lower = random_spd_lower(n, per_row, 11u * n + per_row);
      EXPECT_LT(solve_error(lower, false, n), 1e-12) << "n " << n << ", per row " << per_row;
      EXPECT_LT(solve_error(lower, true, n), 1e-5) << "float factor, n " << n << ", per row " << per_row;
      ++cases;
    }
  EXPECT_EQ(cases, 33);
}

TEST(SupernodalSolve, SolvesAP2EffectiveMatrixAsADenseCholeskyDoes) {
  // K + (4/Δt²)M of a small P2 bar at 48 kHz, the matrix the time loop factors.
  const TetMesh bar = structured_box({0, 0, 0}, {0.12, 0.02, 0.015}, 6, 2, 2);
  const FemMatrices fem = assemble_fem_matrices(make_fem_mesh(bar, 2), find_material_preset("steel"));
  const double dt_s = 1.0 / 48000;
  const ColMajor lower = fem.stiffness + (4 / (dt_s * dt_s)) * fem.mass;
  EXPECT_LT(solve_error(lower, false, 3), 1e-12);
  EXPECT_LT(solve_error(lower, true, 3), 1e-5);
}

TEST(SupernodalSolve, RefusesAnIndefiniteMatrix) {
  ColMajor lower = random_spd_lower(20, 3, 5);
  lower.coeffRef(7, 7) = -50;
  EXPECT_THROW(SupernodalCholesky(lower, true), Error);
}
