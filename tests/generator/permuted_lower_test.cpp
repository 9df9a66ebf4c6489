// The symmetric permutation the factorization makes of K − σM: P A Pᵀ's lower triangle, against
// Eigen's own permutation of the whole matrix, on one core and on several (a matrix of over two
// million entries is split among the cores).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "fem/assembly.hpp"
#include "modal/cholmod_factor.hpp"
#include "modal/permuted_lower.hpp"
#include "util/error.hpp"

using namespace mesh2dsp;

namespace {

// A random symmetric matrix's lower triangle: `per_column` entries below the diagonal of each
// column, a dominant diagonal (positive definite).
SparseMatrix random_lower(int n, int per_column, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> row(0, n - 1);
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<Eigen::Triplet<double>> entries;
  for (int c = 0; c < n; ++c) {
    entries.emplace_back(c, c, 4.0 * per_column);
    for (int k = 0; k < per_column; ++k) {
      const int r = row(random);
      if (r > c) entries.emplace_back(r, c, value(random));
    }
  }
  SparseMatrix a(n, n);
  a.setFromTriplets(entries.begin(), entries.end());
  a.makeCompressed();
  return a;
}

std::vector<int> random_order(int n, unsigned seed) {
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  return order;
}

// The lower triangle of P A Pᵀ through Eigen (order[k]: the row of A taken k-th).
SparseMatrix expected_permuted_lower(const SparseMatrix& lower, const std::vector<int>& order) {
  const int n = static_cast<int>(lower.rows());
  Eigen::VectorXi position(n);
  for (int k = 0; k < n; ++k) position[order[k]] = k;
  const Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> p(position);
  const SparseMatrix full = symmetric_from_lower(lower);
  SparseMatrix permuted = p * full * p.transpose();
  SparseMatrix out = permuted.triangularView<Eigen::Lower>();
  out.makeCompressed();
  return out;
}

// The same entries with each column's rows sorted (permuted_lower leaves them unsorted).
SparseMatrix sorted(const SparseMatrix& a) {
  std::vector<Eigen::Triplet<double>> entries;
  for (int c = 0; c < a.outerSize(); ++c)
    for (SparseMatrix::InnerIterator it(a, c); it; ++it) entries.emplace_back(it.row(), it.col(), it.value());
  SparseMatrix out(a.rows(), a.cols());
  out.setFromTriplets(entries.begin(), entries.end());
  return out;
}

}  // namespace

TEST(PermutedLower, MatchesEigensPermutationOnOneCoreAndOnSeveral) {
  // 2 k columns (one core) and 40 k columns of about 60 entries (2.4 M entries: split).
  for (const auto& [n, per_column] : {std::pair{2000, 10}, std::pair{40000, 120}}) {
    const SparseMatrix lower = random_lower(n, per_column, 7);
    const std::vector<int> order = random_order(n, 11);
    const SparseMatrix ours = permuted_lower(lower, order.data());
    ASSERT_EQ(ours.rows(), n);
    ASSERT_TRUE(ours.isCompressed());
    EXPECT_EQ(ours.nonZeros(), lower.nonZeros());
    for (int c = 0; c < n; ++c)
      for (SparseMatrix::InnerIterator it(ours, c); it; ++it) ASSERT_GE(it.row(), c) << "an entry above the diagonal";
    const SparseMatrix expected = expected_permuted_lower(lower, order);
    EXPECT_EQ(expected.nonZeros(), ours.nonZeros());
    // The same values exactly: a permutation moves them, it does not add them.
    EXPECT_EQ((sorted(ours) - expected).norm(), 0.0) << n << " columns";
  }
}

TEST(PermutedLower, IgnoresEntriesAboveTheDiagonal) {
  SparseMatrix lower = random_lower(500, 8, 3);
  const std::vector<int> order = random_order(500, 5);
  SparseMatrix with_upper = lower;
  with_upper.coeffRef(10, 400) = 99;  // above the diagonal: not part of the lower triangle
  with_upper.makeCompressed();
  EXPECT_EQ((sorted(permuted_lower(with_upper, order.data())) - sorted(permuted_lower(lower, order.data()))).norm(), 0.0);
}

TEST(PermutedLower, RefusesAnOrderThatIsNotAPermutation) {
  const SparseMatrix lower = random_lower(50, 4, 1);
  std::vector<int> order = random_order(50, 2);
  order[3] = order[4];
  EXPECT_THROW(permuted_lower(lower, order.data()), Error);
  order[3] = 50;
  EXPECT_THROW(permuted_lower(lower, order.data()), Error);
}

// A factor that takes its matrix over keeps it in its own order for the factorization and frees
// the one given; it solves the matrix as given, as does a factor analysed from the pattern alone
// and factorized after, node-blocked (3 rows a node) or not.
TEST(PermutedLower, AFactorThatTakesItsMatrixOverSolvesIt) {
  for (int n : {3000, 3001}) {
    const SparseMatrix lower = random_lower(n, 12, 9);
    const SparseMatrix full = symmetric_from_lower(lower);
    SparseMatrix handed_over = lower;
    CholmodFactor taking(std::move(handed_over), {}, 0);
    EXPECT_EQ(handed_over.nonZeros(), 0) << n;
    taking.factorize();
    EXPECT_THROW(taking.factorize(), Error) << "the matrix kept is factorized once";
    CholmodFactor from_pattern(lower);
    EXPECT_THROW(from_pattern.factorize(), Error) << "no matrix kept";
    from_pattern.factorize(lower);
    EXPECT_EQ(taking.size().entries, from_pattern.size().entries);
    const Eigen::MatrixXd b = Eigen::MatrixXd::Random(n, 4);
    for (const CholmodFactor* factor : {&taking, &from_pattern}) {
      Eigen::MatrixXd x;
      factor->solve(b, x);
      EXPECT_LT((full * x - b).norm(), 1e-10 * b.norm()) << n;
    }
    // A matrix of another size is refused before anything is read from it.
    EXPECT_THROW(taking.factorize(random_lower(10, 2, 1)), Error);
  }
}
