#include "fem/surface_repair.hpp"

#include <CGAL/Polygon_mesh_processing/border.h>
#include <CGAL/Polygon_mesh_processing/orient_polygon_soup.h>
#include <CGAL/Polygon_mesh_processing/orientation.h>
#include <CGAL/Polygon_mesh_processing/polygon_soup_to_polygon_mesh.h>
#include <CGAL/Polygon_mesh_processing/repair_degeneracies.h>
#include <CGAL/Polygon_mesh_processing/stitch_borders.h>
#include <CGAL/Polygon_mesh_processing/triangulate_hole.h>
#include <CGAL/boost/graph/helpers.h>
#include <fmt/format.h>

#include <Eigen/Geometry>
#include <array>
#include <cmath>
#include <cstdint>
#include <set>
#include <unordered_map>
#include <vector>

#include "fem/cgal_surface.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {

namespace PMP = CGAL::Polygon_mesh_processing;

namespace {

// Merges vertices within `tolerance` of an earlier one (a hash grid of cells `tolerance` wide,
// each vertex compared with the 27 cells around it). Returns the new index of each vertex.
std::vector<int> merge_close_vertices(const Eigen::MatrixXd& V, double tolerance,
                                      std::vector<Eigen::Vector3d>& kept) {
  struct CellHash {
    std::size_t operator()(const std::array<std::int64_t, 3>& c) const {
      return static_cast<std::size_t>(c[0] * 73856093 ^ c[1] * 19349663 ^ c[2] * 83492791);
    }
  };
  std::unordered_map<std::array<std::int64_t, 3>, std::vector<int>, CellHash> grid;
  std::vector<int> index(static_cast<std::size_t>(V.rows()));
  for (Eigen::Index i = 0; i < V.rows(); ++i) {
    const Eigen::Vector3d p = V.row(i);
    std::array<std::int64_t, 3> cell;
    for (int k = 0; k < 3; ++k) cell[static_cast<std::size_t>(k)] = static_cast<std::int64_t>(std::floor(p[k] / tolerance));
    int found = -1;
    for (int dx = -1; dx <= 1 && found < 0; ++dx)
      for (int dy = -1; dy <= 1 && found < 0; ++dy)
        for (int dz = -1; dz <= 1 && found < 0; ++dz) {
          const auto it = grid.find({cell[0] + dx, cell[1] + dy, cell[2] + dz});
          if (it == grid.end()) continue;
          for (const int j : it->second)
            if ((kept[static_cast<std::size_t>(j)] - p).norm() <= tolerance) {
              found = j;
              break;
            }
        }
    if (found < 0) {
      found = static_cast<int>(kept.size());
      kept.push_back(p);
      grid[cell].push_back(found);
    }
    index[static_cast<std::size_t>(i)] = found;
  }
  return index;
}

Eigen::Vector3d normal(const std::vector<Eigen::Vector3d>& P, const std::vector<std::size_t>& f) {
  return (P[f[1]] - P[f[0]]).cross(P[f[2]] - P[f[0]]);
}

double surface_area(const cgal::Mesh& m) {
  double area = 0;
  for (auto f : m.faces()) area += PMP::face_area(f, m);
  return area;
}

// Area of the polygon a border cycle bounds, from its vector area (exact for a planar hole,
// the projected area otherwise).
double hole_area(const cgal::Mesh& m, cgal::Mesh::Halfedge_index border) {
  Eigen::Vector3d sum = Eigen::Vector3d::Zero();
  for (auto h : CGAL::halfedges_around_face(border, m)) {
    const auto& a = m.point(m.source(h));
    const auto& b = m.point(m.target(h));
    sum += Eigen::Vector3d(a.x(), a.y(), a.z()).cross(Eigen::Vector3d(b.x(), b.y(), b.z()));
  }
  return 0.5 * sum.norm();
}

}  // namespace

bool SurfaceRepairReport::changed() const {
  return merged_vertices || dropped_faces || removed_degenerate || split_vertices ||
         stitched_edges || reoriented_faces || filled_holes || unused_vertices;
}

std::string SurfaceRepairReport::summary() const {
  std::vector<std::string> parts;
  auto count = [](int n, const char* one, const char* many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
  };
  if (merged_vertices) parts.push_back("merged " + count(merged_vertices, "duplicate vertex", "duplicate vertices"));
  if (dropped_faces) parts.push_back("dropped " + count(dropped_faces, "degenerate or duplicate face", "degenerate or duplicate faces"));
  if (removed_degenerate) parts.push_back("removed " + count(removed_degenerate, "zero-area face", "zero-area faces"));
  if (split_vertices) parts.push_back("split " + count(split_vertices, "non-manifold vertex", "non-manifold vertices"));
  if (stitched_edges) parts.push_back("stitched " + count(stitched_edges, "border edge pair", "border edge pairs"));
  if (reoriented_faces) parts.push_back("re-oriented " + count(reoriented_faces, "face", "faces"));
  if (filled_holes)
    parts.push_back(fmt::format("filled {} (+{} faces)", count(filled_holes, "hole", "holes"), hole_faces));
  if (unused_vertices) parts.push_back("dropped " + count(unused_vertices, "unused vertex", "unused vertices"));
  if (unfilled_holes) parts.push_back("left " + count(unfilled_holes, "hole too large to fill", "holes too large to fill"));
  if (parts.empty()) return "nothing to repair";
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  return s;
}

SurfaceRepairReport repair_surface(SurfaceMesh& mesh) {
  SurfaceRepairReport r;
  const auto& V = mesh.vertices;
  if (V.rows() == 0 || mesh.faces.rows() == 0) throw Error("surface mesh is empty (no faces)");
  if (!V.allFinite()) throw Error("surface mesh: a vertex coordinate is not finite (cannot repair)");
  const double diag = (V.colwise().maxCoeff() - V.colwise().minCoeff()).norm();

  // 1. Duplicate vertices; faces repeating a vertex; duplicate faces.
  std::vector<Eigen::Vector3d> points;
  const auto index = merge_close_vertices(V, 1e-7 * diag, points);
  r.merged_vertices = static_cast<int>(V.rows()) - static_cast<int>(points.size());
  std::vector<std::vector<std::size_t>> polygons;
  std::set<std::array<std::size_t, 3>> seen;
  for (Eigen::Index f = 0; f < mesh.faces.rows(); ++f) {
    std::vector<std::size_t> p(3);
    for (int k = 0; k < 3; ++k) {
      const int v = mesh.faces(f, k);
      if (v < 0 || v >= V.rows()) throw Error(fmt::format("surface mesh: face {} refers to vertex {}, which does not exist", f, v));
      p[static_cast<std::size_t>(k)] = static_cast<std::size_t>(index[static_cast<std::size_t>(v)]);
    }
    std::array<std::size_t, 3> key{p[0], p[1], p[2]};
    std::sort(key.begin(), key.end());
    if (p[0] == p[1] || p[1] == p[2] || p[0] == p[2] || !seen.insert(key).second) {
      ++r.dropped_faces;
      continue;
    }
    polygons.push_back(std::move(p));
  }
  if (polygons.empty()) throw Error("surface mesh: no face is left after dropping degenerate ones");

  // 2. Consistent orientation, non-manifold vertices duplicated (CGAL's soup orienter).
  std::vector<cgal::Point> soup_points;
  soup_points.reserve(points.size());
  for (const auto& p : points) soup_points.emplace_back(p.x(), p.y(), p.z());
  std::vector<Eigen::Vector3d> before_normals;
  for (const auto& p : polygons) before_normals.push_back(normal(points, p));
  const std::size_t points_before = soup_points.size();
  PMP::orient_polygon_soup(soup_points, polygons);
  r.split_vertices = static_cast<int>(soup_points.size() - points_before);
  points.resize(soup_points.size());
  for (std::size_t i = 0; i < soup_points.size(); ++i)
    points[i] = {soup_points[i].x(), soup_points[i].y(), soup_points[i].z()};
  for (std::size_t f = 0; f < polygons.size(); ++f)
    if (normal(points, polygons[f]).dot(before_normals[f]) < 0) ++r.reoriented_faces;

  cgal::Mesh m;
  PMP::polygon_soup_to_polygon_mesh(soup_points, polygons, m);

  // 3. Borders that meet (the same positions, split apart) are sewn together.
  r.stitched_edges = static_cast<int>(PMP::stitch_borders(m));

  // 4. Zero-area faces (needles and caps) removed by edge collapses and flips.
  const auto faces_before = m.number_of_faces();
  PMP::remove_degenerate_faces(m);
  m.collect_garbage();
  if (m.number_of_faces() < faces_before)
    r.removed_degenerate = static_cast<int>(faces_before - m.number_of_faces());

  // 5. Holes: filled when small next to the surface (a missing face or a scan gap), left for
  // the check to report when large (an open sheet is not a solid to be closed by guessing).
  const double area = surface_area(m);
  std::vector<cgal::Mesh::Halfedge_index> borders;
  PMP::extract_boundary_cycles(m, std::back_inserter(borders));
  for (const auto h : borders) {
    if (hole_area(m, h) > 0.25 * area) {
      ++r.unfilled_holes;
      continue;
    }
    std::vector<cgal::Mesh::Face_index> patch;
    std::vector<cgal::Mesh::Vertex_index> added;
    PMP::triangulate_and_refine_hole(m, h, std::back_inserter(patch), std::back_inserter(added));
    if (patch.empty()) {
      ++r.unfilled_holes;
      continue;
    }
    ++r.filled_holes;
    r.hole_faces += static_cast<int>(patch.size());
  }

  // 6. Closed shells oriented to bound a volume (outer ones outwards, cavities inwards).
  if (CGAL::is_closed(m)) {
    std::vector<cgal::Kernel::Vector_3> normals;
    for (auto f : m.faces()) normals.push_back(PMP::compute_face_normal(f, m));
    PMP::orient_to_bound_a_volume(m);
    std::size_t i = 0;
    for (auto f : m.faces()) r.reoriented_faces += PMP::compute_face_normal(f, m) * normals[i++] < 0;
  }

  const auto used_before = m.number_of_vertices();
  mesh = cgal::from_cgal(m);
  r.unused_vertices = static_cast<int>(used_before) - static_cast<int>(mesh.vertices.rows());
  // Vertices keep their order through CGAL's soup-to-mesh and garbage collection; split and
  // hole-filling vertices come last. Merging and removal shift the numbers after them.
  const bool renumbered = r.merged_vertices || r.removed_degenerate || r.unused_vertices;
  notice(fmt::format("--repair: {}{}", r.summary(),
                     renumbered ? "; vertex numbers (vertex:I) now count the repaired surface's vertices" : ""));
  return r;
}

}  // namespace mesh2dsp
