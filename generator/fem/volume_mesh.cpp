#include "fem/volume_mesh.hpp"

#include <CGAL/AABB_face_graph_triangle_primitive.h>
#include <CGAL/AABB_segment_primitive.h>
#include <CGAL/AABB_traits.h>
#include <CGAL/AABB_tree.h>
#include <CGAL/Mesh_complex_3_in_triangulation_3.h>
#include <CGAL/Mesh_criteria_3.h>
#include <CGAL/Mesh_triangulation_3.h>
#include <CGAL/Polygon_mesh_processing/bbox.h>
#include <CGAL/Polygon_mesh_processing/compute_normal.h>
#include <CGAL/Polyhedral_mesh_domain_3.h>
#include <CGAL/exude_mesh_3.h>
#include <CGAL/make_mesh_3.h>
#include <CGAL/Orthogonal_k_neighbor_search.h>
#include <CGAL/Search_traits_3.h>
#include <CGAL/Search_traits_adapter.h>
#include <CGAL/perturb_mesh_3.h>
#include <CGAL/property_map.h>
#include <fmt/format.h>

#include <Eigen/Geometry>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <thread>
#include <tuple>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "fem/cgal_surface.hpp"
#include "fem/disjoint_sets.hpp"
#include "fem/edge_collapse.hpp"
#include "fem/elements.hpp"
#include "fem/resolution.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"
#include "util/run_parts.hpp"

namespace mesh2dsp {
namespace {

using cgal::Kernel;
using cgal::Point;
using Polyhedron = cgal::Mesh;
using Domain = CGAL::Polyhedral_mesh_domain_3<Polyhedron, Kernel>;
using Triangulation = CGAL::Mesh_triangulation_3<Domain, CGAL::Default, CGAL::Sequential_tag>::type;
using Complex = CGAL::Mesh_complex_3_in_triangulation_3<Triangulation>;
using Criteria = CGAL::Mesh_criteria_3<Triangulation>;
// Each triangle kept in its leaf (CacheDatum): a query then reads no halfedges, for 2 MB on a
// 28 k-face scan.
using Primitive = CGAL::AABB_face_graph_triangle_primitive<Polyhedron, CGAL::Default, CGAL::Tag_true, CGAL::Tag_true>;
using Tree = CGAL::AABB_tree<CGAL::AABB_traits<Kernel, Primitive>>;
using Segment = Kernel::Segment_3;
// The input's vertices with their indices, for nearest-vertex queries.
using IndexedPoint = std::tuple<Point, int>;
using VertexSearch = CGAL::Orthogonal_k_neighbor_search<CGAL::Search_traits_adapter<
    IndexedPoint, CGAL::Nth_of_tuple_property_map<0, IndexedPoint>, CGAL::Search_traits_3<Kernel>>>;
using CreaseTree =
    CGAL::AABB_tree<CGAL::AABB_traits<Kernel, CGAL::AABB_segment_primitive<Kernel, std::vector<Segment>::const_iterator>>>;

Eigen::Vector3d to_eigen(const Point& p) { return {p.x(), p.y(), p.z()}; }

// The background grid's cell, per element edge of a thick part: finer cells reach fewer walls
// but cost a query pair each.
constexpr double kThicknessGridCellPerEdge = 0.5;

// The local thickness of the input at any point: that of the nearest input face (the mean of
// its vertices'). Mesh_3 asks for sizes at points inside the body too; the nearest face's wall
// is the wall the point lies in. (The nearest vertex instead, from a k-d tree, was faster but
// biased toward finely tessellated detail: the statue scan's mesh grew from 29 k to 38 k
// elements.)
//
// Where most of the input is walls (a bell, a blade, a tube), it is the nearest vertex's: a
// point in a wall is near the vertices of its two skins, whose walls are the wall it lies in,
// and a k-d tree answers in a tenth of the time (the sword scan's 264 k queries 1.3 -> 0.12 s,
// the bell's 135 k 0.88 -> 0.08 s of single-core refinement). Their meshes grew by 4-6 %
// (13 201 -> 13 959 and 8 426 -> 8 723 elements), their modes as close to their references
// (worst 0.88 -> 0.89 % and 0.53 -> 0.42 %), their 50 modes about 1-1.5 s faster in alternating
// runs (sword 12.8-14.7 -> 11.4-13.2 s, bell 10.5-11.8 -> 9.6-9.8 s on a 2-core AVX2 machine).
//
// Where the sizes do not depend on the wall (`sizes_as_thick` of every face that can be
// nearest), the answer is INFINITY, found once per cell of a background grid instead of by a
// closest-point query per point (9 µs each, over 200 k of them for a statue scan): for a point
// in a cell whose centre lies d from the input, the nearest face lies within d + the cell's
// diagonal of the centre, so if no face that sizes as a wall lies that close, the nearest face
// sizes as a thick part, and every size asked is what it is at INFINITY, exactly.
class ThicknessField {
 public:
  ThicknessField(const Polyhedron& mesh, Eigen::VectorXd vertex_thickness_m,
                 const std::function<bool(double thickness_m)>& sizes_as_thick, double grid_cell_m)
      : mesh_(mesh), tree_(faces(mesh).first, faces(mesh).second, mesh),
        thickness_m_(std::move(vertex_thickness_m)) {
    tree_.accelerate_distance_queries();
    std::vector<Polyhedron::Face_index> walls;
    for (auto f : faces(mesh))
      if (!sizes_as_thick(face_thickness_m(f))) walls.push_back(f);
    all_thick_ = walls.empty();
    // Mostly walls (a bell, a blade): nearly every cell would need the full query anyway.
    constexpr double kMostlyWalls = 0.5;
    const bool mostly_walls = walls.size() > kMostlyWalls * static_cast<double>(mesh.number_of_faces());
    if (!all_thick_ && mostly_walls) {
      std::vector<IndexedPoint> points;
      points.reserve(mesh.number_of_vertices());
      for (auto v : vertices(mesh)) points.emplace_back(mesh.point(v), static_cast<int>(v.idx()));
      vertex_tree_.emplace(points.begin(), points.end());
      vertex_tree_->build();
    }
    if (all_thick_ || mostly_walls || !(grid_cell_m > 0)) return;
    wall_tree_.emplace(walls.begin(), walls.end(), mesh);
    wall_tree_->accelerate_distance_queries();
    const CGAL::Bbox_3 box = CGAL::Polygon_mesh_processing::bbox(mesh);
    grid_origin_ = {box.xmin(), box.ymin(), box.zmin()};
    const Eigen::Vector3d extent(box.xmax() - box.xmin(), box.ymax() - box.ymin(), box.zmax() - box.zmin());
    constexpr double kMaxGridCells = 4e6;
    grid_cell_m_ = std::max(grid_cell_m, std::cbrt(extent.prod() / kMaxGridCells));
    for (int k = 0; k < 3; ++k) grid_size_[k] = static_cast<int>(extent[k] / grid_cell_m_) + 1;
    cell_state_.assign(static_cast<std::size_t>(grid_size_[0]) * grid_size_[1] * grid_size_[2], kUnknown);
  }
  double at(const Point& p) const {
    if (all_thick_) return INFINITY;
    // Mesh_3 asks for a facet's size and its distance bound at the same point in turn: the
    // second answer is the first (a quarter of the statue scan's queries).
    if (p == last_point_) return last_thickness_m_;
    last_point_ = p;
    if (in_thick_region(p)) return last_thickness_m_ = INFINITY;
    if (vertex_tree_) {
      const VertexSearch nearest(*vertex_tree_, p, 1);
      return last_thickness_m_ = thickness_m_[std::get<1>(nearest.begin()->first)];
    }
    return last_thickness_m_ = face_thickness_m(tree_.closest_point_and_primitive(p).second);
  }
  // The wall of the nearest input face, even where the sizes do not depend on it.
  double wall_at(const Point& p) const { return face_thickness_m(tree_.closest_point_and_primitive(p).second); }
  // The input's faces.
  const Tree& tree() const { return tree_; }

 private:
  enum CellState : std::uint8_t { kUnknown, kThick, kMixed };
  double face_thickness_m(Polyhedron::Face_index face) const {
    double sum = 0;
    int count = 0;
    for (auto v : CGAL::vertices_around_face(mesh_.halfedge(face), mesh_)) {
      sum += thickness_m_[static_cast<Eigen::Index>(v.idx())];
      ++count;
    }
    return sum / count;
  }
  bool in_thick_region(const Point& p) const {
    if (cell_state_.empty()) return false;
    std::array<int, 3> cell;
    const double coordinate[3] = {p.x(), p.y(), p.z()};
    for (int k = 0; k < 3; ++k) {
      const double at = std::floor((coordinate[k] - grid_origin_[k]) / grid_cell_m_);
      if (!(at >= 0 && at < grid_size_[k])) return false;
      cell[k] = static_cast<int>(at);
    }
    std::uint8_t& state =
        cell_state_[(static_cast<std::size_t>(cell[2]) * grid_size_[1] + cell[1]) * grid_size_[0] + cell[0]];
    if (state == kUnknown) {
      const Point centre(grid_origin_[0] + (cell[0] + 0.5) * grid_cell_m_, grid_origin_[1] + (cell[1] + 0.5) * grid_cell_m_,
                         grid_origin_[2] + (cell[2] + 0.5) * grid_cell_m_);
      const double reach_m = std::sqrt(CGAL::to_double(tree_.squared_distance(centre))) + std::sqrt(3.0) * grid_cell_m_;
      state = CGAL::to_double(wall_tree_->squared_distance(centre)) > reach_m * reach_m ? kThick : kMixed;
    }
    return state == kThick;
  }

  const Polyhedron& mesh_;
  Tree tree_;
  Eigen::VectorXd thickness_m_;
  bool all_thick_ = false;
  std::optional<Tree> wall_tree_;  // the faces that size as walls
  std::optional<VertexSearch::Tree> vertex_tree_;  // the input's vertices, where mostly walls
  Eigen::Vector3d grid_origin_ = Eigen::Vector3d::Zero();
  double grid_cell_m_ = 0;
  std::array<int, 3> grid_size_{0, 0, 0};
  mutable std::vector<std::uint8_t> cell_state_;
  mutable Point last_point_{NAN, NAN, NAN};
  mutable double last_thickness_m_ = 0;
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

// The distance from any point to the nearest re-entrant crease of the input (infinite when it
// has none).
class CreaseDistance {
 public:
  explicit CreaseDistance(std::vector<Segment> creases)
      : creases_(std::move(creases)), tree_(creases_.begin(), creases_.end()) {
    if (!creases_.empty()) tree_.accelerate_distance_queries();
  }
  double at(const Point& p) const {
    return creases_.empty() ? INFINITY : std::sqrt(CGAL::to_double(tree_.squared_distance(p)));
  }

 private:
  std::vector<Segment> creases_;
  CreaseTree tree_;
};

// Mesh_3's facet distance field: VolumeMeshOptions::max_boundary_distance_m of the local
// thickness, or max_crease_boundary_distance_m within an element edge of a re-entrant crease
// (a boundary cuts a crease's corner over about an element's edge on either side). Only the
// facet distance asks for the distance to the creases: the cells' sizes do not need it.
class BoundaryDistanceField {
 public:
  using FT = Kernel::FT;
  BoundaryDistanceField(const ThicknessField& thickness, const CreaseDistance& creases,
                        const VolumeMeshOptions& options)
      : thickness_(&thickness), creases_(&creases), options_(&options) {}
  template <class Index>
  FT operator()(const Point& p, const int, const Index&) const {
    const double wall_m = thickness_->at(p);
    const bool at_crease = options_->max_crease_boundary_distance_m &&
                           creases_->at(p) < options_->edge_length_m(wall_m);
    return at_crease ? options_->max_crease_boundary_distance_m(wall_m) : options_->max_boundary_distance_m(wall_m);
  }

 private:
  const ThicknessField* thickness_;
  const CreaseDistance* creases_;
  const VolumeMeshOptions* options_;
};

using Cell = std::array<int, 4>;
using Face = std::array<int, 3>;

Face sorted_face_without(const Cell& c, int skip) {
  Face f;
  for (int k = 0, j = 0; k < 4; ++k)
    if (k != skip) f[j++] = c[k];
  std::sort(f.begin(), f.end());
  return f;
}

std::map<Face, int> face_counts(const std::vector<Cell>& cells) {
  std::map<Face, int> count;
  for (const auto& c : cells)
    for (int skip = 0; skip < 4; ++skip) ++count[sorted_face_without(c, skip)];
  return count;
}

// The cells of `around` (indices into `cells`) in groups joined through faces that contain
// all of `shared` (an edge's two vertices or one vertex).
std::vector<std::vector<int>> groups_through_faces(const std::vector<Cell>& cells,
                                                   const std::vector<int>& around,
                                                   const std::vector<int>& shared) {
  std::vector<int> group(around.size(), -1);
  int groups = 0;
  std::map<Face, std::vector<int>> by_face;
  for (std::size_t i = 0; i < around.size(); ++i)
    for (int skip = 0; skip < 4; ++skip) {
      const Face f = sorted_face_without(cells[around[i]], skip);
      if (std::all_of(shared.begin(), shared.end(),
                      [&](int v) { return std::find(f.begin(), f.end(), v) != f.end(); }))
        by_face[f].push_back(static_cast<int>(i));
    }
  for (std::size_t seed = 0; seed < around.size(); ++seed) {
    if (group[seed] >= 0) continue;
    std::vector<int> stack{static_cast<int>(seed)};
    group[seed] = groups;
    while (!stack.empty()) {
      const int i = stack.back();
      stack.pop_back();
      for (int skip = 0; skip < 4; ++skip) {
        auto it = by_face.find(sorted_face_without(cells[around[i]], skip));
        if (it == by_face.end()) continue;
        for (int j : it->second)
          if (group[j] < 0) group[j] = groups, stack.push_back(j);
      }
    }
    ++groups;
  }
  std::vector<std::vector<int>> out(static_cast<std::size_t>(groups));
  for (std::size_t i = 0; i < around.size(); ++i) out[group[i]].push_back(around[i]);
  return out;
}

// The cells to take out so that the boundary is a 2-manifold: where two parts of the body
// touch only along an edge or at a vertex (a pinch of a thin wall between coarse cells), all
// but the largest part's cells at that edge or vertex. Mesh_3's own manifold criterion does
// this by refinement, and on a CAD-revolved bell (sharp lip creases, a 360-triangle pole) it
// did not finish in 5 minutes at a 6.8 cm element (nor in 40 s at 1.5 or 3 cm), where the
// same mesh without it took 0.6 s with two pinched edges.
std::vector<bool> cells_pinching_the_boundary(const std::vector<Cell>& cells,
                                              const std::map<Face, int>& count) {
  std::vector<bool> remove(cells.size(), false);
  // Boundary faces at each edge and each vertex; cells at each edge and vertex of the boundary.
  std::map<std::array<int, 2>, int> faces_at_edge;
  std::unordered_map<int, std::vector<Face>> faces_at_vertex;
  for (const auto& [f, n] : count) {
    if (n != 1) continue;
    for (int a = 0; a < 3; ++a) {
      std::array<int, 2> e{f[a], f[(a + 1) % 3]};
      std::sort(e.begin(), e.end());
      ++faces_at_edge[e];
      faces_at_vertex[f[a]].push_back(f);
    }
  }
  std::unordered_map<int, std::vector<int>> cells_at_vertex;
  for (std::size_t c = 0; c < cells.size(); ++c)
    for (int v : cells[c])
      if (faces_at_vertex.count(v)) cells_at_vertex[v].push_back(static_cast<int>(c));
  auto keep_largest = [&](const std::vector<std::vector<int>>& groups) {
    if (groups.size() < 2) return;
    const auto largest = std::max_element(groups.begin(), groups.end(),
                                          [](const auto& a, const auto& b) { return a.size() < b.size(); });
    for (auto g = groups.begin(); g != groups.end(); ++g)
      if (g != largest)
        for (int c : *g) remove[c] = true;
  };
  for (const auto& [e, n] : faces_at_edge) {
    if (n <= 2) continue;
    std::vector<int> around;
    for (int c : cells_at_vertex[e[0]])
      if (std::find(cells[c].begin(), cells[c].end(), e[1]) != cells[c].end()) around.push_back(c);
    keep_largest(groups_through_faces(cells, around, {e[0], e[1]}));
  }
  for (const auto& [v, faces] : faces_at_vertex) {
    // One fan of boundary faces around a manifold vertex: joined through their edges at v.
    std::vector<int> fan(faces.size(), -1);
    int fans = 0;
    for (std::size_t seed = 0; seed < faces.size(); ++seed) {
      if (fan[seed] >= 0) continue;
      std::vector<std::size_t> stack{seed};
      fan[seed] = fans;
      while (!stack.empty()) {
        const std::size_t i = stack.back();
        stack.pop_back();
        for (std::size_t j = 0; j < faces.size(); ++j) {
          if (fan[j] >= 0) continue;
          int common = 0;
          for (int a : faces[i]) common += std::find(faces[j].begin(), faces[j].end(), a) != faces[j].end();
          if (common == 2) fan[j] = fans, stack.push_back(j);
        }
      }
      ++fans;
    }
    if (fans < 2) continue;
    const auto groups = groups_through_faces(cells, cells_at_vertex[v], {v});
    if (groups.size() > 1) {
      keep_largest(groups);
    } else {
      // One part that meets itself at the vertex (its boundary passes the vertex twice):
      // the vertex's cells go, a dent of one element.
      for (int c : cells_at_vertex[v]) remove[c] = true;
    }
  }
  return remove;
}

// Delaunay refinement can leave a few cells apart from the body in a thin wall meshed with
// elements as thick as it (the CAD bell: 85 separate pieces, each six more rigid-body
// modes), and taking pinches out can cut one off. A piece under 1 % of the volume is such a
// fragment, not one of the input's bodies, and goes.
std::vector<Cell> cells_without_fragments(const std::vector<Eigen::Vector3d>& points,
                                          std::vector<Cell> cells) {
  DisjointSets pieces(points.size());
  for (const auto& c : cells)
    for (int k = 1; k < 4; ++k) pieces.unite(c[k], c[0]);
  std::vector<double> volume_m3(points.size(), 0.0);
  double total_m3 = 0;
  auto cell_volume = [&](const Cell& c) {
    return std::abs((points[c[1]] - points[c[0]]).dot((points[c[2]] - points[c[0]]).cross(points[c[3]] - points[c[0]]))) / 6;
  };
  for (const auto& c : cells) {
    const double v = cell_volume(c);
    volume_m3[pieces.find(c[0])] += v;
    total_m3 += v;
  }
  std::erase_if(cells, [&](const Cell& c) { return volume_m3[pieces.find(c[0])] < 0.01 * total_m3; });
  return cells;
}

// Mesh_3 can leave a flat cell on a planar part of the boundary: four vertices on one face
// of a box, which exudation cannot move off it. Such a cell holds no volume and its faces lie in
// the boundary's plane, so taking it out leaves the domain as it was. Then pinches are taken
// out (cells_pinching_the_boundary). Repeated, since taking cells out can leave another flat
// cell on the boundary or another pinch.
TetMesh tet_mesh_with_clean_boundary(const std::vector<Eigen::Vector3d>& points,
                                     std::vector<Cell> cells, const SurfaceMesh& input) {
  auto quality = [&](const Cell& c) {
    TetCorners x;
    for (int k = 0; k < 4; ++k) x.row(k) = points[c[k]].transpose();
    return std::abs(tet_quality(x));
  };
  for (int pass = 0; pass < 16; ++pass) {
    const std::map<Face, int> count = face_counts(cells);
    std::vector<bool> remove(cells.size(), false);
    bool any = false;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      bool on_boundary = false;
      for (int skip = 0; skip < 4 && !on_boundary; ++skip)
        on_boundary = count.at(sorted_face_without(cells[c], skip)) == 1;
      remove[c] = on_boundary && quality(cells[c]) < kRejectTetQuality;
      any = any || remove[c];
    }
    if (!any) {
      remove = cells_pinching_the_boundary(cells, count);
      any = std::find(remove.begin(), remove.end(), true) != remove.end();
    }
    if (!any) break;
    std::vector<Cell> kept;
    for (std::size_t c = 0; c < cells.size(); ++c)
      if (!remove[c]) kept.push_back(cells[c]);
    cells = std::move(kept);
  }
  cells = cells_without_fragments(points, std::move(cells));
  if (cells.empty()) throw Error("meshing the volume gave no element (is the surface closed?)");
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

std::vector<std::array<int, 2>> reentrant_crease_edges(const SurfaceMesh& surface, double min_turn_rad,
                                                      const Eigen::VectorXd& vertex_scale_m) {
  std::vector<std::array<int, 2>> creases;
  auto corner = [&](Eigen::Index f, int k) { return surface.faces(f, k % 3); };
  auto vertex = [&](int v) { return Eigen::Vector3d(surface.vertices.row(v)); };
  auto normal = [&](Eigen::Index f) {
    const Eigen::Vector3d a = vertex(corner(f, 0)), b = vertex(corner(f, 1)), c = vertex(corner(f, 2));
    return Eigen::Vector3d((b - a).cross(c - a).normalized());
  };
  const bool at_scale = vertex_scale_m.size() == surface.vertices.rows();
  std::optional<Polyhedron> mesh;
  std::optional<Tree> tree;
  if (at_scale) {
    mesh.emplace(cgal::to_cgal(surface));
    tree.emplace(faces(*mesh).first, faces(*mesh).second, *mesh);
    tree->accelerate_distance_queries();
  }
  // Seen from `scale_m` away on either side, the surface still folds inward: the midpoint of
  // the chord between the surface points that far along each face, across the edge, lies
  // outside the edge by at least scale·sin(min_turn/4) (two planes turning by θ put it at
  // scale·sin(θ/2); half the turn is allowed for the rounding of the faces beside it).
  auto folds_inward_at_scale = [&](const Eigen::Vector3d& a, const Eigen::Vector3d& b, const Eigen::Vector3d& n1,
                                   const Eigen::Vector3d& far1, const Eigen::Vector3d& n2,
                                   const Eigen::Vector3d& far2, double scale_m) {
    const Eigen::Vector3d mid = (a + b) / 2, along = (b - a).normalized();
    auto surface_point_beside = [&](const Eigen::Vector3d& n, const Eigen::Vector3d& far) {
      Eigen::Vector3d away = n.cross(along);  // in the face's plane, across the edge
      if (away.dot(far - mid) < 0) away = -away;
      const Eigen::Vector3d q = mid + scale_m * away;
      return to_eigen(tree->closest_point(Point(q.x(), q.y(), q.z())));
    };
    const Eigen::Vector3d chord_mid = (surface_point_beside(n1, far1) + surface_point_beside(n2, far2)) / 2;
    return (chord_mid - mid).dot((n1 + n2).normalized()) > scale_m * std::sin(min_turn_rad / 4);
  };
  // Each directed edge's face and far vertex; its twin (the reverse edge) is the other face.
  std::map<std::pair<int, int>, std::pair<Eigen::Index, int>> by_edge;
  for (Eigen::Index f = 0; f < surface.faces.rows(); ++f)
    for (int k = 0; k < 3; ++k) by_edge[{corner(f, k), corner(f, k + 1)}] = {f, corner(f, k + 2)};
  const double min_cos = std::cos(min_turn_rad);
  for (const auto& [edge, face_far] : by_edge) {
    if (edge.first > edge.second) continue;
    const auto twin = by_edge.find({edge.second, edge.first});
    if (twin == by_edge.end()) continue;
    const Eigen::Vector3d n1 = normal(face_far.first), n2 = normal(twin->second.first);
    const Eigen::Vector3d far1 = vertex(face_far.second), far2 = vertex(twin->second.second);
    const Eigen::Vector3d a = vertex(edge.first), b = vertex(edge.second);
    if (!(n1.dot(n2) < min_cos && n1.dot(far2 - a) > 0 && n2.dot(far1 - a) > 0)) continue;
    if (at_scale && !folds_inward_at_scale(a, b, n1, far1, n2, far2,
                                           (vertex_scale_m[edge.first] + vertex_scale_m[edge.second]) / 2))
      continue;
    creases.push_back({edge.first, edge.second});
  }
  return creases;
}

namespace {
// A re-entrant crease is an edge whose faces turn inward by more than 30°: a smooth surface
// finely tessellated turns by a few degrees from face to face (a scan's or a marching surface's
// triangles may fold by more: mesh_input.cpp asks for creases in walled bodies only).
constexpr double kCreaseTurnRad = 30.0 * M_PI / 180.0;
// The distance from a fold, as a fraction of the local element edge, at which it must still
// fold to count as a crease the elements see.
constexpr double kCreaseScalePerEdge = 0.5;

// The re-entrant creases the elements see: a fold still seen kCreaseScalePerEdge of the local
// element edge away. A scan's triangles fold back and forth along a blade's rounded edge (268
// such folds on a sword scan's), and held to the crease bound that edge kept the mesh fine
// whatever the plain bound (84 k elements with the walls' floor at 8 %, 68 k once those folds
// were left out, at 6 %).
std::vector<Segment> crease_segments(const SurfaceMesh& surface, const Eigen::VectorXd& vertex_thickness_m,
                                     const VolumeMeshOptions& options) {
  Eigen::VectorXd vertex_scale_m(surface.vertices.rows());
  for (Eigen::Index v = 0; v < vertex_scale_m.size(); ++v)
    vertex_scale_m[v] = kCreaseScalePerEdge * options.edge_length_m(vertex_thickness_m[v]);
  std::vector<Segment> segments;
  auto point = [&](int v) { return Point(surface.vertices(v, 0), surface.vertices(v, 1), surface.vertices(v, 2)); };
  for (const auto& [a, b] : reentrant_crease_edges(surface, kCreaseTurnRad, vertex_scale_m))
    segments.emplace_back(point(a), point(b));
  return segments;
}
// A boundary coarsened by edge collapses stays within this fraction of the local wall of the
// input (the sizes' own bound can be far looser where they do not depend on the wall: 6 % of a
// thick part's element edge, which let a sword's grip and pommel lose 4 % of the volume).
constexpr double kCollapsedBoundaryDistancePerWall = 0.05;

// The cells after collapsing the edges shorter than wanted (collapse_short_edges), with the
// element edge and the boundary's bound of the local thickness at each vertex.
std::vector<Cell> coarsened_cells(const std::vector<Eigen::Vector3d>& points, std::vector<Cell> cells,
                                  const ThicknessField& thickness, const VolumeMeshOptions& options) {
  EdgeCollapseOptions c;
  const auto n = static_cast<Eigen::Index>(points.size());
  Eigen::MatrixXd vertices(n, 3);
  c.target_edge_m.resize(n);
  c.max_boundary_distance_m.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Vector3d& p = points[static_cast<std::size_t>(i)];
    vertices.row(i) = p.transpose();
    const Point at(p.x(), p.y(), p.z());
    const double wall_m = thickness.at(at);
    c.target_edge_m[i] = options.edge_length_m(wall_m);
    c.max_boundary_distance_m[i] =
        std::min(options.max_boundary_distance_m(wall_m), kCollapsedBoundaryDistancePerWall * thickness.wall_at(at));
  }
  c.distance_to_input_m = [&](const Eigen::Vector3d& p) {
    return std::sqrt(CGAL::to_double(thickness.tree().squared_distance(Point(p.x(), p.y(), p.z()))));
  };
  return collapse_short_edges(vertices, std::move(cells), c);
}

}  // namespace

Eigen::VectorXd local_thickness(const SurfaceMesh& surface) {
  const Polyhedron mesh = cgal::to_cgal(surface);
  Tree tree(faces(mesh).first, faces(mesh).second, mesh);
  tree.build();
  const Eigen::MatrixXd normals = vertex_normals(surface);
  const double fallback_m = thickness_measure(surface);
  const Eigen::Index n = surface.vertices.rows();
  Eigen::VectorXd ray_m(n);
  // Each vertex's rays on their own: the vertices are shared among the cores (the tree is only
  // read), the same values in any split.
  auto cast_from = [&](Eigen::Index i) {
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
  };
  const int parts = static_cast<int>(std::clamp<Eigen::Index>(n / 1000, 1, std::thread::hardware_concurrency()));
  run_parts(parts, [&](int part) {
    for (Eigen::Index i = n * part / parts; i < n * (part + 1) / parts; ++i) cast_from(i);
  });
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

bool walls_set_elements(const Eigen::VectorXd& vertex_thickness_m,
                        const std::function<double(double thickness_m)>& edge_length_m) {
  const double thick_part_edge_m = edge_length_m(INFINITY);
  const auto walled = std::count_if(vertex_thickness_m.begin(), vertex_thickness_m.end(),
                                    [&](double t) { return edge_length_m(t) < thick_part_edge_m; });
  return 2 * walled > vertex_thickness_m.size();
}

double median_wall_per_size(const SurfaceMesh& surface, const Eigen::VectorXd& vertex_thickness_m) {
  const Eigen::Index n = surface.vertices.rows();
  if (n == 0 || vertex_thickness_m.size() != n) return INFINITY;
  Eigen::VectorXd area_m2 = Eigen::VectorXd::Zero(n);
  for (Eigen::Index f = 0; f < surface.faces.rows(); ++f) {
    const Eigen::Vector3d a = surface.vertices.row(surface.faces(f, 0)), b = surface.vertices.row(surface.faces(f, 1)),
                          c = surface.vertices.row(surface.faces(f, 2));
    const double third_m2 = (b - a).cross(c - a).norm() / 6;
    for (int k = 0; k < 3; ++k) area_m2[surface.faces(f, k)] += third_m2;
  }
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  std::sort(order.begin(), order.end(),
            [&](Eigen::Index i, Eigen::Index j) { return vertex_thickness_m[i] < vertex_thickness_m[j]; });
  const double half_m2 = area_m2.sum() / 2;
  double below_m2 = 0;
  double wall_m = vertex_thickness_m[order.back()];
  for (Eigen::Index i : order) {
    below_m2 += area_m2[i];
    if (below_m2 >= half_m2) {
      wall_m = vertex_thickness_m[i];
      break;
    }
  }
  const double diagonal_m = (surface.vertices.colwise().maxCoeff() - surface.vertices.colwise().minCoeff()).norm();
  return diagonal_m > 0 ? wall_m / diagonal_m : INFINITY;
}

bool meshed_as_walls(const SurfaceMesh& surface, const Eigen::VectorXd& vertex_thickness_m,
                     const std::function<double(double thickness_m)>& edge_length_m) {
  constexpr double kWallPerSize = 1.0 / 15;
  return walls_set_elements(vertex_thickness_m, edge_length_m) &&
         median_wall_per_size(surface, vertex_thickness_m) < kWallPerSize;
}

TetMesh mesh_volume(const SurfaceMesh& surface, const VolumeMeshOptions& options) {
  Polyhedron polyhedron = cgal::to_cgal(surface);
  const Eigen::VectorXd vertex_thickness_m = options.vertex_thickness_m.size() == surface.vertices.rows()
                                                 ? options.vertex_thickness_m
                                                 : local_thickness(surface);
  // A size that does not depend on the wall is the same at every thickness from here on.
  const auto sizes_as_thick = [&](double thickness_m) {
    const auto same = [&](const std::function<double(double)>& size_m) {
      return !size_m || size_m(thickness_m) == size_m(INFINITY);
    };
    return same(options.edge_length_m) && same(options.max_boundary_distance_m) &&
           same(options.max_crease_boundary_distance_m);
  };
  const ThicknessField thickness(polyhedron, vertex_thickness_m, sizes_as_thick,
                                 kThicknessGridCellPerEdge * options.edge_length_m(INFINITY));
  // No crease is protected as a feature edge: CGAL 5.5's protection of feature polylines ran
  // for minutes or crashed (SIGBUS) on the quad-scanned sword look-alike, with 17 creases. A
  // crease is then followed within the facet distance bound like any curved part, a re-entrant
  // one within its own bound (max_crease_boundary_distance_m) when one is given (a CAD
  // bracket meshed that way takes about twice the elements along its edges).
  Domain domain(polyhedron);

  // Mesh_3 bounds the radius of each surface facet's Delaunay ball and each cell's
  // circumsphere, not edge lengths: a regular tetrahedron of edge h has circumradius
  // h·√6/4 ≈ 0.61·h, a regular triangle's circumradius is h/√3 ≈ 0.58·h.
  const SizingField facet_radius(thickness, [&](double t) { return 0.58 * options.edge_length_m(t); });
  const SizingField cell_radius(thickness, [&](double t) { return 0.61 * options.edge_length_m(t); });
  const CreaseDistance creases(options.max_crease_boundary_distance_m
                                   ? crease_segments(surface, vertex_thickness_m, options)
                                   : std::vector<Segment>{});
  const BoundaryDistanceField facet_distance(thickness, creases, options);
  // The facets' smallest angle: 25°, or 15° where the edges are collapsed afterwards (the
  // facets' shape is then the collapse's): a bell's refinement 3.9 -> 3.0 s, its modes within
  // 0.6 % of the reference either way.
  const double facet_angle_deg = options.collapse_short_edges ? 15.0 : 25.0;
  auto criteria = [&](double radius_edge_bound) {
    return Criteria(Criteria::Facet_criteria(facet_angle_deg, facet_radius, facet_distance, CGAL::FACET_VERTICES_ON_SURFACE),
                    Criteria::Cell_criteria(radius_edge_bound, cell_radius));
  };
  // Exudation removes the slivers Delaunay refinement leaves (cow scan: worst quality 5e-4 ->
  // 0.027); perturbation was tried as well and ran into a 10 s limit on the same mesh for 0.046.
  // Only cells with a dihedral angle below kExudeBelowDegrees are worked on: with no bound it
  // tried to improve every cell, 1.8 s of the statue's 4.4 s of meshing, for nothing the modes
  // see. Spot's 50 modes against their converged reference, worst: 0.93 % with no bound,
  // 1.03 % at 10°, 0.98 % at 15°, 0.93 % at 25° (the statue's 0.39 % throughout).
  // No time limit (0): given none, make_mesh_3 stops exudation after as long as the refinement
  // took, so a loaded machine could stop it elsewhere and make another mesh of the same input
  // (a test meshing a sphere twice got two meshes once, under a parallel test run).
  constexpr double kExudeBelowDegrees = 25.0;
  const auto exude = CGAL::parameters::exude(CGAL::parameters::sliver_bound = kExudeBelowDegrees,
                                             CGAL::parameters::time_limit = 0);
  // Delaunay refinement alone may leave two parts of the boundary touching at a vertex or an
  // edge; the excitation normals and the surface data need a 2-manifold, made afterwards
  // (cells_pinching_the_boundary) rather than by Mesh_3's manifold criterion.
  // Refinement is guaranteed to end only for a radius-edge bound of 2 or more: below it, the
  // vertices are capped, and a mesh that reaches the cap is made again at 3.
  constexpr double kGuaranteedRadiusEdgeBound = 2.0, kFallbackRadiusEdgeBound = 3.0;
  CGAL::Mesh_error_code error = CGAL::CGAL_MESH_3_NO_ERROR;
  CGAL::parameters::internal::Mesh_3_options capped;
  capped.maximal_number_of_vertices =
      options.cell_radius_edge_bound < kGuaranteedRadiusEdgeBound ? options.max_refinement_vertices : 0;
  capped.pointer_to_error_code = &error;
  Complex complex = CGAL::make_mesh_3<Complex>(domain, criteria(options.cell_radius_edge_bound),
                                               CGAL::parameters::no_perturb(), exude, capped);
  if (error == CGAL::CGAL_MESH_3_MAXIMAL_NUMBER_OF_VERTICES_REACHED) {
    notice(fmt::format("volume meshing: cells bounded at {} times their shortest edge did not settle "
                       "within {} vertices; meshed again at {}",
                       options.cell_radius_edge_bound, options.max_refinement_vertices, kFallbackRadiusEdgeBound));
    complex = CGAL::make_mesh_3<Complex>(domain, criteria(kFallbackRadiusEdgeBound), CGAL::parameters::no_perturb(),
                                         exude);
  }
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
  if (options.collapse_short_edges) cells = coarsened_cells(points, std::move(cells), thickness, options);
  return tet_mesh_with_clean_boundary(points, std::move(cells), surface);
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
