// The Newmark step's M x₁ + K x₂ by node blocks equals the two sparse products (issue 12, item 3).
#include <gtest/gtest.h>

#include <random>

#include "fem/assembly.hpp"
#include "fem/boundary.hpp"
#include "fem/fem_mesh.hpp"
#include "fem/material.hpp"
#include "fem/structured_box.hpp"
#include "step_products.hpp"

using namespace mesh2dsp;

namespace {

using RowMajor = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

double relative_error(const RowMajor& mass, const RowMajor& stiffness, bool expect_blocks) {
  const MassStiffnessProduct product(mass, stiffness);
  EXPECT_EQ(product.by_node_blocks(), expect_blocks);
  std::mt19937 rng(7);
  std::normal_distribution<double> normal;
  Eigen::VectorXd x1(mass.rows()), x2(mass.rows());
  for (Eigen::Index i = 0; i < x1.size(); ++i) x1[i] = normal(rng), x2[i] = normal(rng);
  Eigen::VectorXd y(mass.rows());
  product.apply(x1, x2, y);
  const Eigen::VectorXd expected = mass * x1 + stiffness * x2;
  return (y - expected).norm() / expected.norm();
}

}  // namespace

TEST(StepProducts, NodeBlocksEqualTheSparseProductsOnP1AndP2) {
  const TetMesh bar = structured_box({0, 0, 0}, {0.30, 0.03, 0.02}, 10, 3, 2);
  const Material steel = find_material_preset("steel");
  for (int order : {1, 2}) {
    const FemMatrices fem = assemble_fem_matrices(make_fem_mesh(bar, order), steel);
    const RowMajor mass = symmetric_from_lower(fem.mass), stiffness = symmetric_from_lower(fem.stiffness);
    // Scaled like K_eff's terms at 48 kHz, so a wrong mass block would show.
    EXPECT_LT(relative_error(4 * 48000.0 * 48000.0 * mass, stiffness, true), 1e-14) << "P" << order;
  }
}

TEST(StepProducts, ClampedNodesKeepTheBlocks) {
  const TetMesh bar = structured_box({0, 0, 0}, {0.30, 0.03, 0.02}, 10, 3, 2);
  const FemMesh mesh = make_fem_mesh(bar, 2);
  const FemMatrices fem = assemble_fem_matrices(mesh, find_material_preset("steel"));
  std::vector<bool> clamped(mesh.nodes.rows(), false);
  for (Eigen::Index node = 0; node < mesh.nodes.rows(); ++node) clamped[node] = mesh.nodes(node, 0) < 1e-9;
  int free_count = 0;
  const std::vector<int> map = free_dof_map(clamped, free_count);
  ASSERT_LT(free_count, 3 * mesh.nodes.rows());
  const RowMajor mass = symmetric_from_lower(restrict_to_free(fem.mass, map, free_count));
  const RowMajor stiffness = symmetric_from_lower(restrict_to_free(fem.stiffness, map, free_count));
  EXPECT_LT(relative_error(1e9 * mass, stiffness, true), 1e-14);
}

TEST(StepProducts, AMassThatIsNotIsotropicFallsBackToTheSparseProducts) {
  const TetMesh bar = structured_box({0, 0, 0}, {0.30, 0.03, 0.02}, 10, 3, 2);
  const FemMatrices fem = assemble_fem_matrices(make_fem_mesh(bar, 1), find_material_preset("steel"));
  RowMajor mass = symmetric_from_lower(fem.mass);
  for (int k = 0; k < mass.outerSize(); ++k)  // the z components weigh twice: not Mₙ ⊗ I₃
    for (RowMajor::InnerIterator it(mass, k); it; ++it)
      if (k % 3 == 2) it.valueRef() *= 2;
  EXPECT_LT(relative_error(mass, symmetric_from_lower(fem.stiffness), false), 1e-14);
}
