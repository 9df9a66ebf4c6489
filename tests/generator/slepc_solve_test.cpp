// --solver slepc's solve in process (MPI started on this process alone): the same modes as the
// dense solver, `more` growing the count, the contract's errors. Its own test binary: a process
// that has started MPI passes MPI's variables to its children, which would take an mpirun
// started from it (the end-to-end tests in slepc_cli_test.cpp) for one of its own ranks.
#include <gtest/gtest.h>

#include <cmath>

#include "fem/assembly.hpp"
#include "fem/fem_mesh.hpp"
#include "fem/structured_box.hpp"
#include "modal/cholmod_factor.hpp"
#include "modal/eigen_solve.hpp"
#include "modal/slepc_solve.hpp"
#include "util/error.hpp"

using namespace mesh2dsp;

namespace {

EigenSolveOptions options_for(int count) {
  EigenSolveOptions o;
  o.count = count;
  o.shift = -std::pow(2 * M_PI * 10, 2);
  o.notice_above_s = 1e9;
  return o;
}

}  // namespace

TEST(SlepcSolve, MatchesTheDenseSolverOnACubeInProcess) {
  // A free steel cube of P2 tetrahedra (1029 DOF): six rigid modes near zero, then exactly
  // degenerate pairs and triplets; asked for 12 modes first, then for 30 through `more`.
  const TetMesh box = structured_box({0, 0, 0}, {0.1, 0.1, 0.1}, 3, 3, 3);
  const FemMatrices fem = assemble_fem_matrices(make_fem_mesh(box, 2), find_material_preset("steel"));
  EigenSolveOptions dense = options_for(30);
  dense.dense_below_dof = 1 << 30;
  const EigenSolution reference = solve_lowest_modes(fem.stiffness, fem.mass, dense);
  int rounds = 0;
  const EigenSolution s = solve_lowest_modes_slepc(
      fem.stiffness, fem.mass, options_for(12), [&](const EigenSolution&) { return ++rounds == 1 ? 30 : 0; });
  ASSERT_EQ(rounds, 2);
  ASSERT_EQ(s.eigenvalues.size(), 30);
  const double top = reference.eigenvalues.maxCoeff();
  for (int i = 0; i < 30; ++i) EXPECT_NEAR(s.eigenvalues[i], reference.eigenvalues[i], 1e-9 * top) << i;
  // Mass-orthonormal shapes with small residuals ‖Kφ − λMφ‖ relative to ‖λMφ‖.
  const Eigen::MatrixXd mv = symmetric_times(fem.mass, s.vectors);
  const Eigen::MatrixXd kv = symmetric_times(fem.stiffness, s.vectors);
  EXPECT_LT((s.vectors.transpose() * mv - Eigen::MatrixXd::Identity(30, 30)).cwiseAbs().maxCoeff(), 1e-8);
  for (int i = 6; i < 30; ++i)
    EXPECT_LT((kv.col(i) - s.eigenvalues[i] * mv.col(i)).norm(), 1e-6 * s.eigenvalues[i] * mv.col(i).norm()) << i;
}

TEST(SlepcSolve, TooManyModesIsOneError) {
  const TetMesh box = structured_box({0, 0, 0}, {0.1, 0.1, 0.1}, 1, 1, 1);
  const FemMatrices fem = assemble_fem_matrices(make_fem_mesh(box, 1), find_material_preset("steel"));
  EXPECT_THROW(solve_lowest_modes_slepc(fem.stiffness, fem.mass, options_for(1000)), Error);
}

