#include "fem/volume_mesh.hpp"

#include <CGAL/AABB_face_graph_triangle_primitive.h>
#include <CGAL/AABB_traits.h>
#include <CGAL/AABB_tree.h>
#include <CGAL/Mesh_complex_3_in_triangulation_3.h>
#include <CGAL/Mesh_criteria_3.h>
#include <CGAL/Mesh_triangulation_3.h>
#include <CGAL/Polyhedral_mesh_domain_with_features_3.h>
#include <CGAL/make_mesh_3.h>
#include <fmt/format.h>

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "fem/cgal_surface.hpp"
#include "fem/resolution.hpp"
#include "util/error.hpp"

namespace mesh2dsp {
namespace {

using cgal::Kernel;
using cgal::Point;
using Polyhedron = cgal::Mesh;
using Domain = CGAL::Polyhedral_mesh_domain_with_features_3<Kernel, Polyhedron>;
using Triangulation = CGAL::Mesh_triangulation_3<Domain, CGAL::Default, CGAL::Sequential_tag>::type;
using Complex = CGAL::Mesh_complex_3_in_triangulation_3<Triangulation, Domain::Corner_index,
                                                        Domain::Curve_index>;
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
    const Eigen::Vector3d inward = -normals.row(i).normalized();
    const Kernel::Ray_3 ray(Point(origin.x(), origin.y(), origin.z()),
                            Kernel::Vector_3(inward.x(), inward.y(), inward.z()));
    // The faces around the vertex itself are hit at distance 0: skip them.
    const Polyhedron::Vertex_index self(static_cast<Polyhedron::size_type>(i));
    auto skip = [&](Polyhedron::Face_index f) {
      for (auto v : CGAL::vertices_around_face(mesh.halfedge(f), mesh))
        if (v == self) return true;
      return false;
    };
    const auto hit = tree.first_intersection(ray, skip);
    double distance_m = fallback_m;
    if (hit)
      if (const Point* p = boost::get<Point>(&hit->first))
        distance_m = (to_eigen(*p) - origin).norm();
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
  Domain domain(polyhedron);
  domain.detect_features(options.feature_angle_deg);

  const SizingField edge(thickness, options.edge_length_m);
  // Mesh_3 bounds the radius of each surface facet's Delaunay ball and each cell's
  // circumsphere, not edge lengths: a regular tetrahedron of edge h has circumradius
  // h·√6/4 ≈ 0.61·h, a regular triangle's circumradius is h/√3 ≈ 0.58·h.
  const SizingField facet_radius(thickness, [&](double t) { return 0.58 * options.edge_length_m(t); });
  const SizingField cell_radius(thickness, [&](double t) { return 0.61 * options.edge_length_m(t); });
  const SizingField facet_distance(thickness, options.max_boundary_distance_m);
  const Criteria criteria(Criteria::Edge_criteria(edge),
                          Criteria::Facet_criteria(25.0, facet_radius, facet_distance,
                                                   CGAL::FACET_VERTICES_ON_SAME_SURFACE_PATCH),
                          Criteria::Cell_criteria(3.0, cell_radius));
  // Exudation removes the slivers Delaunay refinement leaves (1.8 s for 20 000 elements of the
  // cow scan, worst quality 5e-4 -> 0.027); perturbation was tried as well and ran into a
  // 10 s limit on the same mesh for 0.046.
  const Complex complex = CGAL::make_mesh_3<Complex>(domain, criteria, CGAL::parameters::no_perturb(),
                                                     CGAL::parameters::exude());
  if (complex.number_of_cells_in_complex() == 0)
    throw Error("meshing the volume gave no element (is the surface closed?)");

  // Number the vertices of the complex: those on its boundary first.
  using VertexHandle = Triangulation::Vertex_handle;
  std::unordered_map<VertexHandle, int> index;
  std::vector<VertexHandle> order;
  std::vector<std::array<VertexHandle, 3>> boundary;
  for (auto it = complex.facets_in_complex_begin(); it != complex.facets_in_complex_end(); ++it) {
    // A boundary facet is seen from its cell inside the domain, outward: orient it that way.
    auto [cell, i] = *it;
    if (!complex.is_in_complex(cell)) {
      const auto mirror = complex.triangulation().mirror_facet(*it);
      cell = mirror.first;
      i = mirror.second;
    }
    std::array<VertexHandle, 3> f;
    for (int k = 0; k < 3; ++k) f[k] = cell->vertex((i + 1 + k) % 4);
    // Outward: the cell's fourth vertex lies behind the facet.
    const Eigen::Vector3d a = to_eigen(f[0]->point().point()), b = to_eigen(f[1]->point().point()),
                          c = to_eigen(f[2]->point().point()),
                          d = to_eigen(cell->vertex(i)->point().point());
    if ((b - a).cross(c - a).dot(d - a) > 0) std::swap(f[1], f[2]);
    boundary.push_back(f);
    for (auto v : f)
      if (index.try_emplace(v, static_cast<int>(order.size())).second) order.push_back(v);
  }
  const int surface_count = static_cast<int>(order.size());
  std::vector<std::array<int, 4>> cells;
  cells.reserve(complex.number_of_cells_in_complex());
  for (auto it = complex.cells_in_complex_begin(); it != complex.cells_in_complex_end(); ++it) {
    std::array<int, 4> c;
    for (int k = 0; k < 4; ++k) {
      const VertexHandle v = it->vertex(k);
      auto [slot, inserted] = index.try_emplace(v, static_cast<int>(order.size()));
      if (inserted) order.push_back(v);
      c[k] = slot->second;
    }
    cells.push_back(c);
  }

  TetMesh mesh;
  mesh.vertices.resize(static_cast<Eigen::Index>(order.size()), 3);
  for (std::size_t i = 0; i < order.size(); ++i)
    mesh.vertices.row(static_cast<Eigen::Index>(i)) = to_eigen(order[i]->point().point()).transpose();
  mesh.tets.resize(static_cast<Eigen::Index>(cells.size()), 4);
  for (std::size_t t = 0; t < cells.size(); ++t)
    for (int k = 0; k < 4; ++k) mesh.tets(static_cast<Eigen::Index>(t), k) = cells[t][k];
  for (Eigen::Index t = 0; t < mesh.tets.rows(); ++t)
    if (signed_tet_volume(mesh.vertices, mesh.tets, static_cast<int>(t)) < 0)
      std::swap(mesh.tets(t, 1), mesh.tets(t, 2));
  mesh.surface_faces.resize(static_cast<Eigen::Index>(boundary.size()), 3);
  for (std::size_t f = 0; f < boundary.size(); ++f)
    for (int k = 0; k < 3; ++k) mesh.surface_faces(static_cast<Eigen::Index>(f), k) = index.at(boundary[f][k]);
  mesh.surface_vertex_count = surface_count;
  mesh.input_vertices = surface.vertices;
  return mesh;
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
