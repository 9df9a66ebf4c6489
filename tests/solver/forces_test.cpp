// Strike forces: van den Doel & Pai 2003, eq. 7, impulses, force files, strike points.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "forces.hpp"
#include "fem/structured_box.hpp"
#include "util/error.hpp"

using namespace mesh2dsp;

TEST(Forces, RaisedCosineIsVanDenDoelPaiEq7) {
  const auto f = parse_force("cosine:0.001", 2.0);
  EXPECT_DOUBLE_EQ(force_at(f, -1e-6), 0);
  EXPECT_NEAR(force_at(f, 0.0005), 2.0 * 2, 1e-12);  // F_max (1 − cos π) = 2 F_max
  EXPECT_NEAR(force_at(f, 0.00025), 2.0 * (1 - std::cos(M_PI / 2)), 1e-12);
  EXPECT_DOUBLE_EQ(force_at(f, 0.0011), 0);
  EXPECT_DOUBLE_EQ(force_end_s(f), 0.001);
}

TEST(Forces, BadSpecsAreOneClearError) {
  EXPECT_THROW(parse_force("hammer", 1), Error);
  EXPECT_THROW(parse_force("cosine:-0.001", 1), Error);
  EXPECT_THROW(parse_force("cosine:0", 1), Error);
  EXPECT_THROW(parse_force("cosine:abc", 1), Error);
  EXPECT_THROW(parse_force("file:/nonexistent/force.txt", 1), Error);
  EXPECT_THROW(parse_force("impulse:3", 1), Error);
}

TEST(Forces, FileIsInterpolatedLinearly) {
  const auto path = std::filesystem::temp_directory_path() / "mesh2dsp_solver_force_test.txt";
  {
    std::ofstream out(path);
    out << "# time force\n0 0\n0.001 10\n0.002 0\n";
  }
  const auto f = parse_force("file:" + path.string(), 0.5);
  EXPECT_NEAR(force_at(f, 0.0005), 2.5, 1e-12);
  EXPECT_NEAR(force_at(f, 0.0015), 2.5, 1e-12);
  EXPECT_DOUBLE_EQ(force_at(f, 0.003), 0);
  std::filesystem::remove(path);
}

TEST(Forces, PointStrikeIsSharedByTheNearestFace) {
  const TetMesh plate = structured_box({0, 0, 0}, {0.2, 0.2, 0.01}, 4, 4, 1);
  const auto s = parse_strike("point:0.06,0.07,0.02", "", plate, {});
  double sum = 0;
  Eigen::Vector3d p = Eigen::Vector3d::Zero();
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    sum += s.weights[i];
    p += s.weights[i] * plate.vertices.row(s.nodes[i]).transpose();
  }
  EXPECT_NEAR(sum, 1.0, 1e-12);
  EXPECT_NEAR((p - Eigen::Vector3d(0.06, 0.07, 0.01)).norm(), 0, 1e-12);  // projected on the top
  EXPECT_NEAR((s.direction - Eigen::Vector3d(0, 0, -1)).norm(), 0, 1e-12);  // into the surface
  const auto load = strike_load(s, static_cast<int>(plate.vertices.rows()));
  EXPECT_NEAR(load.sum(), -1.0, 1e-12);
  // auto avoids clamped vertices and symmetry planes.
  std::vector<bool> clamped(plate.vertices.rows(), false);
  const auto a = parse_strike("auto", "", plate, clamped);
  EXPECT_GT(a.position_m.z(), 0.009);
  EXPECT_GT(std::abs(a.position_m.x() - 0.1), 0.01);
  EXPECT_THROW(parse_strike("edge:3", "", plate, {}), Error);
  EXPECT_THROW(parse_strike("auto", "0,0,0", plate, {}), Error);
}

#include "fem/assembly.hpp"
#include "fem/fem_mesh.hpp"
#include "stvk.hpp"

TEST(StVenantKirchhoff, LinearisesToTheFemCoreStiffness) {
  const TetMesh box = structured_box({0, 0, 0}, {0.3, 0.03, 0.02}, 3, 1, 1);
  const Material steel = find_material_preset("steel");
  for (int order : {1, 2}) {
    const FemMesh fem = make_fem_mesh(box, order);
    const SparseMatrix K = symmetric_from_lower(assemble_fem_matrices(fem, steel).stiffness);
    Eigen::VectorXd u = Eigen::VectorXd::Random(3 * fem.nodes.rows()) * 1e-9;
    const Eigen::VectorXd linear = K * u;
    const Eigen::VectorXd f = stvk_internal_force(fem, steel, u);
    EXPECT_LT((f - linear).norm(), 1e-6 * linear.norm()) << "P" << order;
    // The remainder f_int − K u is second order in u, computed without cancellation.
    EXPECT_LT(stvk_nonlinear_force(fem, steel, u).norm(), 1e-6 * linear.norm()) << "P" << order;
    // A rigid rotation by 90° stores no energy: no internal force (linear elasticity would).
    Eigen::VectorXd rotation(3 * fem.nodes.rows());
    for (int n = 0; n < fem.nodes.rows(); ++n) {
      const Eigen::Vector3d x = fem.nodes.row(n);
      rotation.segment<3>(3 * n) = Eigen::Vector3d(-x.y(), x.x(), x.z()) - x;
    }
    EXPECT_LT(stvk_internal_force(fem, steel, rotation).norm(), 1e-6 * (K * rotation).norm());
  }
}
