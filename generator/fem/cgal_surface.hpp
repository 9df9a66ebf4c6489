#pragma once
// SurfaceMesh <-> CGAL::Surface_mesh, for the CGAL Polygon Mesh Processing steps (repair,
// shell intersection tests). Internal to the FEM library.
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Surface_mesh.h>
#include <fmt/format.h>

#include <vector>

#include "fem/surface_mesh.hpp"
#include "util/error.hpp"

namespace mesh2dsp::cgal {

using Kernel = CGAL::Exact_predicates_inexact_constructions_kernel;
using Point = Kernel::Point_3;
using Mesh = CGAL::Surface_mesh<Point>;

// Vertex i and face f of `mesh` become vertex i and face f of the result. Throws
// mesh2dsp::Error when a face cannot be added (a non-manifold edge or vertex).
inline Mesh to_cgal(const SurfaceMesh& mesh) {
  Mesh m;
  std::vector<Mesh::Vertex_index> vi(static_cast<std::size_t>(mesh.vertices.rows()));
  for (Eigen::Index i = 0; i < mesh.vertices.rows(); ++i)
    vi[static_cast<std::size_t>(i)] =
        m.add_vertex({mesh.vertices(i, 0), mesh.vertices(i, 1), mesh.vertices(i, 2)});
  for (Eigen::Index f = 0; f < mesh.faces.rows(); ++f)
    if (m.add_face(vi[static_cast<std::size_t>(mesh.faces(f, 0))],
                   vi[static_cast<std::size_t>(mesh.faces(f, 1))],
                   vi[static_cast<std::size_t>(mesh.faces(f, 2))]) == Mesh::null_face())
      throw Error(fmt::format("face {} could not be added (non-manifold surface)", f));
  return m;
}

// The triangles of `m` (removed elements skipped, vertices renumbered in their order; vertices
// no face uses are left out).
inline SurfaceMesh from_cgal(const Mesh& m) {
  std::vector<int> index(m.num_vertices(), -1);
  int used = 0;
  for (auto f : m.faces())
    for (auto v : CGAL::vertices_around_face(m.halfedge(f), m)) index[v.idx()] = 0;
  for (auto v : m.vertices())
    if (index[v.idx()] == 0) index[v.idx()] = used++;
  SurfaceMesh out;
  out.vertices.resize(used, 3);
  for (auto v : m.vertices())
    if (index[v.idx()] >= 0) {
      const auto& p = m.point(v);
      out.vertices.row(index[v.idx()]) << p.x(), p.y(), p.z();
    }
  out.faces.resize(static_cast<Eigen::Index>(m.number_of_faces()), 3);
  Eigen::Index row = 0;
  for (auto f : m.faces()) {
    int k = 0;
    for (auto v : CGAL::vertices_around_face(m.halfedge(f), m)) {
      if (k == 3) throw Error("a face with more than three vertices after repair");
      out.faces(row, k++) = index[v.idx()];
    }
    ++row;
  }
  return out;
}

}  // namespace mesh2dsp::cgal
