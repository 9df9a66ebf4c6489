#include "modal/excitation.hpp"

#include <fmt/format.h>

#include <Eigen/Geometry>

#include <charconv>
#include <algorithm>
#include <set>
#include <queue>
#include <cmath>
#include <sstream>

#include "fem/surface_mesh.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {
namespace {

std::vector<bool> on_surface(const TetMesh& mesh) {
  std::vector<bool> used(mesh.vertices.rows(), false);
  for (int f = 0; f < mesh.surface_faces.rows(); ++f)
    for (int k = 0; k < 3; ++k) used[mesh.surface_faces(f, k)] = true;
  return used;
}

double parse_number(const std::string& text, const std::string& spec) {
  double v = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  while (first < last && *first == ' ') ++first;
  while (last > first && last[-1] == ' ') --last;
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last || first == last || !std::isfinite(v))
    throw Error(fmt::format("cannot read --excite \"{}\": \"{}\" is not a number", spec, text));
  return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (item.find_first_not_of(' ') != std::string::npos) out.push_back(item);
  return out;
}

int nearest_surface_vertex(const TetMesh& mesh, const std::vector<bool>& surface,
                           const Eigen::Vector3d& p) {
  int best = -1;
  double best_d = INFINITY;
  for (int i = 0; i < static_cast<int>(surface.size()); ++i) {
    if (!surface[i]) continue;
    const double d = (mesh.vertices.row(i).transpose() - p).squaredNorm();
    if (d < best_d) best_d = d, best = i;
  }
  return best;
}

}  // namespace

std::vector<bool> smooth_surface_vertices(const TetMesh& mesh, double max_angle_rad) {
  const Eigen::MatrixXd normals = vertex_normals(SurfaceMesh{mesh.vertices, mesh.surface_faces});
  std::vector<bool> smooth = on_surface(mesh);
  const double min_cos = std::cos(max_angle_rad);
  const auto& V = mesh.vertices;
  const auto& F = mesh.surface_faces;
  for (Eigen::Index f = 0; f < F.rows(); ++f) {
    const Eigen::Vector3d n = (Eigen::Vector3d(V.row(F(f, 1)) - V.row(F(f, 0))))
                                  .cross(Eigen::Vector3d(V.row(F(f, 2)) - V.row(F(f, 0))));
    if (!(n.norm() > 0)) continue;
    for (int k = 0; k < 3; ++k)
      if (normals.row(F(f, k)).dot(n.normalized()) < min_cos) smooth[F(f, k)] = false;
  }
  return smooth;
}

std::vector<int> farthest_point_samples(const TetMesh& mesh, int count) {
  // Candidates: surface vertices where the surface is smooth (every incident face within 10°
  // of the vertex normal): face interiors of a box, not its edges and corners, where a strike
  // direction is a triangulation artefact. All surface vertices when too few are smooth.
  const auto surface = on_surface(mesh);
  const auto smooth = smooth_surface_vertices(mesh, 10.0 * M_PI / 180);
  std::vector<int> candidates;
  for (int i = 0; i < static_cast<int>(smooth.size()); ++i)
    if (smooth[i]) candidates.push_back(i);
  if (static_cast<int>(candidates.size()) < count) {
    candidates.clear();
    for (int i = 0; i < static_cast<int>(surface.size()); ++i)
      if (surface[i]) candidates.push_back(i);
  }
  if (candidates.empty()) throw Error("the mesh has no surface vertices to excite");
  count = std::min<int>(count, static_cast<int>(candidates.size()));
  Eigen::Vector3d centroid = Eigen::Vector3d::Zero();
  for (int i : candidates) centroid += mesh.vertices.row(i).transpose();
  centroid /= static_cast<double>(candidates.size());
  std::vector<double> distance(candidates.size());
  for (size_t c = 0; c < candidates.size(); ++c)
    distance[c] = (mesh.vertices.row(candidates[c]).transpose() - centroid).squaredNorm();
  std::vector<int> chosen;
  // First: farthest from the centroid; then repeatedly the one farthest from all chosen.
  std::vector<double> nearest(candidates.size(), INFINITY);
  size_t next = std::max_element(distance.begin(), distance.end()) - distance.begin();
  while (static_cast<int>(chosen.size()) < count) {
    chosen.push_back(candidates[next]);
    const Eigen::Vector3d p = mesh.vertices.row(candidates[next]);
    for (size_t c = 0; c < candidates.size(); ++c)
      nearest[c] = std::min(nearest[c], (mesh.vertices.row(candidates[c]).transpose() - p).squaredNorm());
    next = std::max_element(nearest.begin(), nearest.end()) - nearest.begin();
  }
  return chosen;
}

std::vector<int> select_excitation_vertices(const std::string& spec, const TetMesh& mesh) {
  const auto colon = spec.find(':');
  if (colon == std::string::npos)
    throw Error(fmt::format(
        "cannot read --excite \"{}\": expected auto:K, vertex:I,J,… or point:X,Y,Z;…", spec));
  const std::string kind = spec.substr(0, colon), rest = spec.substr(colon + 1);
  const auto surface = on_surface(mesh);
  std::vector<int> out;
  if (kind == "auto") {
    const double k = parse_number(rest, spec);
    if (k < 1 || k != std::floor(k) || k > 100000)
      throw Error(fmt::format("--excite \"{}\": auto needs a whole number of points ≥ 1", spec));
    out = farthest_point_samples(mesh, static_cast<int>(k));
  } else if (kind == "vertex") {
    // Vertex I of the input file; when the surface was remeshed, the nearest surface vertex.
    const bool remeshed = mesh.input_vertices.rows() > 0;
    const auto count = remeshed ? mesh.input_vertices.rows() : mesh.vertices.rows();
    for (const auto& item : split(rest, ',')) {
      const double v = parse_number(item, spec);
      if (v != std::floor(v) || v < 0 || v >= static_cast<double>(count))
        throw Error(fmt::format("--excite: vertex {} does not exist (the mesh has {} vertices)",
                                item, count));
      if (remeshed) {
        const Eigen::Vector3d asked = mesh.input_vertices.row(static_cast<int>(v));
        const int nearest = nearest_surface_vertex(mesh, surface, asked);
        const double distance_m = (mesh.vertices.row(nearest).transpose() - asked).norm();
        const double size_m =
            (mesh.vertices.colwise().maxCoeff() - mesh.vertices.colwise().minCoeff()).norm();
        if (distance_m > 0.01 * size_m)
          notice(fmt::format(
              "--excite: input vertex {} is {:.3g} mm from the nearest vertex of the analysis "
              "surface ({}), where it is struck; --keep-surface keeps the input's vertices",
              item, 1e3 * distance_m, nearest));
        out.push_back(nearest);
        continue;
      }
      if (!surface[static_cast<int>(v)])
        throw Error(fmt::format("--excite: vertex {} is not on the surface", item));
      out.push_back(static_cast<int>(v));
    }
  } else if (kind == "point") {
    for (const auto& item : split(rest, ';')) {
      const auto xyz = split(item, ',');
      if (xyz.size() != 3)
        throw Error(fmt::format("--excite \"{}\": a point needs X,Y,Z (got \"{}\")", spec, item));
      const Eigen::Vector3d p(parse_number(xyz[0], spec), parse_number(xyz[1], spec),
                              parse_number(xyz[2], spec));
      out.push_back(nearest_surface_vertex(mesh, surface, p));
    }
  } else {
    throw Error(fmt::format("--excite \"{}\": unknown kind \"{}\" (auto, vertex or point)", spec, kind));
  }
  if (out.empty()) throw Error(fmt::format("--excite \"{}\" selects no point", spec));
  return out;
}

void notice_edge_or_corner_excitations(const std::vector<int>& vertices, const TetMesh& mesh) {
  // A vertex on an edge or corner (faces meeting at more than 10° from its normal) has no
  // surface normal of its own: the strike direction is the average of its faces' normals (a
  // bisector). Said, not silently taken.
  const auto smooth = smooth_surface_vertices(mesh, 10.0 * M_PI / 180);
  std::string where;
  int count = 0;
  for (int v : vertices)
    if (!smooth[v] && count++ < 8) where += fmt::format("{}{}", where.empty() ? "" : ", ", v);
  if (count)
    notice(fmt::format("--excite: {} point(s) lie on an edge or corner of the surface (vertex {}{}): "
                       "struck along the average normal of the faces there (a bisector); pick "
                       "points inside a face for a face's normal",
                       count, where, count > 8 ? ", ..." : ""));
}

std::vector<ModalExcitation> excitation_gains(const std::vector<int>& vertices, const TetMesh& mesh,
                                              const Eigen::MatrixXd& shapes,
                                              const std::string& normalization) {
  const Eigen::MatrixXd normals = vertex_normals(SurfaceMesh{mesh.vertices, mesh.surface_faces});
  std::vector<ModalExcitation> out;
  for (int v : vertices) {
    ModalExcitation e;
    e.vertex = v;
    e.position = mesh.vertices.row(v);
    e.direction = normals.row(v);
    e.gains.resize(shapes.cols());
    for (int n = 0; n < shapes.cols(); ++n)
      e.gains[n] = shapes.block<3, 1>(3 * v, n).dot(e.direction);
    if (normalization == "per-point") {
      double peak = 0;
      for (double g : e.gains) peak = std::max(peak, std::abs(g));
      if (peak > 0)
        for (double& g : e.gains) g /= peak;
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<std::array<int, 3>> triangulate_excitations(const std::vector<ModalExcitation>& points,
                                                        const TetMesh& mesh) {
  std::vector<std::array<int, 3>> triangles;
  const int k = static_cast<int>(points.size());
  if (k < 3) return triangles;
  // The surface's edge graph, weighted by length.
  const auto& V = mesh.vertices;
  const auto& F = mesh.surface_faces;
  std::vector<std::vector<std::pair<int, double>>> neighbours(V.rows());
  for (Eigen::Index f = 0; f < F.rows(); ++f)
    for (int e = 0; e < 3; ++e) {
      const int a = F(f, e), b = F(f, (e + 1) % 3);
      const double length = (V.row(a) - V.row(b)).norm();
      neighbours[a].push_back({b, length});
      neighbours[b].push_back({a, length});
    }
  // Geodesic Voronoi regions of the points over the surface: Dijkstra from all of them at once.
  std::vector<double> distance(V.rows(), INFINITY);
  std::vector<int> region(V.rows(), -1);
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  for (int i = 0; i < k; ++i) {
    const int v = points[i].vertex;
    if (v < 0 || v >= V.rows() || region[v] >= 0) continue;  // a repeated vertex: its first point
    distance[v] = 0;
    region[v] = i;
    queue.push({0.0, v});
  }
  while (!queue.empty()) {
    const auto [d, v] = queue.top();
    queue.pop();
    if (d > distance[v]) continue;
    for (const auto& [w, length] : neighbours[v])
      if (d + length < distance[w]) {
        distance[w] = d + length;
        region[w] = region[v];
        queue.push({distance[w], w});
      }
  }
  // The dual: a surface triangle whose corners lie in three regions gives the triangle of their
  // points, oriented as the surface is (outward). Its edges join regions that touch along the
  // surface, so no triangle crosses the interior; one whose points face apart (normals more than
  // 90° apart: top and bottom of a plate, inside and outside of a shell across its rim) is
  // dropped, since the mode shape's normal component changes sign across such a turn.
  std::set<std::array<int, 3>> seen;
  for (Eigen::Index f = 0; f < F.rows(); ++f) {
    const std::array<int, 3> t{region[F(f, 0)], region[F(f, 1)], region[F(f, 2)]};
    if (t[0] < 0 || t[1] < 0 || t[2] < 0 || t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) continue;
    auto key = t;
    std::sort(key.begin(), key.end());
    if (!seen.insert(key).second) continue;
    bool facing = true;
    for (int e = 0; e < 3; ++e)
      facing = facing && points[t[e]].direction.dot(points[t[(e + 1) % 3]].direction) > -1e-6;
    if (facing) triangles.push_back(t);
  }
  return triangles;
}

}  // namespace mesh2dsp
