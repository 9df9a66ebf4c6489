#include "fem/edge_collapse.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <utility>

#include "fem/tet_mesh.hpp"

namespace mesh2dsp {
namespace {

using Cell = std::array<int, 4>;
using Triangle = std::array<int, 3>;
using Pair = std::pair<int, int>;

// The vertex every boundary face is joined to, closing the mesh: then the link condition on
// the closed complex also keeps the boundary a 2-manifold (Dey, Edelsbrunner, Guha, Nekhayev,
// "Topology preserving edge contraction", 1999).
constexpr int kOutside = INT_MAX;

Pair sorted_pair(int x, int y) { return x < y ? Pair{x, y} : Pair{y, x}; }

void sort_unique(std::vector<int>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}
void sort_unique(std::vector<Pair>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}
template <class T>
bool includes_all(const std::vector<T>& sorted_set, const std::vector<T>& sorted_subset) {
  return std::includes(sorted_set.begin(), sorted_set.end(), sorted_subset.begin(), sorted_subset.end());
}
template <class T>
std::vector<T> intersection(const std::vector<T>& x, const std::vector<T>& y) {
  std::vector<T> out;
  std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
  return out;
}

double point_segment_distance(const Eigen::Vector3d& p, const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
  const Eigen::Vector3d ab = b - a;
  const double length_sq = ab.squaredNorm();
  const double s = length_sq > 0 ? std::clamp((p - a).dot(ab) / length_sq, 0.0, 1.0) : 0.0;
  return (a + s * ab - p).norm();
}

double point_triangle_distance(const Eigen::Vector3d& p, const Eigen::Vector3d& a, const Eigen::Vector3d& b,
                               const Eigen::Vector3d& c) {
  const Eigen::Vector3d n = (b - a).cross(c - a);
  const double area2 = n.norm();
  if (area2 > 0) {
    const Eigen::Vector3d unit = n / area2;
    const Eigen::Vector3d q = p - unit * unit.dot(p - a);  // in the plane
    const bool inside = (b - a).cross(q - a).dot(n) >= 0 && (c - b).cross(q - b).dot(n) >= 0 &&
                        (a - c).cross(q - c).dot(n) >= 0;
    if (inside) return std::abs(unit.dot(p - a));
  }
  return std::min({point_segment_distance(p, a, b), point_segment_distance(p, b, c), point_segment_distance(p, c, a)});
}

// The largest dot product of two outward face normals of a tetrahedron (1 for a flat one): the
// dihedral angle between faces i and j is π − acos(nᵢ·nⱼ), so the largest dihedral angle is
// that of the largest dot product, with no acos to compare it (six per cell tried took 8 % of a
// sword scan's collapse).
double largest_outward_normal_dot(const Eigen::Vector3d& a, const Eigen::Vector3d& b, const Eigen::Vector3d& c,
                                  const Eigen::Vector3d& d) {
  const Eigen::Vector3d p[4] = {a, b, c, d};
  Eigen::Vector3d outward[4];
  for (int k = 0; k < 4; ++k) {
    const Eigen::Vector3d& x = p[(k + 1) % 4];
    const Eigen::Vector3d& y = p[(k + 2) % 4];
    const Eigen::Vector3d& z = p[(k + 3) % 4];
    Eigen::Vector3d n = (y - x).cross(z - x);
    const double length = n.norm();
    if (length == 0) return 1;
    n /= length;
    if (n.dot(p[k] - x) > 0) n = -n;
    outward[k] = n;
  }
  double largest = -1;
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j) largest = std::max(largest, std::clamp(outward[i].dot(outward[j]), -1.0, 1.0));
  return largest;
}

class CollapsibleMesh {
 public:
  CollapsibleMesh(const Eigen::MatrixXd& vertices, std::vector<Cell> cells, const EdgeCollapseOptions& options)
      : options_(options), cells_(std::move(cells)), cell_alive_(cells_.size(), 1) {
    points_.resize(static_cast<std::size_t>(vertices.rows()));
    for (Eigen::Index i = 0; i < vertices.rows(); ++i) points_[static_cast<std::size_t>(i)] = vertices.row(i).transpose();
    vertex_cells_.resize(points_.size());
    vertex_faces_.resize(points_.size());
    vertex_alive_.assign(points_.size(), 1);
    vertex_stamp_.assign(points_.size(), 0);
    for (std::size_t c = 0; c < cells_.size(); ++c)
      for (int v : cells_[c]) vertex_cells_[v].push_back(static_cast<int>(c));
    // Boundary faces: those of one cell only, oriented away from the cell's fourth corner.
    std::vector<std::pair<Triangle, int>> faces;  // sorted corners, cell
    faces.reserve(4 * cells_.size());
    for (std::size_t c = 0; c < cells_.size(); ++c)
      for (int skip = 0; skip < 4; ++skip) {
        Triangle f;
        for (int k = 0, j = 0; k < 4; ++k)
          if (k != skip) f[j++] = cells_[c][k];
        std::sort(f.begin(), f.end());
        faces.push_back({f, static_cast<int>(c) * 4 + skip});
      }
    std::sort(faces.begin(), faces.end());
    for (std::size_t i = 0; i < faces.size();) {
      std::size_t j = i;
      while (j < faces.size() && faces[j].first == faces[i].first) ++j;
      if (j - i == 1) {
        Triangle f = faces[i].first;
        const int opposite = cells_[faces[i].second / 4][faces[i].second % 4];
        const Eigen::Vector3d n = (point(f[1]) - point(f[0])).cross(point(f[2]) - point(f[0]));
        if (n.dot(point(opposite) - point(f[0])) > 0) std::swap(f[1], f[2]);
        for (int v : f) vertex_faces_[v].push_back(static_cast<int>(faces_.size()));
        faces_.push_back(f);
        face_alive_.push_back(1);
        face_points_.emplace_back();
      }
      i = j;
    }
  }

  // One pass over the edges shorter than wanted, shortest (against the wanted edge) first;
  // the number collapsed.
  int collapse_pass() {
    std::vector<std::pair<double, Pair>> short_edges;
    for (std::size_t c = 0; c < cells_.size(); ++c) {
      if (!cell_alive_[c]) continue;
      for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j) {
          const Pair e = sorted_pair(cells_[c][i], cells_[c][j]);
          const double ratio = (point(e.first) - point(e.second)).norm() / wanted_edge_m(e.first, e.second);
          if (ratio < options_.collapse_below) short_edges.push_back({ratio, e});
        }
    }
    std::sort(short_edges.begin(), short_edges.end());
    short_edges.erase(std::unique(short_edges.begin(), short_edges.end()), short_edges.end());
    int collapsed = 0;
    for (const auto& [ratio, e] : short_edges) {
      (void)ratio;
      if (!vertex_alive_[e.first] || !vertex_alive_[e.second]) continue;
      // An interior end goes onto a boundary one; otherwise either way.
      const bool first_inside = !on_boundary(e.first);
      const Pair tries[2] = {first_inside ? e : Pair{e.second, e.first}, first_inside ? Pair{e.second, e.first} : e};
      for (const Pair& t : tries)
        if (may_collapse(t.first, t.second)) {
          collapse(t.first, t.second);
          ++collapsed;
          break;
        }
    }
    return collapsed;
  }

  std::vector<Cell> cells() const {
    std::vector<Cell> out;
    for (std::size_t c = 0; c < cells_.size(); ++c)
      if (cell_alive_[c]) out.push_back(cells_[c]);
    return out;
  }

 private:
  const Eigen::Vector3d& point(int v) const { return points_[static_cast<std::size_t>(v)]; }
  double wanted_edge_m(int x, int y) const {
    return std::min(options_.target_edge_m[x], options_.target_edge_m[y]);
  }
  bool on_boundary(int v) const { return !live_faces(v).empty(); }

  std::vector<int> live_cells(int v) const { return live_at(v, vertex_cells_[v], cells_, cell_alive_); }
  std::vector<int> live_faces(int v) const { return live_at(v, vertex_faces_[v], faces_, face_alive_); }
  // The simplices of `listed` still alive and still at v (the lists keep what moved away).
  template <class Simplex>
  static std::vector<int> live_at(int v, const std::vector<int>& listed, const std::vector<Simplex>& simplices,
                                  const std::vector<char>& alive) {
    std::vector<int> out;
    for (int id : listed)
      if (alive[id] && holds(simplices[id], v)) out.push_back(id);
    sort_unique(out);
    return out;
  }
  template <class Corners>
  static bool holds(const Corners& corners, int v) {
    return std::find(corners.begin(), corners.end(), v) != corners.end();
  }

  // The link of a vertex in the closed complex: its neighbours and the edges opposite it.
  struct Link {
    std::vector<int> vertices;
    std::vector<Pair> edges;
  };
  Link link_of(int v, const std::vector<int>& cells, const std::vector<int>& faces) const {
    Link l;
    for (int c : cells) {
      int others[3], n = 0;
      for (int x : cells_[c])
        if (x != v) others[n++] = x;
      for (int k = 0; k < 3; ++k) {
        l.vertices.push_back(others[k]);
        l.edges.push_back(sorted_pair(others[k], others[(k + 1) % 3]));
      }
    }
    if (!faces.empty()) l.vertices.push_back(kOutside);
    for (int f : faces)
      for (int x : faces_[f])
        if (x != v) l.edges.push_back({x, kOutside});
    sort_unique(l.vertices);
    sort_unique(l.edges);
    return l;
  }

  // can_collapse, remembered: a collapse refused is refused again while neither end's star has
  // changed (the checks see only the cells and faces at a and b, and what a's faces stand for),
  // so a later pass skips it. The bell's and the sword's collapses retried most of their edges
  // in every pass.
  bool may_collapse(int a, int b) {
    const std::uint64_t key = static_cast<std::uint64_t>(a) * points_.size() + static_cast<std::uint64_t>(b);
    const std::pair<std::uint32_t, std::uint32_t> stamps{vertex_stamp_[a], vertex_stamp_[b]};
    if (const auto it = refused_.find(key); it != refused_.end() && it->second == stamps) return false;
    if (can_collapse(a, b)) return true;
    refused_[key] = stamps;
    return false;
  }

  // The checks run cheapest and most often failing first (the outcome does not depend on their
  // order): the shape of the cells that stay, the turn of the boundary faces, the link
  // condition, then the distances to the input (a closest-point query per face).
  bool can_collapse(int a, int b) const {
    const std::vector<int> cells_a = live_cells(a), faces_a = live_faces(a);
    const bool a_on_boundary = !faces_a.empty();
    // A boundary vertex moves along the boundary only (an edge through the body would pull the
    // boundary in: across a wall, the wall would close).
    if (a_on_boundary) {
      bool boundary_edge = false;
      for (int f : faces_a) boundary_edge = boundary_edge || holds(faces_[f], b);
      if (!boundary_edge) return false;
    }

    // The cells that stay, with b for a: well shaped, no edge too long. A dihedral angle above
    // the bound is a normal dot product above −cos(bound) (largest_outward_normal_dot).
    const double max_normal_dot = -std::cos(options_.max_dihedral_deg * M_PI / 180);
    for (int c : cells_a) {
      if (holds(cells_[c], b)) continue;
      Eigen::Matrix<double, 4, 3> corners;
      for (int k = 0; k < 4; ++k) {
        const int v = cells_[c][k] == a ? b : cells_[c][k];
        corners.row(k) = point(v).transpose();
        if (v != b && (point(v) - point(b)).norm() > options_.longest_new_edge * wanted_edge_m(v, b)) return false;
      }
      if (tet_quality(corners) < options_.min_quality) return false;
      if (largest_outward_normal_dot(corners.row(0), corners.row(1), corners.row(2), corners.row(3)) > max_normal_dot)
        return false;
    }

    // The boundary faces that stay turn little.
    const double cos_turn = std::cos(options_.max_normal_turn_deg * M_PI / 180);
    std::vector<int> kept_faces;
    for (int f : faces_a) {
      if (holds(faces_[f], b)) continue;
      kept_faces.push_back(f);
      const Eigen::Vector3d n_old = normal(faces_[f]), n_new = normal(with(faces_[f], a, b));
      if (n_new.dot(n_old) <= cos_turn * n_new.norm() * n_old.norm()) return false;
    }

    if (!link_condition_holds(a, b, cells_a, faces_a)) return false;
    if (!a_on_boundary) return true;

    // Every boundary vertex collapsed so far into the faces that change (and a) lies near them,
    // and their centres near the input: the boundary stays within the bound of every point of
    // the input it was made of. (The centres last: each is a closest-point query on the input.)
    for (int p : represented_points(a, faces_a)) {
      if (nearest_face(p, kept_faces, a, b).second > options_.max_boundary_distance_m[p]) return false;
    }
    for (int f : kept_faces) {
      const Triangle t = with(faces_[f], a, b);
      const Eigen::Vector3d centre = (point(t[0]) + point(t[1]) + point(t[2])) / 3;
      if (options_.distance_to_input_m(centre) > options_.max_boundary_distance_m[a]) return false;
    }
    return true;
  }

  // The link condition: Lk(a) ∩ Lk(b) = Lk(ab), vertices and edges.
  bool link_condition_holds(int a, int b, const std::vector<int>& cells_a, const std::vector<int>& faces_a) const {
    const Link la = link_of(a, cells_a, faces_a), lb = link_of(b, live_cells(b), live_faces(b));
    Link lab;
    for (int c : cells_a) {
      if (!holds(cells_[c], b)) continue;
      int others[2], n = 0;
      for (int x : cells_[c])
        if (x != a && x != b) others[n++] = x;
      lab.vertices.insert(lab.vertices.end(), others, others + 2);
      lab.edges.push_back(sorted_pair(others[0], others[1]));
    }
    for (int f : faces_a) {
      if (!holds(faces_[f], b)) continue;
      for (int x : faces_[f])
        if (x != a && x != b) {
          lab.vertices.push_back(x);
          lab.edges.push_back({x, kOutside});
        }
      lab.vertices.push_back(kOutside);
    }
    sort_unique(lab.vertices);
    sort_unique(lab.edges);
    return includes_all(lab.vertices, intersection(la.vertices, lb.vertices)) &&
           includes_all(lab.edges, intersection(la.edges, lb.edges));
  }

  Triangle with(Triangle f, int a, int b) const {
    for (int& v : f)
      if (v == a) v = b;
    return f;
  }
  Eigen::Vector3d normal(const Triangle& f) const {
    return (point(f[1]) - point(f[0])).cross(point(f[2]) - point(f[0]));
  }
  // a and the boundary vertices collapsed into a's faces so far.
  std::vector<int> represented_points(int a, const std::vector<int>& faces_a) const {
    std::vector<int> out{a};
    for (int f : faces_a) out.insert(out.end(), face_points_[f].begin(), face_points_[f].end());
    return out;
  }
  // Of the faces `kept` (a's, a becoming b), the nearest to vertex p, and its distance.
  std::pair<int, double> nearest_face(int p, const std::vector<int>& kept, int a, int b) const {
    std::pair<int, double> best{-1, INFINITY};
    for (int f : kept) {
      const Triangle t = with(faces_[f], a, b);
      const double d = point_triangle_distance(point(p), point(t[0]), point(t[1]), point(t[2]));
      if (d < best.second) best = {f, d};
    }
    return best;
  }

  void collapse(int a, int b) {
    // Every vertex of a's star sees its star change.
    const std::vector<int> cells_a = live_cells(a);
    for (int c : cells_a)
      for (int v : cells_[c]) ++vertex_stamp_[v];
    // The points a's faces stand for go to the nearest face that stays.
    const std::vector<int> faces_a = live_faces(a);
    std::vector<int> kept;
    for (int f : faces_a)
      if (!holds(faces_[f], b)) kept.push_back(f);
    std::vector<std::pair<int, int>> moves;  // point, face
    if (!kept.empty())
      for (int p : represented_points(a, faces_a)) moves.push_back({p, nearest_face(p, kept, a, b).first});
    for (int f : faces_a) face_points_[f].clear();
    for (const auto& [p, f] : moves) face_points_[f].push_back(p);
    move_corners(cells_a, cells_, cell_alive_, vertex_cells_[b], a, b);
    move_corners(faces_a, faces_, face_alive_, vertex_faces_[b], a, b);
    vertex_alive_[a] = 0;
    vertex_cells_[a].clear();
    vertex_faces_[a].clear();
  }

  // Of the simplices `ids` (cells or faces) at a: those that hold b too are gone; in the others
  // b takes a's place, and b's list gets them.
  template <class Simplex>
  static void move_corners(const std::vector<int>& ids, std::vector<Simplex>& simplices, std::vector<char>& alive,
                           std::vector<int>& at_b, int a, int b) {
    for (int id : ids) {
      if (holds(simplices[id], b)) {
        alive[id] = 0;
        continue;
      }
      for (int& v : simplices[id])
        if (v == a) v = b;
      at_b.push_back(id);
    }
  }

  const EdgeCollapseOptions& options_;
  std::vector<Eigen::Vector3d> points_;
  std::vector<Cell> cells_;
  std::vector<char> cell_alive_;
  std::vector<Triangle> faces_;
  std::vector<char> face_alive_;
  std::vector<std::vector<int>> face_points_;  // the boundary vertices collapsed into each face
  std::vector<std::vector<int>> vertex_cells_, vertex_faces_;
  std::vector<char> vertex_alive_;
  std::vector<std::uint32_t> vertex_stamp_;  // bumped when the vertex's star changes
  std::unordered_map<std::uint64_t, std::pair<std::uint32_t, std::uint32_t>> refused_;  // (a, b): stamps then
};

}  // namespace

double max_dihedral_angle_rad(const Eigen::Vector3d& a, const Eigen::Vector3d& b, const Eigen::Vector3d& c,
                              const Eigen::Vector3d& d) {
  return M_PI - std::acos(largest_outward_normal_dot(a, b, c, d));
}

std::vector<std::array<int, 4>> collapse_short_edges(const Eigen::MatrixXd& vertices,
                                                     std::vector<std::array<int, 4>> cells,
                                                     const EdgeCollapseOptions& options) {
  CollapsibleMesh mesh(vertices, std::move(cells), options);
  // Each pass collapses most of what it can; what a collapse made possible waits for the next.
  constexpr int kMaxPasses = 12;
  for (int pass = 0; pass < kMaxPasses; ++pass)
    if (mesh.collapse_pass() == 0) break;
  return mesh.cells();
}

}  // namespace mesh2dsp
