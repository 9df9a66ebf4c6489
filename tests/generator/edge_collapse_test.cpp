// Coarsening by edge collapses (fem/edge_collapse.hpp): a thin plate's skins coarsen to a
// layer of elements longer than the plate is thick, with its shape, its two skins and a
// manifold boundary kept, and no element made badly shaped.
#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <map>

#include "fem/edge_collapse.hpp"
#include "fem/structured_box.hpp"
#include "fem/tet_mesh.hpp"

using namespace mesh2dsp;

namespace {

std::vector<std::array<int, 4>> cells_of(const TetMesh& mesh) {
  std::vector<std::array<int, 4>> cells;
  for (Eigen::Index t = 0; t < mesh.tets.rows(); ++t)
    cells.push_back({mesh.tets(t, 0), mesh.tets(t, 1), mesh.tets(t, 2), mesh.tets(t, 3)});
  return cells;
}

double volume_of(const Eigen::MatrixXd& v, const std::vector<std::array<int, 4>>& cells) {
  double sum = 0;
  for (const auto& c : cells) {
    const Eigen::Vector3d a = v.row(c[0]), b = v.row(c[1]), d = v.row(c[2]), e = v.row(c[3]);
    sum += (b - a).cross(d - a).dot(e - a) / 6;
  }
  return sum;
}

// How many cells each face (sorted corners) belongs to.
std::map<std::array<int, 3>, int> face_counts(const std::vector<std::array<int, 4>>& cells) {
  std::map<std::array<int, 3>, int> face_count;
  for (const auto& c : cells)
    for (int skip = 0; skip < 4; ++skip) {
      std::array<int, 3> f;
      for (int k = 0, j = 0; k < 4; ++k)
        if (k != skip) f[j++] = c[k];
      std::sort(f.begin(), f.end());
      ++face_count[f];
    }
  return face_count;
}

// Every interior face is shared by two cells, every boundary edge by two boundary faces.
void expect_manifold(const std::vector<std::array<int, 4>>& cells) {
  const std::map<std::array<int, 3>, int> face_count = face_counts(cells);
  std::map<std::pair<int, int>, int> boundary_edge_count;
  for (const auto& [f, n] : face_count) {
    ASSERT_LE(n, 2);
    if (n == 1)
      for (int k = 0; k < 3; ++k) ++boundary_edge_count[{std::min(f[k], f[(k + 1) % 3]), std::max(f[k], f[(k + 1) % 3])}];
  }
  for (const auto& [e, n] : boundary_edge_count) EXPECT_EQ(n, 2);
}

EdgeCollapseOptions plate_options(const TetMesh& plate, double target_m) {
  EdgeCollapseOptions o;
  o.target_edge_m = Eigen::VectorXd::Constant(plate.vertices.rows(), target_m);
  o.max_boundary_distance_m = Eigen::VectorXd::Constant(plate.vertices.rows(), 1e-6);
  // The plate's own box: a point's distance to its nearest face (inside or out).
  o.distance_to_input_m = [](const Eigen::Vector3d& p) {
    const Eigen::Vector3d lo(0, 0, 0), hi(0.2, 0.1, 0.005);
    const Eigen::Vector3d outside = (p - hi).cwiseMax(lo - p).cwiseMax(0.0);
    if (outside.norm() > 0) return outside.norm();
    return std::min((p - lo).minCoeff(), (hi - p).minCoeff());
  };
  return o;
}

}  // namespace

TEST(EdgeCollapse, AThinPlatesSkinsCoarsenToALayerLongerThanThePlateIsThick) {
  // 5 mm cells in the plane, one layer through its 5 mm: what Delaunay refinement gives a wall.
  const TetMesh plate = structured_box({0, 0, 0}, {0.2, 0.1, 0.005}, 40, 20, 1);
  const std::vector<std::array<int, 4>> cells = collapse_short_edges(plate.vertices, cells_of(plate), plate_options(plate, 0.02));
  // Four times longer in the plane: about a sixteenth of the cells.
  EXPECT_LT(cells.size(), plate.tets.rows() / 6);
  // The shape is the box's (boundary vertices only move along the flat faces and edges it has).
  EXPECT_NEAR(volume_of(plate.vertices, cells), 0.2 * 0.1 * 0.005, 1e-12);
  expect_manifold(cells);
  // Every element still spans the plate (no edge across the wall collapsed) and is sound.
  for (const auto& c : cells) {
    Eigen::Matrix<double, 4, 3> x;
    double lowest = 1, highest = 0;
    for (int k = 0; k < 4; ++k) {
      x.row(k) = plate.vertices.row(c[k]);
      lowest = std::min(lowest, x(k, 2));
      highest = std::max(highest, x(k, 2));
    }
    EXPECT_EQ(lowest, 0.0);
    EXPECT_EQ(highest, 0.005);
    EXPECT_GE(tet_quality(x), 0.02);
    EXPECT_LE(max_dihedral_angle_rad(x.row(0), x.row(1), x.row(2), x.row(3)), 160 * M_PI / 180 + 1e-12);
  }
}

TEST(EdgeCollapse, NothingCollapsesWhereTheEdgesAreAlreadyAsLongAsWanted) {
  const TetMesh plate = structured_box({0, 0, 0}, {0.2, 0.1, 0.005}, 40, 20, 1);
  const auto cells = collapse_short_edges(plate.vertices, cells_of(plate), plate_options(plate, 0.005));
  EXPECT_EQ(cells.size(), static_cast<std::size_t>(plate.tets.rows()));
}

TEST(EdgeCollapse, ABoundaryThatWouldLeaveTheInputKeepsItsVertices) {
  // The plate's skin bulges by 1 mm in the middle (a bump 10 mm across); collapses there would
  // flatten it by more than the bound allows, so the bump keeps its vertices.
  TetMesh plate = structured_box({0, 0, 0}, {0.2, 0.1, 0.005}, 40, 20, 1);
  for (Eigen::Index i = 0; i < plate.vertices.rows(); ++i)
    if (plate.vertices(i, 2) > 0.004) {
      const double r = std::hypot(plate.vertices(i, 0) - 0.1, plate.vertices(i, 1) - 0.05);
      plate.vertices(i, 2) += 0.001 * std::exp(-r * r / 1e-4);
    }
  EdgeCollapseOptions o = plate_options(plate, 0.02);
  const Eigen::MatrixXd bulged = plate.vertices;
  o.distance_to_input_m = [&](const Eigen::Vector3d& p) {  // to the bulged top: its height over it
    const double r = std::hypot(p.x() - 0.1, p.y() - 0.05);
    const double top = 0.005 + 0.001 * std::exp(-r * r / 1e-4);
    return p.z() > 0.0025 ? std::abs(p.z() - top) : std::abs(p.z());
  };
  o.max_boundary_distance_m = Eigen::VectorXd::Constant(plate.vertices.rows(), 0.0001);
  const auto kept_on_the_bump = [&](const std::vector<std::array<int, 4>>& cells) {
    std::vector<bool> seen(static_cast<std::size_t>(bulged.rows()), false);
    int kept = 0;
    for (const auto& c : cells)
      for (int v : c)
        if (!seen[v] && bulged(v, 2) > 0.0052) {
          seen[v] = true;
          ++kept;
        }
    return kept;
  };
  const auto cells = collapse_short_edges(plate.vertices, cells_of(plate), o);
  expect_manifold(cells);
  // Every face of the top skin has its centre within the bound of the bumped skin.
  double farthest_m = 0;
  for (const auto& [f, n] : face_counts(cells)) {
    const bool on_top = bulged(f[0], 2) > 0.004 && bulged(f[1], 2) > 0.004 && bulged(f[2], 2) > 0.004;
    if (n == 1 && on_top) {
      const Eigen::Vector3d centre = (bulged.row(f[0]) + bulged.row(f[1]) + bulged.row(f[2])).transpose() / 3;
      farthest_m = std::max(farthest_m, o.distance_to_input_m(centre));
    }
  }
  EXPECT_LE(farthest_m, 0.0001);
  // Unbounded, the same collapses flatten the bump.
  o.max_boundary_distance_m.setConstant(1.0);
  EXPECT_LT(kept_on_the_bump(collapse_short_edges(plate.vertices, cells_of(plate), o)), kept_on_the_bump(cells));
}
