// --solver slepc's solve in process (MPI started on this process alone): the same modes as the
// dense solver, `more` growing the count, the contract's errors. Its own test binary: a process
// that has started MPI passes MPI's variables to its children, which would take an mpirun
// started from it (the end-to-end tests in slepc_cli_test.cpp) for one of its own ranks.
#include <gtest/gtest.h>

#include <cmath>

#include "fem/assembly.hpp"
#include "fem/boundary.hpp"
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

std::vector<int> all_free(const FemMesh& mesh) {
  std::vector<int> map(3 * mesh.nodes.rows());
  for (size_t i = 0; i < map.size(); ++i) map[i] = static_cast<int>(i);
  return map;
}

TEST(SlepcSolve, MatchesTheDenseSolverOnACubeInProcess) {
  // A free steel cube of P2 tetrahedra (1029 DOF): six rigid modes near zero, then exactly
  // degenerate pairs and triplets; asked for 12 modes first, then for 30 through `more`. The
  // SLEPc solver assembles K and M itself; the reference is the dense solve of the serial ones.
  const TetMesh box = structured_box({0, 0, 0}, {0.1, 0.1, 0.1}, 3, 3, 3);
  const FemMesh mesh = make_fem_mesh(box, 2);
  const Material steel = find_material_preset("steel");
  const FemMatrices fem = assemble_fem_matrices(mesh, steel);
  EigenSolveOptions dense = options_for(30);
  dense.dense_below_dof = 1 << 30;
  const EigenSolution reference = solve_lowest_modes(fem.stiffness, fem.mass, dense);
  int rounds = 0;
  const EigenSolution s =
      solve_fem_modes_slepc(mesh, steel, all_free(mesh), 3 * static_cast<int>(mesh.nodes.rows()),
                            options_for(12), [&](const EigenSolution&) { return ++rounds == 1 ? 30 : 0; });
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

TEST(SlepcSolve, ClampedDofsAreLeftOut) {
  // The cube clamped on its x = 0 face: the free DOFs renumbered as the analysis does; the
  // modes equal the default solver's on the restricted serial matrices.
  const TetMesh box = structured_box({0, 0, 0}, {0.1, 0.1, 0.1}, 3, 3, 3);
  const FemMesh mesh = make_fem_mesh(box, 2);
  const Material steel = find_material_preset("steel");
  std::vector<bool> clamped(mesh.nodes.rows());
  for (Eigen::Index i = 0; i < mesh.nodes.rows(); ++i) clamped[i] = mesh.nodes(i, 0) < 1e-9;
  int free_count = 0;
  const std::vector<int> map = free_dof_map(clamped, free_count);
  const FemMatrices fem = assemble_fem_matrices(mesh, steel);
  EigenSolveOptions dense = options_for(10);
  dense.dense_below_dof = 1 << 30;
  const EigenSolution reference = solve_lowest_modes(restrict_to_free(fem.stiffness, map, free_count),
                                                     restrict_to_free(fem.mass, map, free_count), dense);
  const EigenSolution s = solve_fem_modes_slepc(mesh, steel, map, free_count, options_for(10));
  ASSERT_EQ(s.vectors.rows(), free_count);
  for (int i = 0; i < 10; ++i) EXPECT_NEAR(s.eigenvalues[i] / reference.eigenvalues[i], 1.0, 1e-9) << i;
}

TEST(SlepcSolve, BadInputIsOneError) {
  const TetMesh box = structured_box({0, 0, 0}, {0.1, 0.1, 0.1}, 1, 1, 1);
  FemMesh mesh = make_fem_mesh(box, 1);
  const Material steel = find_material_preset("steel");
  const int dofs = 3 * static_cast<int>(mesh.nodes.rows());
  EXPECT_THROW(solve_fem_modes_slepc(mesh, steel, all_free(mesh), dofs, options_for(1000)), Error);
  std::swap(mesh.elements(0, 0), mesh.elements(0, 1));  // an inverted element
  EXPECT_THROW(solve_fem_modes_slepc(mesh, steel, all_free(mesh), dofs, options_for(5)), Error);
}

