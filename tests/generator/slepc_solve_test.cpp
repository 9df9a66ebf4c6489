// --solver slepc's solve in process (MPI started on this process alone): the same modes as the
// dense solver, `more` growing the count, the contract's errors. Its own test binary: a process
// that has started MPI passes MPI's variables to its children, which would take an mpirun
// started from it (the end-to-end tests in slepc_cli_test.cpp) for one of its own ranks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fem/assembly.hpp"
#include "fem/boundary.hpp"
#include "fem/fem_mesh.hpp"
#include "fem/structured_box.hpp"
#include "modal/cholmod_factor.hpp"
#include "modal/eigen_solve.hpp"
#include "modal/node_partition.hpp"
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


// The ranks' rows are METIS parts of the node graph: balanced, and each part one connected piece
// whose boundary is a small share of the graph, the same on every run.
TEST(NodePartition, PartsAreBalancedConnectedAndCutLittle) {
  const FemMesh mesh = make_fem_mesh(structured_box({0, 0, 0}, {0.3, 0.1, 0.08}, 12, 4, 3), 2);
  const int nodes = static_cast<int>(mesh.nodes.rows());
  for (int parts : {2, 3, 4}) {
    const std::vector<int> part = partition_nodes(mesh.elements, nodes, parts);
    ASSERT_EQ(part.size(), static_cast<size_t>(nodes));
    EXPECT_EQ(part, partition_nodes(mesh.elements, nodes, parts)) << "not reproducible";
    std::vector<int> sizes(parts, 0);
    for (int p : part) ++sizes[p];
    for (int p = 0; p < parts; ++p) EXPECT_NEAR(sizes[p], double(nodes) / parts, 0.05 * nodes / parts) << parts;
    // Connected: a flood fill within each part from one of its nodes reaches all of it.
    std::vector<std::vector<int>> adjacent(nodes);
    for (Eigen::Index e = 0; e < mesh.elements.rows(); ++e)
      for (Eigen::Index a = 0; a < mesh.elements.cols(); ++a)
        for (Eigen::Index b = 0; b < mesh.elements.cols(); ++b) adjacent[mesh.elements(e, a)].push_back(mesh.elements(e, b));
    for (int p = 0; p < parts; ++p) {
      std::vector<char> seen(nodes, 0);
      std::vector<int> stack{static_cast<int>(std::find(part.begin(), part.end(), p) - part.begin())};
      int reached = 0;
      while (!stack.empty()) {
        const int n = stack.back();
        stack.pop_back();
        if (seen[n]) continue;
        seen[n] = 1;
        ++reached;
        for (int m : adjacent[n])
          if (!seen[m] && part[m] == p) stack.push_back(m);
      }
      EXPECT_EQ(reached, sizes[p]) << "part " << p << " of " << parts << " is in pieces";
    }
    long long edges = 0;
    for (const auto& list : adjacent) edges += static_cast<long long>(list.size());
    EXPECT_LT(cut_edges(mesh.elements, nodes, part), 0.15 * edges / 2) << parts;
  }
  EXPECT_EQ(partition_nodes(mesh.elements, nodes, 1), std::vector<int>(nodes, 0));
  EXPECT_TRUE(partition_nodes(mesh.elements, 3, 4).empty());  // fewer nodes than parts
}
