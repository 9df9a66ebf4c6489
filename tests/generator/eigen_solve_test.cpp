// The eigen solve on its own: the block Lanczos against the dense solver on a cube (whose
// modes come in exactly degenerate pairs and triplets), the basis kept when more modes are
// asked for, and every failure (memory, CHOLMOD, no convergence) as one mesh2dsp::Error.
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <filesystem>

#include "fem/assembly.hpp"
#include "fem/fem_mesh.hpp"
#include "fem/structured_box.hpp"
#include "modal/cholmod_factor.hpp"
#include "modal/eigen_solve.hpp"
#include "modal/memory_estimate.hpp"
#include "support/command.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

using namespace mesh2dsp;

namespace {

// A free steel cube, 3 × 3 × 3 cells of P2 tetrahedra: 1029 DOF, small enough for the dense
// reference, large enough for the Lanczos path.
FemMatrices steel_cube(int cells = 3) {
  const TetMesh box = structured_box({0, 0, 0}, {0.1, 0.1, 0.1}, cells, cells, cells);
  return assemble_fem_matrices(make_fem_mesh(box, 2), find_material_preset("steel"));
}

EigenSolveOptions lanczos_options(int count) {
  EigenSolveOptions o;
  o.count = count;
  o.shift = -std::pow(2 * M_PI * 10, 2);
  o.dense_below_dof = 0;  // always the block Lanczos
  o.notice_above_s = 1e9;
  return o;
}

EigenSolution dense_reference(const FemMatrices& fem, int count) {
  EigenSolveOptions o = lanczos_options(count);
  o.dense_below_dof = 1 << 30;
  return solve_lowest_modes(fem.stiffness, fem.mass, o);
}

void expect_same_modes(const EigenSolution& got, const EigenSolution& want, const FemMatrices& fem,
                       double max_relative_residual = 1e-6) {
  ASSERT_EQ(got.eigenvalues.size(), want.eigenvalues.size());
  const double top = want.eigenvalues.maxCoeff();
  for (Eigen::Index i = 0; i < want.eigenvalues.size(); ++i)
    EXPECT_NEAR(got.eigenvalues[i], want.eigenvalues[i], 1e-9 * top) << "mode " << i;
  // M-orthonormal and true eigenvectors: ΦᵀMΦ = I, KΦ = MΦΛ.
  const SparseMatrix m = symmetric_from_lower(fem.mass), k = symmetric_from_lower(fem.stiffness);
  const Eigen::MatrixXd gram = got.vectors.transpose() * (m * got.vectors);
  EXPECT_LT((gram - Eigen::MatrixXd::Identity(gram.rows(), gram.cols())).cwiseAbs().maxCoeff(), 1e-9);
  const Eigen::MatrixXd residual =
      k * got.vectors - (m * got.vectors) * got.eigenvalues.asDiagonal();
  EXPECT_LT(residual.colwise().norm().maxCoeff() / (k * got.vectors).colwise().norm().maxCoeff(),
            max_relative_residual);
}

// Groups of eigenvalues equal to `relative` of the largest: the degenerate multiplets.
std::vector<int> multiplicities(const Eigen::VectorXd& values, double relative) {
  std::vector<int> out;
  const double top = values.maxCoeff();
  for (Eigen::Index i = 0; i < values.size(); ++i) {
    if (i > 0 && std::abs(values[i] - values[i - 1]) <= relative * top) ++out.back();
    else out.push_back(1);
  }
  return out;
}

// How many of the lowest `values` there are up to at most `at_most`, cut at the end of a
// multiplet (so two solvers both return whole multiplets).
int whole_multiplets(const Eigen::VectorXd& values, int at_most) {
  int whole = 0;
  for (int g : multiplicities(values, 1e-9)) {
    if (whole + g > at_most) break;
    whole += g;
  }
  return whole;
}

}  // namespace

TEST(EigenSolve, BlockLanczosMatchesDenseOnACubeWithDegenerateModes) {
  const FemMatrices fem = steel_cube();
  const int count = 60;
  const EigenSolution reference = dense_reference(fem, count + 3);
  const auto groups = multiplicities(reference.eigenvalues, 1e-9);
  const int whole = whole_multiplets(reference.eigenvalues, count);
  ASSERT_GE(*std::max_element(groups.begin(), groups.end()), 3) << "the cube should have triplets";
  const EigenSolution got = solve_lowest_modes(fem.stiffness, fem.mass, lanczos_options(whole));
  EigenSolution want = reference;
  want.eigenvalues.conservativeResize(whole);
  expect_same_modes(got, want, fem);
  // The same multiplets, each complete.
  EXPECT_EQ(multiplicities(got.eigenvalues, 1e-9), multiplicities(want.eigenvalues, 1e-9));
}

// The residual an analysis asks for (kModesResidual, looser than the default the tests above
// use) still gives the frequencies to the dense solver's digits, the shapes to within a few
// parts per million.
TEST(EigenSolve, AnAnalysissResidualKeepsTheFrequenciesToTheDenseDigits) {
  const FemMatrices fem = steel_cube();
  const EigenSolution reference = dense_reference(fem, 40);
  const int whole = whole_multiplets(reference.eigenvalues, 36);
  EigenSolveOptions o = lanczos_options(whole);
  o.tolerance = kModesResidual;
  ASSERT_GT(o.tolerance, EigenSolveOptions{}.tolerance);
  const EigenSolution got = solve_lowest_modes(fem.stiffness, fem.mass, o);
  EigenSolution want = reference;
  want.eigenvalues.conservativeResize(whole);
  expect_same_modes(got, want, fem, 2e-5);
}

// The iteration multiplies by M through its node matrix when M = Mₙ ⊗ I₃ (isotropic consistent
// mass); any other mass matrix goes through M itself. Both paths agree with the dense solver: the
// FEM mass above takes the first, the same mass with its z rows and columns scaled (an
// anisotropic inertia, no longer Mₙ ⊗ I₃) the second.
TEST(EigenSolve, AMassWithoutTheNodeStructureGivesTheDenseModesToo) {
  FemMatrices fem = steel_cube();
  for (int col = 0; col < fem.mass.outerSize(); ++col)
    for (SparseMatrix::InnerIterator it(fem.mass, col); it; ++it)
      it.valueRef() *= (it.row() % 3 == 2 ? 1.3 : 1.0) * (it.col() % 3 == 2 ? 1.3 : 1.0);
  const EigenSolution reference = dense_reference(fem, 40);
  const int whole = whole_multiplets(reference.eigenvalues, 36);
  const EigenSolution got = solve_lowest_modes(fem.stiffness, fem.mass, lanczos_options(whole));
  EigenSolution want = reference;
  want.eigenvalues.conservativeResize(whole);
  expect_same_modes(got, want, fem);
}

TEST(EigenSolve, AskingForMoreKeepsTheBasisAndGivesTheSameModes) {
  const FemMatrices fem = steel_cube();
  const EigenSolution direct = solve_lowest_modes(fem.stiffness, fem.mass, lanczos_options(45));
  int rounds = 0;
  const EigenSolution grown = solve_lowest_modes(
      fem.stiffness, fem.mass, lanczos_options(15), [&](const EigenSolution& s) {
        ++rounds;
        return s.eigenvalues.size() < 45 ? static_cast<int>(s.eigenvalues.size()) + 15 : 0;
      });
  EXPECT_EQ(rounds, 3);
  ASSERT_EQ(grown.eigenvalues.size(), 45);
  for (int i = 0; i < 45; ++i)
    EXPECT_NEAR(grown.eigenvalues[i], direct.eigenvalues[i], 1e-9 * direct.eigenvalues[44]);
  // One factorization, and fewer solves than three separate runs would need.
  EXPECT_EQ(grown.factorizations, 1);
  EXPECT_LT(grown.operations, 2 * direct.operations);
}

// Eigenvalues only, at a loose residual (the coarse sizing pass): no vectors, fewer Lanczos
// vectors, and the eigenvalues still within the residual's bound of the dense solver's.
TEST(EigenSolve, EigenvaluesOnlyAtALooseResidualStayCloseWithFewerVectors) {
  const FemMatrices fem = steel_cube(4);
  EigenSolveOptions tight = lanczos_options(120);
  tight.tolerance = 1e-10;
  const EigenSolution full = solve_lowest_modes(fem.stiffness, fem.mass, tight);
  EigenSolveOptions loose = lanczos_options(120);
  loose.vectors = false;
  loose.tolerance = 1e-5;
  const EigenSolution values = solve_lowest_modes(fem.stiffness, fem.mass, loose);
  EXPECT_EQ(values.vectors.size(), 0);
  ASSERT_EQ(values.eigenvalues.size(), full.eigenvalues.size());
  for (Eigen::Index i = 0; i < full.eigenvalues.size(); ++i)
    EXPECT_NEAR(values.eigenvalues[i], full.eigenvalues[i], 1e-5 * full.eigenvalues.maxCoeff()) << "mode " << i;
  EXPECT_LT(values.operations, full.operations);
}

// K − σM is formed in the stiffness's own storage when M's pattern lies within K's (as
// assembled, it does), and as a new matrix when it does not; either way it is K − σM.
TEST(EigenSolve, TheShiftIsFormedInTheStiffnesssStorageOrApart) {
  FemMatrices fem = steel_cube(2);
  const double sigma = -3.9e7;
  const Eigen::MatrixXd want = Eigen::MatrixXd(fem.stiffness) - sigma * Eigen::MatrixXd(fem.mass);
  SparseMatrix in_place = fem.stiffness;
  const double* storage = in_place.valuePtr();
  subtract_scaled_in_place(in_place, sigma, fem.mass);
  EXPECT_EQ(in_place.valuePtr(), storage);
  EXPECT_LT((Eigen::MatrixXd(in_place) - want).cwiseAbs().maxCoeff(), 1e-12 * want.cwiseAbs().maxCoeff());
  // A coupling in M that K's pattern lacks (the cube's first and last DOF share no element).
  const int last = static_cast<int>(fem.mass.rows()) - 1;
  ASSERT_EQ(fem.stiffness.coeff(last, 0), 0.0);
  fem.mass.coeffRef(last, 0) = 1e-3 * std::min(fem.mass.coeff(0, 0), fem.mass.coeff(last, last));
  fem.mass.makeCompressed();
  const Eigen::MatrixXd want_apart = Eigen::MatrixXd(fem.stiffness) - sigma * Eigen::MatrixXd(fem.mass);
  SparseMatrix apart = fem.stiffness;
  subtract_scaled_in_place(apart, sigma, fem.mass);
  EXPECT_LT((Eigen::MatrixXd(apart) - want_apart).cwiseAbs().maxCoeff(), 1e-12 * want_apart.cwiseAbs().maxCoeff());
  EXPECT_NE(apart.coeff(last, 0), 0.0);
}

// What the solve frees while it runs (K once factorized, M's whole copy once Mₙ stands for it)
// is given back: assigning an empty matrix would keep the arrays (Eigen 3.4 copies into them).
TEST(EigenSolve, AFreedSparseMatrixGivesItsStorageBack) {
  SparseMatrix k = steel_cube(2).stiffness;
  ASSERT_GT(k.data().allocatedSize(), 0);
  free_sparse(k);
  EXPECT_EQ(k.data().allocatedSize(), 0);
  EXPECT_EQ(k.nonZeros(), 0);
  RowMajorSparse rows = RowMajorSparse(steel_cube(2).mass);
  free_sparse(rows);
  EXPECT_EQ(rows.data().allocatedSize(), 0);
}

// The solve that takes the stiffness over gives the modes of the one that copies it.
TEST(EigenSolve, TakingTheStiffnessOverGivesTheSameModes) {
  const FemMatrices fem = steel_cube();
  const EigenSolution kept = solve_lowest_modes(fem.stiffness, fem.mass, lanczos_options(30));
  SparseMatrix consumed = fem.stiffness;
  const EigenSolution taken = solve_lowest_modes(std::move(consumed), fem.mass, lanczos_options(30));
  EXPECT_EQ(consumed.nonZeros(), 0) << "the stiffness's storage was not the one used";
  ASSERT_EQ(taken.eigenvalues.size(), kept.eigenvalues.size());
  for (Eigen::Index i = 0; i < kept.eigenvalues.size(); ++i)
    EXPECT_NEAR(taken.eigenvalues[i], kept.eigenvalues[i], 1e-12 * kept.eigenvalues.maxCoeff());
}

TEST(EigenSolve, NoConvergenceIsAnError) {
  const FemMatrices fem = steel_cube(2);
  EigenSolveOptions o = lanczos_options(20);
  o.tolerance = 0;  // unreachable: the basis fills the space without meeting it
  try {
    solve_lowest_modes(fem.stiffness, fem.mass, o);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("did not converge"), std::string::npos) << e.what();
  }
}

TEST(EigenSolve, TooManyModesForTheDofIsAnError) {
  const FemMatrices fem = steel_cube(2);
  EXPECT_THROW(solve_lowest_modes(fem.stiffness, fem.mass, lanczos_options(static_cast<int>(fem.mass.rows()))),
               Error);
}

TEST(EigenSolve, TooLittleMemoryStopsBeforeFactorizing) {
  const FemMatrices fem = steel_cube();
  EigenSolveOptions o = lanczos_options(20);
  o.memory_limit_bytes = 1e6;
  try {
    solve_lowest_modes(fem.stiffness, fem.mass, o);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("needs about"), std::string::npos) << what;
    EXPECT_NE(what.find("--max-memory allows 1 MB"), std::string::npos) << what;
    EXPECT_NE(what.find("--modes"), std::string::npos) << what;
    EXPECT_NE(what.find("--element-order 1"), std::string::npos) << what;
  }
}

TEST(EigenSolve, EstimateComesFromTheSymbolicAnalysisAndGrowsWithTheModes) {
  const FemMatrices fem = steel_cube();
  SparseMatrix shifted = fem.stiffness + fem.mass;
  shifted.makeCompressed();
  const CholmodFactor factor(shifted);
  EXPECT_GT(factor.size().entries, static_cast<double>(fem.stiffness.nonZeros()));  // fill
  EXPECT_GT(factor.size().flops, factor.size().entries);
  const int n = static_cast<int>(fem.mass.rows());
  const auto few = estimate_eigen_solve(n, fem.stiffness.nonZeros(), factor.size(), 20, 8);
  const auto many = estimate_eigen_solve(n, fem.stiffness.nonZeros(), factor.size(), 200, 8);
  EXPECT_GT(many.basis_bytes, 5 * few.basis_bytes);
  EXPECT_DOUBLE_EQ(many.factor_bytes, few.factor_bytes);
  EXPECT_GT(many.time_s(), few.time_s());
}

// The Lanczos basis is kept in the factor's own order: its solves must give A⁻¹B with the rows
// taken in that order, whatever the block's width.
TEST(EigenSolve, SolvesInTheFactorsOrderMatchTheWholeSolve) {
  const FemMatrices fem = steel_cube(3);
  SparseMatrix shifted = fem.stiffness + 1e6 * fem.mass;
  shifted.makeCompressed();
  CholmodFactor factor(shifted);
  factor.factorize(shifted);
  const Eigen::VectorXi order = factor.order();
  const Eigen::Index n = shifted.rows();
  ASSERT_EQ(order.size(), n);
  Eigen::VectorXi sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (Eigen::Index k = 0; k < n; ++k) ASSERT_EQ(sorted[k], k) << "not a permutation";
  const SparseMatrix full = symmetric_from_lower(shifted);
  for (int columns : {1, 3, 8}) {
    const Eigen::MatrixXd b = Eigen::MatrixXd::Random(n, columns);
    Eigen::MatrixXd x, x_in_order;
    factor.solve(b, x);
    EXPECT_LT((full * x - b).norm(), 1e-9 * b.norm()) << columns << " columns";
    Eigen::MatrixXd b_in_order(n, columns);
    for (Eigen::Index k = 0; k < n; ++k) b_in_order.row(k) = b.row(order[k]);
    factor.solve_in_order(b_in_order, x_in_order);
    for (Eigen::Index k = 0; k < n; ++k)
      ASSERT_LT((x_in_order.row(k) - x.row(order[k])).norm(), 1e-9 * x.norm()) << columns << " columns, row " << k;
  }
}

// The solves in the factor's order run on several cores along the elimination tree: on a
// factor large enough to be cut (and a second, separate body, so the tree has two roots), every
// number of cores and block width gives CHOLMOD's own whole solve.
TEST(EigenSolve, SolvesOnSeveralCoresMatchCholmodsOwn) {
  const FemMatrices cube = steel_cube(7), small = steel_cube(3);
  const Eigen::Index n1 = cube.mass.rows(), n = n1 + small.mass.rows();
  std::vector<Eigen::Triplet<double>> entries;
  auto add = [&](const SparseMatrix& a, double scale, Eigen::Index at) {
    for (int c = 0; c < a.outerSize(); ++c)
      for (SparseMatrix::InnerIterator it(a, c); it; ++it) entries.emplace_back(it.row() + at, it.col() + at, scale * it.value());
  };
  add(cube.stiffness, 1, 0), add(cube.mass, 1e6, 0), add(small.stiffness, 1, n1), add(small.mass, 1e6, n1);
  SparseMatrix shifted(n, n);
  shifted.setFromTriplets(entries.begin(), entries.end());
  shifted.makeCompressed();
  const SparseMatrix full = symmetric_from_lower(shifted);
  for (int parts : {1, 2, 3}) {
    CholmodFactor factor(shifted);
    factor.set_solve_parts(parts);
    factor.factorize(shifted);
    const Eigen::VectorXi order = factor.order();
    for (int columns : {1, 2, 5, 8, 13}) {
      const Eigen::MatrixXd b = Eigen::MatrixXd::Random(n, columns);
      Eigen::MatrixXd x, x_in_order, b_in_order(n, columns);
      factor.solve(b, x);
      ASSERT_LT((full * x - b).norm(), 1e-9 * b.norm());
      for (Eigen::Index k = 0; k < n; ++k) b_in_order.row(k) = b.row(order[k]);
      factor.solve_in_order(b_in_order, x_in_order);
      double worst = 0;
      for (Eigen::Index k = 0; k < n; ++k) worst = std::max(worst, (x_in_order.row(k) - x.row(order[k])).norm());
      EXPECT_LT(worst, 1e-12 * x.norm()) << parts << " cores, " << columns << " columns";
    }
  }
}

// Each node's corners are those of its entity: a corner itself, an edge's two ends (P2, and
// both of P3's nodes on it), a P3 face's three corners.
TEST(EigenSolve, NodesKnowTheCornersOfTheirEdgeOrFace) {
  const TetMesh box = structured_box({0, 0, 0}, {0.1, 0.1, 0.1}, 2, 2, 2);
  for (int order : {1, 2, 3}) {
    const FemMesh fem = make_fem_mesh(box, order);
    const NodeCorners corners = node_corners(fem);
    ASSERT_EQ(static_cast<Eigen::Index>(corners.size()), fem.nodes.rows());
    for (Eigen::Index node = 0; node < fem.nodes.rows(); ++node) {
      // The node lies at the mean of its corners' positions, or on their edge or face.
      Eigen::RowVector3d mean = Eigen::RowVector3d::Zero();
      int count = 0;
      for (int v : corners[node])
        if (v >= 0) mean += box.vertices.row(v), ++count;
      ASSERT_GE(count, 1) << "order " << order << ", node " << node;
      EXPECT_EQ(count == 1, node < fem.corner_count) << "order " << order << ", node " << node;
      if (order < 3) EXPECT_LE(count, order);
      if (count == 1) EXPECT_EQ(fem.nodes.row(node), box.vertices.row(corners[node][0])) << "a corner is itself";
      if (count == 3) EXPECT_LT((fem.nodes.row(node) - mean / 3).norm(), 1e-12) << "a face node at its centre";
      if (count == 2) {
        const Eigen::RowVector3d a = box.vertices.row(corners[node][0]), b = box.vertices.row(corners[node][1]);
        const double along = (fem.nodes.row(node) - a).dot(b - a) / (b - a).squaredNorm();
        EXPECT_LT((a + along * (b - a) - fem.nodes.row(node)).norm(), 1e-12) << "on its edge";
        EXPECT_TRUE(std::abs(along - 0.5) < 1e-12 || std::abs(along - 1.0 / 3) < 1e-12 || std::abs(along - 2.0 / 3) < 1e-12);
      }
    }
  }
}

// The ordering found on the corners' graph is a permutation, factors the matrix, and fills
// about as little as METIS on the node graph (within 10 % of the factor here).
TEST(EigenSolve, OrderingFromTheCornersGraphFillsAboutAsLittle) {
  const TetMesh box = structured_box({0, 0, 0}, {0.3, 0.1, 0.1}, 15, 5, 5);
  for (int order : {2, 3}) {
    const FemMesh fem = make_fem_mesh(box, order);
    const FemMatrices m = assemble_fem_matrices(fem, find_material_preset("steel"));
    SparseMatrix shifted = m.stiffness + 1e6 * m.mass;
    shifted.makeCompressed();
    const NodeCorners corners = node_corners(fem);
    std::vector<int> nodes = corner_dissection_node_order(shifted, corners);
    ASSERT_EQ(static_cast<Eigen::Index>(nodes.size()), fem.nodes.rows()) << "P" << order;
    std::sort(nodes.begin(), nodes.end());
    for (std::size_t k = 0; k < nodes.size(); ++k) ASSERT_EQ(nodes[k], static_cast<int>(k)) << "not a permutation";
    CholmodFactor by_nodes(shifted), by_corners(shifted, corners);
    EXPECT_LT(by_corners.size().entries, 1.1 * by_nodes.size().entries) << "P" << order;
    by_corners.factorize(shifted);
    EXPECT_TRUE(corner_dissection_node_order(shifted, node_corners(make_fem_mesh(box, 1))).empty())
        << "linear elements: the corners' graph is the node graph";
    const Eigen::MatrixXd b = Eigen::MatrixXd::Random(shifted.rows(), 3);
    Eigen::MatrixXd x;
    by_corners.solve(b, x);
    EXPECT_LT((symmetric_from_lower(shifted) * x - b).norm(), 1e-9 * b.norm()) << "P" << order;
  }
}

TEST(EigenSolve, CholmodFailuresAreErrorsAndSilent) {
  // Not positive definite: K − σM with σ far above the lowest modes.
  const FemMatrices fem = steel_cube(2);
  SparseMatrix indefinite = fem.stiffness - 1e12 * fem.mass;
  indefinite.makeCompressed();
  testing::internal::CaptureStderr();
  CholmodFactor factor(indefinite);
  EXPECT_THROW(factor.factorize(indefinite), Error);
  // Not square: CHOLMOD's own argument check.
  SparseMatrix rectangular(6, 4);
  rectangular.insert(0, 0) = 1;
  rectangular.makeCompressed();
  EXPECT_THROW(CholmodFactor{rectangular}, Error);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(EigenSolve, EstimateIsANoticeBeforeALongSolveAndQuietWithQ) {
  const FemMatrices fem = steel_cube();
  EigenSolveOptions o = lanczos_options(20);
  o.notice_above_s = 0;  // this small solve counts as long
  o.problem = "162 tetrahedra (P2)";
  testing::internal::CaptureStderr();
  const EigenSolution s = solve_lowest_modes(fem.stiffness, fem.mass, o);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("mesh2dsp: notice: eigen solve: 162 tetrahedra (P2), 1029 DOF, up to 20 modes: about "),
            std::string::npos)
      << said;
  EXPECT_GT(s.estimate.time_s(), 0);
  EXPECT_GT(s.estimate.peak_bytes(), 0);
  set_quiet(true);
  testing::internal::CaptureStderr();
  solve_lowest_modes(fem.stiffness, fem.mass, o);
  set_quiet(false);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(MemorySize, ParsesUnitsAndRefusesTheRest) {
  EXPECT_DOUBLE_EQ(parse_memory_size("2G"), 2.0 * (1 << 30));
  EXPECT_DOUBLE_EQ(parse_memory_size("500M"), 500.0 * (1 << 20));
  EXPECT_DOUBLE_EQ(parse_memory_size("1.5GB"), 1.5 * (1 << 30));
  EXPECT_DOUBLE_EQ(parse_memory_size("64 MiB"), 64.0 * (1 << 20));
  EXPECT_DOUBLE_EQ(parse_memory_size("123456"), 123456.0);
  for (const char* bad : {"", "G", "-1G", "2X", "2 G extra", "nan"})
    EXPECT_THROW(parse_memory_size(bad), Error) << bad;
  EXPECT_GT(available_memory_bytes(), 0);
}

TEST(MemorySize, CliRefusesATooLargeSolveWithOneMessageAndNoFile) {
  const auto dir = std::filesystem::temp_directory_path() / "mesh2dsp_eigen_memory_test";
  std::filesystem::create_directories(dir);
  const TetMesh box = structured_box({0, 0, 0}, {0.3, 0.03, 0.02}, 30, 3, 2);
  write_tetgen_files(box, dir / "bar");
  const auto out = dir / "bar.modal.json";
  std::filesystem::remove(out);
  const auto r = test::run_command(std::string(MESH2DSP_BIN) + " modes " + (dir / "bar.node").string() +
                                   " --max-memory 2M -o " + out.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("mesh2dsp: error: the eigen solve needs about"), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
  const auto bad = test::run_command(std::string(MESH2DSP_BIN) + " modes " + (dir / "bar.node").string() +
                                     " --max-memory lots -o " + out.string());
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("cannot read the memory size \"lots\""), std::string::npos) << bad.output;
  std::filesystem::remove_all(dir);
}
