#include "fem/tet_mesh.hpp"

#include <fmt/format.h>
#include <tetgen.h>

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "util/error.hpp"

namespace mesh2dsp {

namespace {

std::string tetgen_failure(int code) {
  switch (code) {
    case 1: return "TetGen ran out of memory (try a larger --max-tet-volume)";
    case 3:
      return "the surface intersects itself (TetGen found a self-intersection); repair the mesh";
    case 4:
      return "the surface has a feature too small for TetGen's tolerance (near-coincident "
             "vertices or a sliver face)";
    case 5: return "the surface has two facets that are very close to each other";
    case 10: return "TetGen rejected the input surface as invalid";
    default: return fmt::format("TetGen failed (internal error code {})", code);
  }
}

// TetGen's orientation convention is the opposite of ours (positive signed volume); files vary.
void orient_positively(const Eigen::MatrixXd& vertices, Eigen::MatrixXi& tets) {
  for (int t = 0; t < tets.rows(); ++t)
    if (signed_tet_volume(vertices, tets, t) < 0) std::swap(tets(t, 1), tets(t, 2));
}

}  // namespace

TetMesh tetrahedralize(const SurfaceMesh& surface, const TetrahedralizeOptions& options) {
  tetgenio in, out;
  in.firstnumber = 0;
  in.numberofpoints = static_cast<int>(surface.vertices.rows());
  in.pointlist = new REAL[in.numberofpoints * 3];
  for (int i = 0; i < in.numberofpoints; ++i)
    for (int k = 0; k < 3; ++k) in.pointlist[3 * i + k] = surface.vertices(i, k);
  in.numberoffacets = static_cast<int>(surface.faces.rows());
  in.facetlist = new tetgenio::facet[in.numberoffacets];
  in.facetmarkerlist = nullptr;
  for (int f = 0; f < in.numberoffacets; ++f) {
    auto& facet = in.facetlist[f];
    tetgenio::init(&facet);
    facet.numberofpolygons = 1;
    facet.polygonlist = new tetgenio::polygon[1];
    tetgenio::init(&facet.polygonlist[0]);
    facet.polygonlist[0].numberofvertices = 3;
    facet.polygonlist[0].vertexlist = new int[3];
    for (int k = 0; k < 3; ++k) facet.polygonlist[0].vertexlist[k] = surface.faces(f, k);
  }
  const double volume =
      options.max_tet_volume_m3 ? *options.max_tet_volume_m3 : INFINITY;
  // p: PLC; q: radius-edge / dihedral bound; a: volume bound; Y: no Steiner points on the
  // surface; z: zero-based; Q: quiet.
  std::string switches = fmt::format("pq{}/{}zQ{}", options.radius_edge_ratio,
                                     options.min_dihedral_deg,
                                     options.keep_surface_triangles ? "Y" : "");
  if (std::isfinite(volume)) switches += fmt::format("a{:.6e}", volume);
  // TetGen 1.5 can crash (not just fail) when meshing a self-intersecting surface with -Y, so
  // its intersection test (-d) runs first; it reports the intersecting faces, cheaply.
  {
    tetgenio check;
    try {
      tetrahedralize(const_cast<char*>("dzQ"), &in, &check);
    } catch (int code) {
      throw Error(tetgen_failure(code));
    }
    if (check.numberoftrifaces > 0) {
      const int* f = check.trifacelist;
      throw Error(fmt::format(
          "the surface intersects itself ({} faces involved, e.g. the face with vertices ({}, {}, "
          "{})); repair the mesh",
          check.numberoftrifaces, f[0], f[1], f[2]));
    }
  }
  try {
    tetrahedralize(const_cast<char*>(switches.c_str()), &in, &out);
  } catch (int code) {
    throw Error(tetgen_failure(code));
  }
  if (out.numberoftetrahedra <= 0) throw Error("TetGen produced no tetrahedra");
  if (out.numberofpoints < in.numberofpoints)
    throw Error("TetGen merged surface vertices (duplicate or near-coincident points)");

  Eigen::MatrixXd vertices(out.numberofpoints, 3);
  for (int i = 0; i < out.numberofpoints; ++i)
    for (int k = 0; k < 3; ++k) vertices(i, k) = out.pointlist[3 * i + k];
  // TetGen keeps the input points first and in order (with or without -Y): the surface
  // indices stay valid.
  const double tol = 1e-9 * (surface.vertices.colwise().maxCoeff() -
                             surface.vertices.colwise().minCoeff()).norm();
  for (int i = 0; i < in.numberofpoints; ++i)
    if ((vertices.row(i) - surface.vertices.row(i)).norm() > tol)
      throw Error("TetGen re-ordered the surface vertices; cannot map excitation points");
  Eigen::MatrixXi tets(out.numberoftetrahedra, 4);
  for (int t = 0; t < out.numberoftetrahedra; ++t)
    for (int k = 0; k < 4; ++k) tets(t, k) = out.tetrahedronlist[t * out.numberofcorners + k];
  TetMesh mesh;
  if (options.keep_surface_triangles) {
    mesh.vertices = std::move(vertices);
    mesh.tets = std::move(tets);
    orient_positively(mesh.vertices, mesh.tets);
    mesh.surface_faces = surface.faces;  // the same triangles, in the input's order
  } else {
    mesh = tet_mesh_from_elements(std::move(vertices), std::move(tets));
    // The boundary of the tets (outward) is the input surface with its triangles split; the
    // points TetGen added on it become surface vertices too.
    std::vector<bool> on_surface(mesh.vertices.rows(), false);
    for (int f = 0; f < mesh.surface_faces.rows(); ++f)
      for (int k = 0; k < 3; ++k) on_surface[mesh.surface_faces(f, k)] = true;
    for (int i = in.numberofpoints; i < mesh.vertices.rows(); ++i)
      mesh.surface_steiner_points += on_surface[i];
  }
  mesh.surface_vertex_count = in.numberofpoints;
  return mesh;
}

TetMesh tet_mesh_from_elements(Eigen::MatrixXd vertices, Eigen::MatrixXi tets) {
  TetMesh mesh;
  mesh.vertices = std::move(vertices);
  mesh.tets = std::move(tets);
  // Boundary faces: those that belong to exactly one tet, oriented outward.
  static constexpr int kFace[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  orient_positively(mesh.vertices, mesh.tets);
  std::map<std::array<int, 3>, std::pair<int, std::array<int, 3>>> faces;
  for (int t = 0; t < mesh.tets.rows(); ++t) {
    for (const auto& f : kFace) {
      std::array<int, 3> oriented = {mesh.tets(t, f[0]), mesh.tets(t, f[1]), mesh.tets(t, f[2])};
      auto key = oriented;
      std::sort(key.begin(), key.end());
      auto& entry = faces[key];
      entry.first++;
      entry.second = oriented;
    }
  }
  std::vector<std::array<int, 3>> boundary;
  for (const auto& [key, entry] : faces) {
    if (entry.first > 2)
      throw Error(fmt::format("tet mesh face ({}, {}, {}) is shared by {} tetrahedra", key[0],
                              key[1], key[2], entry.first));
    if (entry.first == 1) boundary.push_back(entry.second);
  }
  mesh.surface_faces.resize(static_cast<int>(boundary.size()), 3);
  for (int i = 0; i < static_cast<int>(boundary.size()); ++i)
    for (int k = 0; k < 3; ++k) mesh.surface_faces(i, k) = boundary[i][k];
  // The outward-facing orientation above follows from the positive tets (faces of kFace point
  // out of their tet). All file vertices are addressable as excitation vertices.
  mesh.surface_vertex_count = static_cast<int>(mesh.vertices.rows());
  return mesh;
}

double signed_tet_volume(const Eigen::MatrixXd& vertices, const Eigen::MatrixXi& tets, int t) {
  const Eigen::Vector3d a = vertices.row(tets(t, 0)), b = vertices.row(tets(t, 1)),
                        c = vertices.row(tets(t, 2)), d = vertices.row(tets(t, 3));
  return (b - a).cross(c - a).dot(d - a) / 6.0;
}

double tet_quality(const Eigen::Matrix<double, 4, 3>& p) {
  const Eigen::Vector3d a = p.row(0), b = p.row(1), c = p.row(2), d = p.row(3);
  const double volume = (b - a).cross(c - a).dot(d - a) / 6.0;
  const double sum_sq = (b - a).squaredNorm() + (c - a).squaredNorm() + (d - a).squaredNorm() +
                        (c - b).squaredNorm() + (d - b).squaredNorm() + (d - c).squaredNorm();
  const double rms = std::sqrt(sum_sq / 6.0);
  return rms > 0 ? 6.0 * std::sqrt(2.0) * volume / (rms * rms * rms) : 0.0;
}

TetQualityReport tet_quality_report(const TetMesh& mesh, double reject_below) {
  TetQualityReport r;
  for (int t = 0; t < mesh.tets.rows(); ++t) {
    Eigen::Matrix<double, 4, 3> p;
    for (int k = 0; k < 4; ++k) p.row(k) = mesh.vertices.row(mesh.tets(t, k));
    const double q = tet_quality(p);
    if (q < r.min_quality) {
      r.min_quality = q;
      r.worst_tet = t;
    }
    if (q < reject_below) ++r.near_degenerate;
  }
  return r;
}

void check_tet_quality(const TetMesh& mesh, double reject_below) {
  const auto r = tet_quality_report(mesh, reject_below);
  if (r.near_degenerate == 0) return;
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  for (int k = 0; k < 4; ++k) centre += mesh.vertices.row(mesh.tets(r.worst_tet, k)).transpose() / 4;
  throw Error(fmt::format(
      "{} of {} tetrahedra are {} (worst quality {:.2e} at tetrahedron {} near ({:.4g}, {:.4g}, "
      "{:.4g})); they would give wrong modes. The surface probably has near-coincident or "
      "nearly touching parts there",
      r.near_degenerate, mesh.tets.rows(), r.min_quality <= 0 ? "inverted or flat" : "near-zero volume",
      r.min_quality, r.worst_tet, centre.x(), centre.y(), centre.z()));
}

}  // namespace mesh2dsp
