#include "fem/surface_remesh.hpp"

#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Polygon_mesh_processing/detect_features.h>
#include <CGAL/Polygon_mesh_processing/remesh.h>
#include <CGAL/Surface_mesh.h>
#include <fmt/format.h>

#include <cmath>

#include "util/error.hpp"

namespace mesh2dsp {
namespace {
using Kernel = CGAL::Exact_predicates_inexact_constructions_kernel;
using CgalMesh = CGAL::Surface_mesh<Kernel::Point_3>;
namespace PMP = CGAL::Polygon_mesh_processing;
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
  CgalMesh m;
  std::vector<CgalMesh::Vertex_index> vi(mesh.vertices.rows());
  for (int i = 0; i < mesh.vertices.rows(); ++i)
    vi[i] = m.add_vertex({mesh.vertices(i, 0), mesh.vertices(i, 1), mesh.vertices(i, 2)});
  for (int f = 0; f < mesh.faces.rows(); ++f)
    if (m.add_face(vi[mesh.faces(f, 0)], vi[mesh.faces(f, 1)], vi[mesh.faces(f, 2)]) ==
        CgalMesh::null_face())
      throw Error(fmt::format("remeshing: face {} could not be added (non-manifold surface)", f));

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

  SurfaceMesh out;
  out.vertices.resize(static_cast<Eigen::Index>(m.number_of_vertices()), 3);
  for (auto v : m.vertices()) {
    const auto& p = m.point(v);
    out.vertices.row(v.idx()) << p.x(), p.y(), p.z();
  }
  out.faces.resize(static_cast<Eigen::Index>(m.number_of_faces()), 3);
  int row = 0;
  for (auto f : m.faces()) {
    int k = 0;
    for (auto v : CGAL::vertices_around_face(m.halfedge(f), m)) out.faces(row, k++) = static_cast<int>(v.idx());
    ++row;
  }
  check_and_orient_surface(out);
  return out;
}

}  // namespace mesh2dsp
