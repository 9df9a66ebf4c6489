#include "fem/surface_remesh.hpp"

#include <CGAL/Polygon_mesh_processing/detect_features.h>
#include <CGAL/Polygon_mesh_processing/distance.h>
#include <CGAL/Polygon_mesh_processing/remesh.h>
#include <fmt/format.h>

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fem/cgal_surface.hpp"
#include "fem/resolution.hpp"
#include "util/error.hpp"
#include "util/run_parts.hpp"

namespace mesh2dsp {
namespace {
using cgal::Point;
using cgal::to_cgal;
using CgalMesh = cgal::Mesh;
namespace PMP = CGAL::Polygon_mesh_processing;

// The vertices and face centroids of a surface: where its distance to another one peaks.
std::vector<Point> sample_points(const SurfaceMesh& mesh) {
  std::vector<Point> points;
  points.reserve(mesh.vertices.rows() + mesh.faces.rows());
  for (int i = 0; i < mesh.vertices.rows(); ++i)
    points.emplace_back(mesh.vertices(i, 0), mesh.vertices(i, 1), mesh.vertices(i, 2));
  for (int f = 0; f < mesh.faces.rows(); ++f) {
    Eigen::Vector3d c = Eigen::Vector3d::Zero();
    for (int k = 0; k < 3; ++k) c += mesh.vertices.row(mesh.faces(f, k)).transpose() / 3.0;
    points.emplace_back(c.x(), c.y(), c.z());
  }
  return points;
}
double surface_area(const SurfaceMesh& mesh) {
  double area = 0;
  for (int f = 0; f < mesh.faces.rows(); ++f) {
    const Eigen::Vector3d a = mesh.vertices.row(mesh.faces(f, 0)),
                          b = mesh.vertices.row(mesh.faces(f, 1)),
                          c = mesh.vertices.row(mesh.faces(f, 2));
    area += 0.5 * (b - a).cross(c - a).norm();
  }
  return area;
}

// The chords of a coarser triangulation of a curved surface cut inward: a convex object loses
// volume (a sphere at twice the edge: −1 %), and every mode moves up. Moving each vertex along
// its normal by −ΔV/A puts the surface back around the input — half the sag outside, half
// inside — so the volume is kept and the largest deviation roughly halves. Flat faces have no
// sag and do not move.
void restore_volume(SurfaceMesh& mesh, double volume_m3) {
  for (int pass = 0; pass < 2; ++pass) {
    const double area = surface_area(mesh);
    const double change_m3 = volume_m3 - signed_volume(mesh);
    // Below 1e-5 of the volume there is nothing to restore (flat faces): leave it exact.
    if (!(area > 0) || std::abs(change_m3) <= 1e-5 * std::abs(volume_m3)) return;
    const double offset_m = change_m3 / area;
    mesh.vertices += offset_m * vertex_normals(mesh);
  }
}

}  // namespace

double mean_edge_length(const SurfaceMesh& mesh) {
  double sum = 0;
  for (int f = 0; f < mesh.faces.rows(); ++f)
    for (int k = 0; k < 3; ++k)
      sum += (mesh.vertices.row(mesh.faces(f, k)) - mesh.vertices.row(mesh.faces(f, (k + 1) % 3))).norm();
  return mesh.faces.rows() ? sum / (3.0 * mesh.faces.rows()) : 0.0;
}

SurfaceMesh remesh_surface(const SurfaceMesh& mesh, double target_edge_m) {
  if (!(target_edge_m > 0)) throw Error("remeshing needs a positive target edge length");
  CgalMesh m = to_cgal(mesh);

  auto is_feature = m.add_property_map<CgalMesh::Edge_index, bool>("e:is_feature", false).first;
  PMP::detect_sharp_edges(m, 60.0, is_feature);
  // Feature edges are constrained, not protected: they may be split or collapsed along the
  // crease (so coarsening reaches them too) but never flipped or moved off it.
  PMP::isotropic_remeshing(faces(m), target_edge_m, m,
                           CGAL::parameters::number_of_iterations(3)
                               .edge_is_constrained_map(is_feature)
                               .protect_constraints(false)
                               .relax_constraints(false));
  m.collect_garbage();

  SurfaceMesh out = cgal::from_cgal(m);
  restore_volume(out, signed_volume(mesh));
  check_and_orient_surface(out);
  return out;
}

SurfaceDeviation surface_deviation(const SurfaceMesh& input, const SurfaceMesh& remeshed) {
  // The two directions on two cores (each its own trees: a sword scan's 0.35 s on one).
  const SurfaceMesh* from[2] = {&input, &remeshed};
  const SurfaceMesh* to[2] = {&remeshed, &input};
  double distance_m[2] = {0, 0};
  run_parts(2, [&](int k) {
    distance_m[k] = PMP::max_distance_to_triangle_mesh<CGAL::Sequential_tag>(sample_points(*from[k]), to_cgal(*to[k]));
  });
  SurfaceDeviation d;
  d.max_distance_m = std::max(distance_m[0], distance_m[1]);
  const double v0 = signed_volume(input);
  d.relative_volume_change = v0 != 0 ? (signed_volume(remeshed) - v0) / v0 : 0.0;
  return d;
}

}  // namespace mesh2dsp
