// Volume meshes sized by the physics (fem/volume_mesh.hpp) and curved quadratic boundaries
// (fem/fem_mesh.hpp, fem/elements.hpp): the mesh follows the input within its bound, its
// elements are sound whatever the input's triangles, and curved elements integrate exactly what
// straight ones do.
#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "analysis/analysis.hpp"
#include "fem/assembly.hpp"
#include "fem/elements.hpp"
#include "fem/fem_mesh.hpp"
#include "fem/mesh_bodies.hpp"
#include "fem/mesh_input.hpp"
#include "fem/surface_mesh.hpp"
#include "fem/volume_mesh.hpp"
#include "modal/modal_analysis.hpp"
#include "modal/modal_model.hpp"
#include "test_meshes.hpp"

using namespace mesh2dsp;

namespace {

// A test surface as the analysis takes it (checked and oriented).
SurfaceMesh checked(const test::TestSurface& s) {
  SurfaceMesh m;
  m.vertices.resize(static_cast<int>(s.vertices.size()), 3);
  for (size_t i = 0; i < s.vertices.size(); ++i) m.vertices.row(static_cast<int>(i)) = s.vertices[i].transpose();
  m.faces.resize(static_cast<int>(s.faces.size()), 3);
  for (size_t f = 0; f < s.faces.size(); ++f) m.faces.row(static_cast<int>(f)) = s.faces[f].transpose();
  check_and_orient_surface(m);
  return m;
}

// A UV sphere of radius r with `rings` rings: finely and unevenly tessellated
// (fans at the poles, long thin triangles near them), like an exported asset.
SurfaceMesh uv_sphere(double r, int rings, int segments) {
  test::TestSurface s;
  const int north = s.add(0, 0, r);
  for (int i = 1; i < rings; ++i) {
    const double theta = M_PI * i / rings;
    for (int j = 0; j < segments; ++j) {
      const double phi = 2 * M_PI * j / segments;
      s.add(r * std::sin(theta) * std::cos(phi), r * std::sin(theta) * std::sin(phi), r * std::cos(theta));
    }
  }
  const int south = s.add(0, 0, -r);
  auto at = [&](int ring, int j) { return 1 + (ring - 1) * segments + (j % segments); };
  for (int j = 0; j < segments; ++j) s.tri(north, at(1, j), at(1, j + 1));
  for (int i = 1; i + 1 < rings; ++i)
    for (int j = 0; j < segments; ++j) {
      s.tri(at(i, j), at(i + 1, j), at(i + 1, j + 1));
      s.tri(at(i, j), at(i + 1, j + 1), at(i, j + 1));
    }
  for (int j = 0; j < segments; ++j) s.tri(south, at(rings - 1, j + 1), at(rings - 1, j));
  return checked(s);
}

// A hollow sphere: the outer surface of radius r and a cavity of radius r − wall, inward.
SurfaceMesh hollow_sphere(double r, double wall, int rings, int segments) {
  const SurfaceMesh outer = uv_sphere(r, rings, segments), inner = uv_sphere(r - wall, rings, segments);
  SurfaceMesh both;
  both.vertices.resize(outer.vertices.rows() + inner.vertices.rows(), 3);
  both.vertices << outer.vertices, inner.vertices;
  Eigen::MatrixXi inward = inner.faces.array() + static_cast<int>(outer.vertices.rows());
  inward.col(1).swap(inward.col(2));
  both.faces.resize(outer.faces.rows() + inner.faces.rows(), 3);
  both.faces << outer.faces, inward;
  check_and_orient_surface(both);
  return both;
}

// A stepped rod: a disc of radius r_wide and height h_wide with a neck of radius r_neck and
// height h_neck on it, revolved about z with `segments` around and each side cut in `rows` rows.
// The ring where the neck meets the disc's top is a re-entrant crease (90°), the disc's rims
// are convex ones. Returns the surface and the crease ring's vertex indices.
// With `groove_m`, the disc's side has a V groove that deep and twice as wide at mid-height,
// whose bottom ring is re-entrant too.
std::pair<SurfaceMesh, std::vector<int>> stepped_rod(double r_wide, double h_wide, double r_neck, double h_neck,
                                                     int segments, int rows, double groove_m = 0) {
  // The profile (radius, height) from the bottom's centre to the top's, without the poles.
  std::vector<Eigen::Vector2d> profile;
  auto line = [&](Eigen::Vector2d a, Eigen::Vector2d b, bool with_end) {
    for (int k = 0; k < rows + (with_end ? 1 : 0); ++k) profile.push_back(a + (b - a) * k / rows);
  };
  line({r_wide / rows, 0}, {r_wide, 0}, false);
  if (groove_m > 0) {
    line({r_wide, 0}, {r_wide, h_wide / 2 - groove_m}, true);
    profile.push_back({r_wide - groove_m, h_wide / 2});
    line({r_wide, h_wide / 2 + groove_m}, {r_wide, h_wide}, false);
  } else {
    line({r_wide, 0}, {r_wide, h_wide}, false);
  }
  line({r_wide, h_wide}, {r_neck, h_wide}, false);
  const int crease_row = static_cast<int>(profile.size());
  line({r_neck, h_wide}, {r_neck, h_wide + h_neck}, false);
  line({r_neck, h_wide + h_neck}, {r_neck / rows, h_wide + h_neck}, true);
  test::TestSurface s;
  const int bottom = s.add(0, 0, 0);
  for (const auto& p : profile)
    for (int j = 0; j < segments; ++j) {
      const double phi = 2 * M_PI * j / segments;
      s.add(p.x() * std::cos(phi), p.x() * std::sin(phi), p.y());
    }
  const int top = s.add(0, 0, h_wide + h_neck);
  const int n = static_cast<int>(profile.size());
  auto at = [&](int row, int j) { return 1 + row * segments + (j % segments); };
  for (int j = 0; j < segments; ++j) s.tri(bottom, at(0, j + 1), at(0, j));
  for (int i = 0; i + 1 < n; ++i)
    for (int j = 0; j < segments; ++j) {
      s.tri(at(i, j), at(i, j + 1), at(i + 1, j + 1));
      s.tri(at(i, j), at(i + 1, j + 1), at(i + 1, j));
    }
  for (int j = 0; j < segments; ++j) s.tri(top, at(n - 1, j), at(n - 1, j + 1));
  std::vector<int> crease;
  for (int j = 0; j < segments; ++j) crease.push_back(at(crease_row, j));
  return {checked(s), crease};
}

double total_volume(const TetMesh& m) {
  double v = 0;
  for (int t = 0; t < m.tets.rows(); ++t) v += signed_tet_volume(m.vertices, m.tets, t);
  return v;
}

VolumeMeshOptions uniform(double edge_m, double distance_m) {
  VolumeMeshOptions o;
  o.edge_length_m = [=](double) { return edge_m; };
  o.max_boundary_distance_m = [=](double) { return distance_m; };
  return o;
}

}  // namespace

TEST(Quadrature, CurvedP2MatricesEqualTheStraightOnesOnAStraightElement) {
  // The isoparametric path, forced by a tiny displacement of one edge node, against the closed
  // form: the degree-5 rule integrates the straight element's quadratic and quartic integrands
  // exactly, so they agree to the displacement's order.
  P2Nodes x;
  x.topRows<4>() << 0.1, -0.2, 0.05, 1.3, 0.1, -0.1, 0.2, 0.9, 0.3, -0.1, 0.2, 1.1;
  for (int e = 0; e < 6; ++e) x.row(4 + e) = 0.5 * (x.row(kTetEdges[e][0]) + x.row(kTetEdges[e][1]));
  Eigen::Matrix<double, 30, 30> ks, ms, kc, mc;
  p2_element_matrices(TetCorners(x.topRows<4>()), 2.0, 1.5, 3.0, ks, ms);
  P2Nodes nudged = x;
  nudged(4, 0) += 1e-9;
  p2_element_matrices(nudged, 2.0, 1.5, 3.0, kc, mc);
  EXPECT_LT((kc - ks).norm(), 1e-6 * ks.norm());
  EXPECT_LT((mc - ms).norm(), 1e-6 * ms.norm());
  EXPECT_NEAR(p2_min_jacobian_ratio(x), 1.0, 1e-12);
}

TEST(Quadrature, ACurvedElementIntegratesItsOwnVolumeAndRigidMotions) {
  // A reference tetrahedron whose edge node on (0,1) bulges outward: volume from the mass
  // matrix (uᵀMu for a translation = ρ·volume) equals the divergence-theorem volume of the
  // quadratic map, and rigid motions carry no strain energy.
  P2Nodes x;
  x.topRows<4>() << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1;
  for (int e = 0; e < 6; ++e) x.row(4 + e) = 0.5 * (x.row(kTetEdges[e][0]) + x.row(kTetEdges[e][1]));
  const double bulge = 0.1;
  x(4, 1) -= bulge;  // the (0,1) edge node moves out of the element, away from vertex 2
  Eigen::Matrix<double, 30, 30> k, m;
  p2_element_matrices(x, 1.0, 1.0, 1.0, k, m);
  Eigen::Matrix<double, 30, 1> ux = Eigen::Matrix<double, 30, 1>::Zero();
  for (int a = 0; a < 10; ++a) ux(3 * a) = 1;
  // uᵀMu for a translation is ρ∫det J over the reference element. det J of the quadratic map is
  // cubic, so the element's degree-5 rule must match an independent high-order conical
  // product rule (Gauss–Legendre collapsed onto the tetrahedron).
  double exact = 0;
  {
    const int q = 12;
    std::vector<double> gx(q), gw(q);
    // Gauss–Legendre nodes on [0,1] by Newton on P_q.
    for (int i = 0; i < q; ++i) {
      double z = std::cos(M_PI * (i + 0.75) / (q + 0.5)), pp = 0;
      for (int it = 0; it < 100; ++it) {
        double p1 = 1, p2 = 0;
        for (int k = 1; k <= q; ++k) {
          const double p3 = p2;
          p2 = p1;
          p1 = ((2 * k - 1) * z * p2 - (k - 1) * p3) / k;
        }
        pp = q * (z * p1 - p2) / (z * z - 1);
        z -= p1 / pp;
      }
      gx[i] = 0.5 * (1 - z);
      gw[i] = 1.0 / ((1 - z * z) * pp * pp) * 2 * 0.5;
    }
    for (int a = 0; a < q; ++a)
      for (int b = 0; b < q; ++b)
        for (int c = 0; c < q; ++c) {
          // Collapse the cube to the tet: ξ1 = u, ξ2 = v(1−u), ξ3 = w(1−u)(1−v).
          const double u = gx[a], v = gx[b], w = gx[c];
          const double jac = (1 - u) * (1 - u) * (1 - v);
          const double L[4] = {1 - u - v * (1 - u) - w * (1 - u) * (1 - v), u, v * (1 - u), w * (1 - u) * (1 - v)};
          // det J of the quadratic map at L.
          Eigen::Matrix<double, 10, 4> dL = Eigen::Matrix<double, 10, 4>::Zero();
          for (int k = 0; k < 4; ++k) dL(k, k) = 4 * L[k] - 1;
          for (int e = 0; e < 6; ++e) {
            dL(4 + e, kTetEdges[e][0]) = 4 * L[kTetEdges[e][1]];
            dL(4 + e, kTetEdges[e][1]) = 4 * L[kTetEdges[e][0]];
          }
          Eigen::Matrix<double, 10, 3> dn;
          for (int k = 0; k < 3; ++k) dn.col(k) = dL.col(k + 1) - dL.col(0);
          exact += gw[a] * gw[b] * gw[c] * jac * (x.transpose() * dn).determinant();
        }
  }
  EXPECT_NEAR(ux.dot(m * ux), exact, 1e-10);
  EXPECT_GT(exact, 1.0 / 6.0);  // the bulge is outward
  EXPECT_LT((k * ux).norm(), 1e-10);
  // A small rotation about z: u = (−y, x, 0) at each node.
  Eigen::Matrix<double, 30, 1> rz = Eigen::Matrix<double, 30, 1>::Zero();
  for (int a = 0; a < 10; ++a) {
    rz(3 * a) = -x(a, 1);
    rz(3 * a + 1) = x(a, 0);
  }
  EXPECT_LT((k * rz).norm(), 1e-9 * k.norm());
}

TEST(VolumeMesh, AFinelyTessellatedSphereIsMeshedForTheAskedSizeWithItsBoundaryOnTheInput) {
  // 64 × 128 UV sphere (8 000 vertices, slivers at the poles) meshed at a 25 mm edge: the
  // analysis no longer keeps its triangles, every boundary vertex lies on the input, and the
  // volume stays within the distance bound's reach.
  const double r = 0.1;
  const SurfaceMesh sphere = uv_sphere(r, 64, 128);
  const TetMesh mesh = mesh_volume(sphere, uniform(0.025, 0.0005));
  EXPECT_LT(mesh.surface_vertex_count, sphere.vertices.rows() / 4);
  EXPECT_GT(mesh.tets.rows(), 100);
  EXPECT_EQ(mesh.input_vertices.rows(), sphere.vertices.rows());
  for (int i = 0; i < mesh.surface_vertex_count; ++i)
    EXPECT_NEAR(mesh.vertices.row(i).norm(), r, 2e-3 * r) << "vertex " << i;
  for (int i = mesh.surface_vertex_count; i < mesh.vertices.rows(); ++i)
    EXPECT_LT(mesh.vertices.row(i).norm(), r);
  const double exact = 4.0 / 3.0 * M_PI * r * r * r;
  EXPECT_NEAR(total_volume(mesh), exact, 0.03 * exact);
  EXPECT_GT(tet_quality_report(mesh, 1e-3).min_quality, 1e-3);
  // Boundary faces are outward: their signed volume is the mesh's.
  EXPECT_NEAR(signed_volume(SurfaceMesh{mesh.vertices, mesh.surface_faces}), total_volume(mesh),
              1e-9 * exact);
}

TEST(VolumeMesh, CurvedBoundaryEdgesBringACoarseSphereBackToItsVolume) {
  // Coarse P2 on a sphere: chords cut inward (−9 % volume at a 6 cm edge); with the edge nodes on the
  // input surface the quadratic elements' volume (ρ = 1 mass of a translation) is far closer.
  const double r = 0.1;
  const SurfaceMesh sphere = uv_sphere(r, 48, 96);
  const TetMesh mesh = mesh_volume(sphere, uniform(0.06, 0.01));
  const double exact = 4.0 / 3.0 * M_PI * r * r * r;
  const double straight_error = std::abs(total_volume(mesh) / exact - 1);
  const FemMesh fem = make_fem_mesh(mesh, 2);
  EXPECT_GT(fem.curved_edges, 0);
  Material unit{"unit", 1.0, 1.0, 0.25, 0, 0, ""};
  const FemMatrices m = assemble_fem_matrices(fem, unit);
  const SparseMatrix M = symmetric_from_lower(m.mass);
  Eigen::VectorXd ux = Eigen::VectorXd::Zero(M.rows());
  for (Eigen::Index i = 0; i < ux.size(); i += 3) ux(i) = 1;
  const double curved_error = std::abs(ux.dot(M * ux) / exact - 1);
  EXPECT_GT(straight_error, 0.01);
  EXPECT_LT(curved_error, straight_error / 5) << "straight " << straight_error << ", curved " << curved_error;
  // Cubic elements on the same tetrahedra keep the quadratic ones' curved boundary: the same
  // volume to rounding (their map is the quadratic map), and a cubic field's mass is theirs too.
  const FemMesh cubic = make_fem_mesh(mesh, 3);
  EXPECT_EQ(cubic.curved_edges, fem.curved_edges);
  const SparseMatrix M3 = symmetric_from_lower(assemble_fem_matrices(cubic, unit).mass);
  Eigen::VectorXd ux3 = Eigen::VectorXd::Zero(M3.rows());
  for (Eigen::Index i = 0; i < ux3.size(); i += 3) ux3(i) = 1;
  EXPECT_NEAR(ux3.dot(M3 * ux3), ux.dot(M * ux), 1e-9 * exact);
  // Rigid motions carry no energy in the curved cubic elements either.
  const SparseMatrix K3 = symmetric_from_lower(assemble_fem_matrices(cubic, unit).stiffness);
  Eigen::VectorXd spin = Eigen::VectorXd::Zero(K3.rows());
  for (Eigen::Index n = 0; n < cubic.nodes.rows(); ++n)
    spin.segment<3>(3 * n) = Eigen::Vector3d(0.3, -0.2, 1.0).cross(Eigen::Vector3d(cubic.nodes.row(n)));
  EXPECT_LT((K3 * spin).norm(), 1e-9 * K3.norm() * spin.norm());
}

TEST(VolumeMesh, AThinShellMeshedWithElementsAsThickAsItsWallIsOneManifoldBody) {
  // Elements 3x the wall of a hollow sphere: Delaunay refinement pinches the wall (parts of the
  // boundary touching at an edge or a vertex) and leaves cells apart from the body. The result
  // is one body with a 2-manifold, outward boundary (what the excitation normals, the surface
  // data and the rigid-mode count need), and the shell is still whole.
  const double r = 0.1, wall = 0.004;
  const SurfaceMesh shell = hollow_sphere(r, wall, 32, 64);
  const TetMesh mesh = mesh_volume(shell, uniform(0.012, 0.0012));
  SurfaceMesh boundary{mesh.vertices.topRows(mesh.surface_vertex_count), mesh.surface_faces};
  EXPECT_NO_THROW(check_and_orient_surface(boundary));
  EXPECT_EQ(count_connected_bodies(mesh.tets, mesh.vertices.rows()), 1);
  const double exact = 4.0 / 3.0 * M_PI * (r * r * r - std::pow(r - wall, 3));
  EXPECT_NEAR(total_volume(mesh), exact, 0.15 * exact);
}

TEST(VolumeMesh, AThinPlatesSkinsCollapseToLongerCubicElementsWithTheSameModes) {
  // A free steel plate 0.12 × 0.06 m, 5 mm thick, triangulated as CAD exports are (fans of
  // slivers), refined for a 20 mm edge (which the wall floors at about one cell through it),
  // then its skins collapsed toward 20 mm (edge_collapse.hpp): under half as many elements, one
  // manifold body, its boundary vertices still on the input, and its cubic modes those of the
  // uncollapsed mesh's.
  const SurfaceMesh plate = checked(test::sliver_box(0.12, 0.06, 0.005, 24));
  const TetMesh fine = mesh_volume(plate, uniform(0.02, 0.0002));
  VolumeMeshOptions collapsed = uniform(0.02, 0.0002);
  collapsed.collapse_short_edges = true;
  const TetMesh coarse = mesh_volume(plate, collapsed);
  EXPECT_LT(coarse.tets.rows(), fine.tets.rows() / 2);
  EXPECT_EQ(count_connected_bodies(coarse.tets, coarse.vertices.rows()), 1);
  SurfaceMesh boundary{coarse.vertices.topRows(coarse.surface_vertex_count), coarse.surface_faces};
  EXPECT_NO_THROW(check_and_orient_surface(boundary));
  const Eigen::MatrixXd on_input = nearest_surface_points(plate, boundary.vertices);
  EXPECT_LT((on_input - boundary.vertices).rowwise().norm().maxCoeff(), 1e-6);
  EXPECT_NEAR(total_volume(coarse), total_volume(fine), 0.01 * total_volume(fine));

  ModalAnalysisRequest request;
  request.modes = 8;
  request.fmax_hz = 1e5;
  request.frequencies_only = true;
  const Material steel = find_material_preset("steel");
  const Eigen::VectorXd uncollapsed = analyze_modes(make_fem_mesh(fine, 3), steel, request).eigenvalues.cwiseSqrt();
  const Eigen::VectorXd cubic = analyze_modes(make_fem_mesh(coarse, 3), steel, request).eigenvalues.cwiseSqrt();
  ASSERT_EQ(cubic.size(), uncollapsed.size());
  for (Eigen::Index k = 0; k < cubic.size(); ++k) EXPECT_NEAR(cubic[k] / uncollapsed[k], 1.0, 0.01) << "mode " << k;
}

TEST(VolumeMesh, OnlyTheRingWhereANeckMeetsItsBaseIsAReentrantCrease) {
  const auto [rod, crease] = stepped_rod(0.05, 0.02, 0.015, 0.06, 48, 6);
  std::vector<bool> found(static_cast<std::size_t>(rod.vertices.rows()), false), expected = found;
  for (const auto& [a, b] : reentrant_crease_edges(rod, 30 * M_PI / 180)) found[a] = found[b] = true;
  for (int v : crease) expected[v] = true;
  EXPECT_EQ(found, expected);
  // A turn under the angle asked is not one (the rod turns by 90°).
  EXPECT_TRUE(reentrant_crease_edges(rod, 100 * M_PI / 180).empty());
  // A convex body's edges (a box's) are creases too, but none re-entrant.
  const SurfaceMesh box = checked(test::grid_box(0.1, 0.05, 0.03, 0.01));
  EXPECT_TRUE(reentrant_crease_edges(box, 30 * M_PI / 180).empty());
}

TEST(VolumeMesh, AGrooveFinerThanTheElementsIsNotACreaseTheySee) {
  // A 0.3 mm groove round the disc folds inward by 90° at its bottom, as the neck's root does;
  // seen from 5 mm away (half of a 1 cm element's edge) the disc's side is straight there, and
  // only the neck's root is a crease. (A scan's triangles fold so along a blade's rounded edge.)
  const auto [rod, crease] = stepped_rod(0.05, 0.02, 0.015, 0.06, 48, 6, 0.0003);
  auto rings = [&, &rod = rod](const Eigen::VectorXd& scale_m) {
    std::vector<bool> found(static_cast<std::size_t>(rod.vertices.rows()), false);
    for (const auto& [a, b] : reentrant_crease_edges(rod, 30 * M_PI / 180, scale_m)) found[a] = found[b] = true;
    return found;
  };
  std::vector<bool> neck(static_cast<std::size_t>(rod.vertices.rows()), false);
  for (int v : crease) neck[v] = true;
  const std::vector<bool> at_triangles = rings({}), at_elements = rings(Eigen::VectorXd::Constant(rod.vertices.rows(), 0.005));
  EXPECT_EQ(std::count(at_triangles.begin(), at_triangles.end(), true), 2 * 48);  // the neck's and the groove's
  EXPECT_EQ(at_elements, neck);
  // A groove as deep as the elements are long is one they see.
  const auto [deep, deep_crease] = stepped_rod(0.05, 0.02, 0.015, 0.06, 48, 6, 0.006);
  EXPECT_EQ(reentrant_crease_edges(deep, 30 * M_PI / 180, Eigen::VectorXd::Constant(deep.vertices.rows(), 0.005)).size(),
            2u * 48);
}

TEST(VolumeMesh, AReentrantCreaseIsFollowedWithinItsOwnTighterBound) {
  // The neck's root meshed with coarse elements and a loose plain bound: a boundary that cuts
  // the corner fills the neck in by more than the plain bound; with the crease's own, tighter
  // bound it is filled in by a fraction of that.
  const auto [rod, crease] = stepped_rod(0.05, 0.02, 0.015, 0.06, 96, 24);
  auto filled_in_m = [&, &crease = crease](const VolumeMeshOptions& o) {
    const TetMesh mesh = mesh_volume(rod, o);
    const SurfaceMesh boundary{mesh.vertices.topRows(mesh.surface_vertex_count), mesh.surface_faces};
    Eigen::MatrixXd ring(static_cast<Eigen::Index>(crease.size()), 3);
    for (std::size_t k = 0; k < crease.size(); ++k) ring.row(static_cast<Eigen::Index>(k)) = rod.vertices.row(crease[k]);
    return (nearest_surface_points(boundary, ring) - ring).rowwise().norm().maxCoeff();
  };
  VolumeMeshOptions plain = uniform(0.02, 0.002);
  VolumeMeshOptions with_crease = plain;
  with_crease.max_crease_boundary_distance_m = [](double) { return 0.0002; };
  const double plain_m = filled_in_m(plain), crease_m = filled_in_m(with_crease);
  // No crease is protected as a feature edge, so the corner is rounded by a few times the bound
  // (the facet distance bounds a facet's sag at its circumcentre, not at the crease line).
  EXPECT_GT(plain_m, 0.0008);
  EXPECT_LT(crease_m, 0.001);
  EXPECT_LT(crease_m, plain_m / 3) << "plain bound: filled in by " << plain_m << " m";
}

TEST(VolumeMesh, LocalThicknessMeasuresTheWallOfAShell) {
  // A closed box 0.2 × 0.2 × 0.01: its faces' rays cross the 10 mm wall (or the 200 mm span
  // from the thin sides' vertices), and the median over neighbours picks the wall for most.
  const SurfaceMesh m = checked(test::grid_box(0.2, 0.2, 0.01, 0.01));
  const Eigen::VectorXd t = local_thickness(m);
  int on_wall = 0;
  for (Eigen::Index i = 0; i < t.size(); ++i) on_wall += std::abs(t[i] - 0.01) < 1e-3;
  EXPECT_GT(on_wall, 0.8 * t.size());
}

TEST(VolumeMesh, WallsSetTheElementsOfAShellNotOfABall) {
  // Elements of 3/4 of the wall where it is thinner than the 5 cm a thick part gets: a hollow
  // sphere's 4 mm wall sets them everywhere, a solid ball's 20 cm nowhere.
  const auto edge_m = [](double wall_m) { return std::min(0.05, 0.75 * wall_m); };
  EXPECT_TRUE(walls_set_elements(local_thickness(hollow_sphere(0.1, 0.004, 24, 48)), edge_m));
  EXPECT_FALSE(walls_set_elements(local_thickness(uv_sphere(0.1, 24, 48)), edge_m));
}

TEST(VolumeMesh, AShellsMedianWallIsThinBesideItsSizeALimbedBallsIsNot) {
  // The solid's or the walls' cell bounds follow from this (meshed_as_walls: under 1/15).
  // A 4 mm shell of 0.2 m: 4 mm over a 0.35 m diagonal. A 1 cm plate of 20 cm: 1 cm over
  // 0.28 m. A ball with a horn: its ball's 24 cm sets the median, not the horn's 4 cm.
  const SurfaceMesh shell = hollow_sphere(0.1, 0.004, 24, 48);
  EXPECT_NEAR(median_wall_per_size(shell, local_thickness(shell)), 0.004 / (0.2 * std::sqrt(3.0)), 0.002);
  const SurfaceMesh plate = checked(test::grid_box(0.2, 0.2, 0.01, 0.01));
  EXPECT_NEAR(median_wall_per_size(plate, local_thickness(plate)), 0.01 / std::sqrt(0.2 * 0.2 * 2 + 0.01 * 0.01), 0.003);
  const SurfaceMesh horned = checked(test::horned_ball(0.12, 0.02, 0.25, 48));
  EXPECT_GT(median_wall_per_size(horned, local_thickness(horned)), 1.0 / 15);
}

TEST(VolumeMesh, ASolidIsNotMeshedAsWallsWhenItsThicknessSetsTheElements) {
  // At a low frequency (few modes asked) the thickness sets the elements of a solid too: here
  // 3/4 of it everywhere below 20 cm, the horned ball's 24 cm ball as well as its 4 cm horn.
  // It keeps the solid's bounds; a 4 mm shell and a 1 cm plate get the walls'.
  const auto edge_m = [](double wall_m) { return std::min(0.2, 0.75 * wall_m); };
  const SurfaceMesh horned = checked(test::horned_ball(0.12, 0.02, 0.25, 48));
  const Eigen::VectorXd horned_t = local_thickness(horned);
  ASSERT_TRUE(walls_set_elements(horned_t, edge_m));
  EXPECT_FALSE(meshed_as_walls(horned, horned_t, edge_m));
  const SurfaceMesh shell = hollow_sphere(0.1, 0.004, 24, 48);
  EXPECT_TRUE(meshed_as_walls(shell, local_thickness(shell), edge_m));
  const SurfaceMesh plate = checked(test::grid_box(0.2, 0.2, 0.01, 0.01));
  EXPECT_TRUE(meshed_as_walls(plate, local_thickness(plate), edge_m));
}

// The wall thickness a meshing computes is kept for the next meshing of the same surface (the
// coarse pass, then the analysis): the same mesh as without it; another surface, even with as
// many vertices, gets its own.
TEST(VolumeMesh, TheWallThicknessKeptBetweenMeshingsIsTheSurfacesOwn) {
  const SurfaceMesh sphere = uv_sphere(0.1, 32, 64), smaller = uv_sphere(0.08, 32, 64);
  ASSERT_EQ(sphere.vertices.rows(), smaller.vertices.rows());
  MeshInputOptions options;
  options.max_tet_volume_m3 = std::pow(0.025, 3) / (6 * std::sqrt(2.0));  // 25 mm elements
  const Material steel = find_material_preset("steel");
  StageTimer timer;
  SurfaceMeshingCache cache;
  const TetMesh first = mesh_surface(sphere, steel, options, timer, &cache);
  ASSERT_EQ(cache.surface, &sphere) << "the sphere was not meshed for the physics";
  EXPECT_EQ(cache.vertex_thickness_m, local_thickness(sphere));
  const TetMesh again = mesh_surface(sphere, steel, options, timer, &cache);
  const TetMesh without = mesh_surface(sphere, steel, options, timer);
  EXPECT_EQ(again.vertices, without.vertices);
  EXPECT_EQ(again.tets, without.tets);
  EXPECT_EQ(first.tets, without.tets);
  mesh_surface(smaller, steel, options, timer, &cache);
  EXPECT_EQ(cache.surface, &smaller);
  EXPECT_EQ(cache.vertex_thickness_m, local_thickness(smaller));
}

TEST(VolumeMesh, ARefinementThatDoesNotSettleUnderItsCapIsMadeAgainAtTheGuaranteedBound) {
  // A cell bound below 2 is capped (refinement may not end near sharp features); a cap of 50
  // vertices is reached on a sphere meshed at 25 mm, and the mesh is made again at 3: the same
  // sound mesh as one asked at 3.
  const SurfaceMesh sphere = uv_sphere(0.1, 32, 64);
  VolumeMeshOptions tight = uniform(0.025, 0.001);
  tight.cell_radius_edge_bound = 1.5;
  tight.max_refinement_vertices = 50;
  const TetMesh capped = mesh_volume(sphere, tight);
  const TetMesh at_three = mesh_volume(sphere, uniform(0.025, 0.001));
  EXPECT_EQ(capped.tets.rows(), at_three.tets.rows());
  EXPECT_GT(tet_quality_report(capped, 1e-3).min_quality, 1e-3);
}
