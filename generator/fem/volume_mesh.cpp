#include "fem/volume_mesh.hpp"

#include <CGAL/AABB_face_graph_triangle_primitive.h>
#include <CGAL/AABB_traits.h>
#include <CGAL/AABB_tree.h>
#include <CGAL/Mesh_complex_3_in_triangulation_3.h>
#include <CGAL/Mesh_criteria_3.h>
#include <CGAL/Mesh_triangulation_3.h>
#include <CGAL/Polygon_mesh_processing/compute_normal.h>
#include <CGAL/Polyhedral_mesh_domain_3.h>
#include <CGAL/exude_mesh_3.h>
#include <CGAL/make_mesh_3.h>
#include <CGAL/perturb_mesh_3.h>
#include <fmt/format.h>

#include <Eigen/Geometry>

#include <algorithm>
#include <array>
#include <map>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "fem/cgal_surface.hpp"
#include "fem/elements.hpp"
#include "fem/resolution.hpp"
#include "util/error.hpp"

namespace mesh2dsp {
namespace {

using cgal::Kernel;
using cgal::Point;
using Polyhedron = cgal::Mesh;
using Domain = CGAL::Polyhedral_mesh_domain_3<Polyhedron, Kernel>;
using Triangulation = CGAL::Mesh_triangulation_3<Domain, CGAL::Default, CGAL::Sequential_tag>::type;
using Complex = CGAL::Mesh_complex_3_in_triangulation_3<Triangulation>;
using Criteria = CGAL::Mesh_criteria_3<Triangulation>;
using Primitive = CGAL::AABB_face_graph_triangle_primitive<Polyhedron>;
using Tree = CGAL::AABB_tree<CGAL::AABB_traits<Kernel, Primitive>>;

Eigen::Vector3d to_eigen(const Point& p) { return {p.x(), p.y(), p.z()}; }

// The local thickness of the input at any point: that of the nearest input face (the mean of
// its vertices'). Mesh_3 asks for sizes at points inside the body too; the nearest face's wall
// is the wall the point lies in.
class ThicknessField {
 public:
  ThicknessField(const Polyhedron& mesh, Eigen::VectorXd vertex_thickness_m)
      : mesh_(mesh), tree_(faces(mesh).first, faces(mesh).second, mesh),
        thickness_m_(std::move(vertex_thickness_m)) {
    tree_.accelerate_distance_queries();
  }
  double at(const Point& p) const {
    const auto [closest, face] = tree_.closest_point_and_primitive(p);
    double sum = 0;
    int count = 0;
    for (auto v : CGAL::vertices_around_face(mesh_.halfedge(face), mesh_)) {
      sum += thickness_m_[static_cast<Eigen::Index>(v.idx())];
      ++count;
    }
    return sum / count;
  }

 private:
  const Polyhedron& mesh_;
  Tree tree_;
  Eigen::VectorXd thickness_m_;
};

// A Mesh_3 sizing field: f(local thickness) at the point asked.
class SizingField {
 public:
  using FT = Kernel::FT;
  SizingField(const ThicknessField& thickness, std::function<double(double)> size_of_thickness)
      : thickness_(&thickness), size_(std::move(size_of_thickness)) {}
  template <class Index>
  FT operator()(const Point& p, const int, const Index&) const {
    return size_(thickness_->at(p));
  }

 private:
  const ThicknessField* thickness_;
  std::function<double(double)> size_;
};

// Mesh_3 can leave a flat cell on a planar part of the boundary: four vertices on one face
// of a box, which exudation cannot move off it. Such a cell holds no volume and its faces lie in
// the boundary's plane, so taking it out leaves the domain as it was. Repeated, since taking one
// out can put another flat cell on the boundary.
TetMesh tet_mesh_without_flat_boundary_cells(const std::vector<Eigen::Vector3d>& points,
                                             std::vector<std::array<int, 4>> cells,
                                             const SurfaceMesh& input) {
  auto quality = [&](const std::array<int, 4>& c) {
    TetCorners x;
    for (int k = 0; k < 4; ++k) x.row(k) = points[c[k]].transpose();
    return std::abs(tet_quality(x));
  };
  for (int pass = 0; pass < 8; ++pass) {
    std::map<std::array<int, 3>, int> face_count;
    for (const auto& c : cells)
      for (int skip = 0; skip < 4; ++skip) {
        std::array<int, 3> f;
        for (int k = 0, j = 0; k < 4; ++k)
          if (k != skip) f[j++] = c[k];
        std::sort(f.begin(), f.end());
        ++face_count[f];
      }
    std::vector<std::array<int, 4>> kept;
    for (const auto& c : cells) {
      bool on_boundary = false;
      for (int skip = 0; skip < 4 && !on_boundary; ++skip) {
        std::array<int, 3> f;
        for (int k = 0, j = 0; k < 4; ++k)
          if (k != skip) f[j++] = c[k];
        std::sort(f.begin(), f.end());
        on_boundary = face_count[f] == 1;
      }
      if (!(on_boundary && quality(c) < kRejectTetQuality)) kept.push_back(c);
    }
    if (kept.size() == cells.size()) break;
    cells = std::move(kept);
  }
  Eigen::MatrixXd vertices(static_cast<Eigen::Index>(points.size()), 3);
  for (std::size_t i = 0; i < points.size(); ++i) vertices.row(static_cast<Eigen::Index>(i)) = points[i].transpose();
  Eigen::MatrixXi tets(static_cast<Eigen::Index>(cells.size()), 4);
  for (std::size_t t = 0; t < cells.size(); ++t)
    for (int k = 0; k < 4; ++k) tets(static_cast<Eigen::Index>(t), k) = cells[t][k];
  // Boundary faces (outward) from the cells; then the boundary's vertices first, unused ones
  // (corners of cells taken out) dropped.
  TetMesh all = tet_mesh_from_elements(std::move(vertices), std::move(tets));
  std::vector<int> order(static_cast<std::size_t>(all.vertices.rows()), -1);
  int next = 0;
  for (Eigen::Index f = 0; f < all.surface_faces.rows(); ++f)
    for (int k = 0; k < 3; ++k)
      if (order[all.surface_faces(f, k)] < 0) order[all.surface_faces(f, k)] = next++;
  const int surface_count = next;
  for (Eigen::Index t = 0; t < all.tets.rows(); ++t)
    for (int k = 0; k < 4; ++k)
      if (order[all.tets(t, k)] < 0) order[all.tets(t, k)] = next++;
  TetMesh mesh;
  mesh.vertices.resize(next, 3);
  for (std::size_t i = 0; i < order.size(); ++i)
    if (order[i] >= 0) mesh.vertices.row(order[i]) = all.vertices.row(static_cast<Eigen::Index>(i));
  mesh.tets = all.tets.unaryExpr([&](int v) { return order[v]; });
  mesh.surface_faces = all.surface_faces.unaryExpr([&](int v) { return order[v]; });
  mesh.surface_vertex_count = surface_count;
  mesh.input_vertices = input.vertices;
  mesh.input_faces = input.faces;
  return mesh;
}

double median(std::vector<double> values) {
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

}  // namespace

Eigen::VectorXd local_thickness(const SurfaceMesh& surface) {
  const Polyhedron mesh = cgal::to_cgal(surface);
  Tree tree(faces(mesh).first, faces(mesh).second, mesh);
  const Eigen::MatrixXd normals = vertex_normals(surface);
  const double fallback_m = thickness_measure(surface);
  const Eigen::Index n = surface.vertices.rows();
  Eigen::VectorXd ray_m(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Vector3d origin = surface.vertices.row(i);
    const Polyhedron::Vertex_index self(static_cast<Polyhedron::size_type>(i));
    // The faces around the vertex itself are hit at distance 0: skip them.
    auto skip = [&](Polyhedron::Face_index f) {
      for (auto v : CGAL::vertices_around_face(mesh.halfedge(f), mesh))
        if (v == self) return true;
      return false;
    };
    auto cast = [&](const Eigen::Vector3d& inward) {
      const Kernel::Ray_3 ray(Point(origin.x(), origin.y(), origin.z()),
                              Kernel::Vector_3(inward.x(), inward.y(), inward.z()));
      const auto hit = tree.first_intersection(ray, skip);
      if (hit)
        if (const Point* p = boost::get<Point>(&hit->first)) return (to_eigen(*p) - origin).norm();
      return fallback_m;
    };
    // Along the vertex normal and each incident face's: at a crease the vertex normal runs
    // along the thin part (the edge of a blade: across its width), a face normal through it.
    double distance_m = cast(-normals.row(i).normalized().transpose());
    for (auto f : CGAL::faces_around_target(mesh.halfedge(self), mesh)) {
      if (f == Polyhedron::null_face()) continue;
      const auto face_normal = CGAL::Polygon_mesh_processing::compute_face_normal(f, mesh);
      distance_m = std::min(distance_m, cast(-Eigen::Vector3d(face_normal.x(), face_normal.y(), face_normal.z())));
    }
    ray_m[i] = std::min(distance_m, 2 * fallback_m);
  }
  // The median over each vertex and its neighbours: one ray through a scan's noisy normal or
  // grazing a crease does not set the wall.
  std::vector<std::vector<double>> around(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) around[i].push_back(ray_m[i]);
  for (Eigen::Index f = 0; f < surface.faces.rows(); ++f)
    for (int k = 0; k < 3; ++k)
      around[surface.faces(f, k)].push_back(ray_m[surface.faces(f, (k + 1) % 3)]);
  Eigen::VectorXd thickness_m(n);
  for (Eigen::Index i = 0; i < n; ++i) thickness_m[i] = median(around[i]);
  return thickness_m;
}

TetMesh mesh_volume(const SurfaceMesh& surface, const VolumeMeshOptions& options) {
  Polyhedron polyhedron = cgal::to_cgal(surface);
  const ThicknessField thickness(polyhedron, local_thickness(surface));
  // No crease is protected as a feature edge: CGAL 5.5's protection of feature polylines ran
  // for minutes or crashed (SIGBUS) on the quad-scanned sword look-alike, with 17 creases. A
  // crease is then followed within the facet distance bound like any curved part (a CAD
  // bracket meshed that way takes about twice the elements along its edges).
  Domain domain(polyhedron);

  // Mesh_3 bounds the radius of each surface facet's Delaunay ball and each cell's
  // circumsphere, not edge lengths: a regular tetrahedron of edge h has circumradius
  // h·√6/4 ≈ 0.61·h, a regular triangle's circumradius is h/√3 ≈ 0.58·h.
  const SizingField facet_radius(thickness, [&](double t) { return 0.58 * options.edge_length_m(t); });
  const SizingField cell_radius(thickness, [&](double t) { return 0.61 * options.edge_length_m(t); });
  const SizingField facet_distance(thickness, options.max_boundary_distance_m);
  const Criteria criteria(Criteria::Facet_criteria(25.0, facet_radius, facet_distance,
                                                   CGAL::FACET_VERTICES_ON_SURFACE),
                          Criteria::Cell_criteria(3.0, cell_radius));
  // Exudation removes the slivers Delaunay refinement leaves (1.8 s for 20 000 elements of the
  // cow scan, worst quality 5e-4 -> 0.027); perturbation was tried as well and ran into a
  // 10 s limit on the same mesh for 0.046.
  // manifold(): the boundary is refined until it is a 2-manifold (Delaunay refinement alone may
  // leave two parts of it touching at a vertex or an edge), as excitation normals and the
  // surface data need.
  Complex complex = CGAL::make_mesh_3<Complex>(domain, criteria, CGAL::parameters::no_perturb(),
                                               CGAL::parameters::exude(), CGAL::parameters::manifold());
  // A symmetric input can leave exactly flat cells inside (four refinement points on a bar's
  // mid-plane), which exudation does not see: then the vertices are perturbed, briefly.
  auto worst_quality = [&] {
    double worst = 1;
    for (auto it = complex.cells_in_complex_begin(); it != complex.cells_in_complex_end(); ++it) {
      TetCorners x;
      for (int k = 0; k < 4; ++k) x.row(k) = to_eigen(it->vertex(k)->point().point()).transpose();
      worst = std::min(worst, std::abs(tet_quality(x)));
    }
    return worst;
  };
  if (worst_quality() < kRejectTetQuality) {
    CGAL::perturb_mesh_3(complex, domain, CGAL::parameters::time_limit = 5.0);
    CGAL::exude_mesh_3(complex, CGAL::parameters::time_limit = 5.0);
  }
  if (complex.number_of_cells_in_complex() == 0)
    throw Error("meshing the volume gave no element (is the surface closed?)");

  // The cells' corners, numbered in the order met.
  using VertexHandle = Triangulation::Vertex_handle;
  std::unordered_map<VertexHandle, int> index;
  std::vector<Eigen::Vector3d> points;
  std::vector<std::array<int, 4>> cells;
  cells.reserve(complex.number_of_cells_in_complex());
  for (auto it = complex.cells_in_complex_begin(); it != complex.cells_in_complex_end(); ++it) {
    std::array<int, 4> c;
    for (int k = 0; k < 4; ++k) {
      const VertexHandle v = it->vertex(k);
      auto [slot, inserted] = index.try_emplace(v, static_cast<int>(points.size()));
      if (inserted) points.push_back(to_eigen(v->point().point()));
      c[k] = slot->second;
    }
    cells.push_back(c);
  }
  return tet_mesh_without_flat_boundary_cells(points, std::move(cells), surface);
}

Eigen::MatrixXd nearest_surface_points(const SurfaceMesh& surface, const Eigen::MatrixXd& points) {
  const Polyhedron mesh = cgal::to_cgal(surface);
  Tree tree(faces(mesh).first, faces(mesh).second, mesh);
  tree.accelerate_distance_queries();
  Eigen::MatrixXd out(points.rows(), 3);
  for (Eigen::Index i = 0; i < points.rows(); ++i)
    out.row(i) = to_eigen(tree.closest_point(Point(points(i, 0), points(i, 1), points(i, 2)))).transpose();
  return out;
}

}  // namespace mesh2dsp
