#include "fem/fem_mesh.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <unordered_map>
#include <vector>

#include "fem/elements.hpp"
#include "fem/volume_mesh.hpp"
#include "util/error.hpp"

namespace mesh2dsp {

namespace {

uint64_t edge_key(int a, int b) {
  if (a > b) std::swap(a, b);
  return (static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b);
}

// An element whose quadratic map's Jacobian falls below this fraction of its straight one
// somewhere is too distorted to integrate reliably: its edges stay straight.
constexpr double kMinJacobianRatio = 0.2;
// A boundary edge node moves onto the input surface by at most this fraction of the edge.
constexpr double kMaxCurvature = 1.0 / 3.0;

void curve_boundary_edges(const TetMesh& tets, const std::unordered_map<uint64_t, int>& edge_node,
                          FemMesh& fem) {
  std::vector<int> nodes;
  std::vector<double> lengths;
  for (int f = 0; f < tets.surface_faces.rows(); ++f)
    for (int k = 0; k < 3; ++k) {
      const int a = tets.surface_faces(f, k), b = tets.surface_faces(f, (k + 1) % 3);
      if (a > b) continue;  // each boundary edge once (its other face has it as (b, a))
      nodes.push_back(edge_node.at(edge_key(a, b)));
      lengths.push_back((tets.vertices.row(a) - tets.vertices.row(b)).norm());
    }
  Eigen::MatrixXd midpoints(static_cast<Eigen::Index>(nodes.size()), 3);
  for (size_t i = 0; i < nodes.size(); ++i) midpoints.row(static_cast<Eigen::Index>(i)) = fem.nodes.row(nodes[i]);
  const Eigen::MatrixXd on_input =
      nearest_surface_points(SurfaceMesh{tets.input_vertices, tets.input_faces}, midpoints);
  std::vector<char> moved(fem.nodes.rows(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    if ((on_input.row(r) - midpoints.row(r)).norm() > kMaxCurvature * lengths[i]) continue;
    fem.nodes.row(nodes[i]) = on_input.row(r);
    moved[nodes[i]] = 1;
  }
  // Straighten the edges of elements the curving would fold, until none is left (an edge put
  // back may belong to a neighbour that was fine).
  for (bool changed = true; changed;) {
    changed = false;
    for (int t = 0; t < fem.elements.rows(); ++t) {
      bool any = false;
      for (int e = 0; e < 6; ++e) any |= moved[fem.elements(t, 4 + e)] != 0;
      if (!any) continue;
      P2Nodes x;
      for (int c = 0; c < 10; ++c) x.row(c) = fem.nodes.row(fem.elements(t, c));
      if (p2_min_jacobian_ratio(x) >= kMinJacobianRatio) continue;
      for (int e = 0; e < 6; ++e) {
        const int node = fem.elements(t, 4 + e);
        if (!moved[node]) continue;
        fem.nodes.row(node) = 0.5 * (fem.nodes.row(fem.elements(t, kTetEdges[e][0])) +
                                     fem.nodes.row(fem.elements(t, kTetEdges[e][1])));
        moved[node] = 0;
        changed = true;
      }
    }
  }
  fem.curved_edges = static_cast<int>(std::count(moved.begin(), moved.end(), 1));
}

// The cubic mesh on a quadratic one: every P3 node where the P2 element's map puts it, so a
// curved boundary stays the same curve. The P2 mesh's edge node c + i (c corners) becomes the
// two P3 nodes c + 2i (nearer the edge's lower-numbered corner) and c + 2i + 1; face nodes follow.
FemMesh cubic_on(const FemMesh& quadratic) {
  FemMesh fem;
  fem.order = 3;
  fem.corner_count = quadratic.corner_count;
  fem.curved_edges = quadratic.curved_edges;
  const int c = quadratic.corner_count;
  const Eigen::Index count = quadratic.elements.rows();
  fem.elements.resize(count, 20);
  std::vector<Eigen::RowVector3d> extra(2 * static_cast<std::size_t>(quadratic.nodes.rows() - c));
  auto corner = [&](int v) { return Eigen::RowVector3d(quadratic.nodes.row(v)); };
  for (Eigen::Index t = 0; t < count; ++t) {
    for (int k = 0; k < 4; ++k) fem.elements(t, k) = quadratic.elements(t, k);
    for (int e = 0; e < 6; ++e) {
      const int a = quadratic.elements(t, kTetEdges[e][0]), b = quadratic.elements(t, kTetEdges[e][1]);
      const int lo = std::min(a, b), hi = std::max(a, b), mid = quadratic.elements(t, 4 + e);
      const int near_lo = c + 2 * (mid - c), near_hi = near_lo + 1;
      // x(s) = lo(1 − s)(1 − 2s) + hi s(2s − 1) + mid 4s(1 − s), at s = 1/3 and 2/3 (written
      // again by each element on the edge, the same values).
      extra[static_cast<std::size_t>(near_lo - c)] = (2 * corner(lo) - corner(hi) + 8 * corner(mid)) / 9;
      extra[static_cast<std::size_t>(near_hi - c)] = (2 * corner(hi) - corner(lo) + 8 * corner(mid)) / 9;
      fem.elements(t, 4 + 2 * e) = a == lo ? near_lo : near_hi;
      fem.elements(t, 5 + 2 * e) = a == lo ? near_hi : near_lo;
    }
  }
  // Faces: every element's four, sorted by their corners, so each shared face gets one node.
  struct FaceSlot {
    std::array<int, 3> corners;
    int slot;  // 4t + k: element t's face opposite its corner k
    bool operator<(const FaceSlot& o) const { return corners < o.corners; }
  };
  std::vector<FaceSlot> faces(static_cast<std::size_t>(4 * count));
  for (Eigen::Index t = 0; t < count; ++t)
    for (int k = 0; k < 4; ++k) {
      std::array<int, 3> c;
      for (int j = 0, m = 0; j < 4; ++j)
        if (j != k) c[m++] = quadratic.elements(t, j);
      std::sort(c.begin(), c.end());
      faces[static_cast<std::size_t>(4 * t + k)] = {c, static_cast<int>(4 * t + k)};
    }
  std::sort(faces.begin(), faces.end());
  for (std::size_t f = 0; f < faces.size(); ++f) {
    const int t = faces[f].slot / 4, k = faces[f].slot % 4;
    if (f == 0 || faces[f].corners != faces[f - 1].corners) {
      // The P2 map at the face's centre: −(a + b + c)/9 + 4(m_ab + m_bc + m_ca)/9.
      Eigen::RowVector3d x = Eigen::RowVector3d::Zero();
      for (int e = 0; e < 6; ++e) {
        const int i = kTetEdges[e][0], j = kTetEdges[e][1];
        if (i != k && j != k) x += 4.0 / 9 * corner(quadratic.elements(t, 4 + e));
      }
      for (int j = 0; j < 4; ++j)
        if (j != k) x -= corner(quadratic.elements(t, j)) / 9;
      extra.push_back(x);
    }
    fem.elements(t, 16 + k) = c + static_cast<int>(extra.size()) - 1;
  }
  fem.nodes.resize(c + static_cast<Eigen::Index>(extra.size()), 3);
  fem.nodes.topRows(c) = quadratic.nodes.topRows(c);
  for (std::size_t i = 0; i < extra.size(); ++i) fem.nodes.row(c + static_cast<Eigen::Index>(i)) = extra[i];
  return fem;
}

}  // namespace

FemMesh make_fem_mesh(const TetMesh& tets, int order) {
  if (order < 1 || order > 3)
    throw Error(fmt::format("element order must be 1, 2 or 3 (got {})", order));
  if (order == 3) return cubic_on(make_fem_mesh(tets, 2));
  FemMesh fem;
  fem.order = order;
  fem.corner_count = static_cast<int>(tets.vertices.rows());
  if (order == 1) {
    fem.nodes = tets.vertices;
    fem.elements = tets.tets;
    return fem;
  }
  // One node per unique edge, numbered after the corners in order of first appearance.
  std::unordered_map<uint64_t, int> edge_node;
  edge_node.reserve(tets.tets.rows() * 2);
  std::vector<Eigen::Vector3d> extra;
  fem.elements.resize(tets.tets.rows(), 10);
  for (int t = 0; t < tets.tets.rows(); ++t) {
    for (int k = 0; k < 4; ++k) fem.elements(t, k) = tets.tets(t, k);
    for (int e = 0; e < 6; ++e) {
      const int a = tets.tets(t, kTetEdges[e][0]), b = tets.tets(t, kTetEdges[e][1]);
      auto [it, inserted] =
          edge_node.try_emplace(edge_key(a, b), fem.corner_count + static_cast<int>(extra.size()));
      if (inserted)
        extra.push_back(0.5 * (tets.vertices.row(a) + tets.vertices.row(b)).transpose());
      fem.elements(t, 4 + e) = it->second;
    }
  }
  fem.nodes.resize(fem.corner_count + static_cast<int>(extra.size()), 3);
  fem.nodes.topRows(fem.corner_count) = tets.vertices;
  for (size_t i = 0; i < extra.size(); ++i) fem.nodes.row(fem.corner_count + i) = extra[i];
  if (tets.input_faces.rows() > 0) curve_boundary_edges(tets, edge_node, fem);
  return fem;
}

Eigen::VectorXi face_edge_nodes(const FemMesh& fem, const Eigen::MatrixXi& faces) {
  if (fem.order != 2) return {};
  std::unordered_map<uint64_t, int> node;
  for (Eigen::Index t = 0; t < fem.elements.rows(); ++t)
    for (int e = 0; e < 6; ++e)
      node.emplace(edge_key(fem.elements(t, kTetEdges[e][0]), fem.elements(t, kTetEdges[e][1])), fem.elements(t, 4 + e));
  Eigen::VectorXi out(3 * faces.rows());
  for (Eigen::Index j = 0; j < faces.rows(); ++j)
    for (int e = 0; e < 3; ++e) out[3 * j + e] = node.at(edge_key(faces(j, e), faces(j, (e + 1) % 3)));
  return out;
}

NodeCorners node_corners(const FemMesh& fem) {
  NodeCorners corners(static_cast<std::size_t>(fem.nodes.rows()), {-1, -1, -1});
  for (Eigen::Index t = 0; t < fem.elements.rows(); ++t) {
    auto corner = [&](int k) { return fem.elements(t, k); };
    for (int k = 0; k < 4; ++k) corners[corner(k)] = {corner(k), -1, -1};
    if (fem.order < 2) continue;
    for (int e = 0; e < 6; ++e) {
      const std::array<int, 3> edge{corner(kTetEdges[e][0]), corner(kTetEdges[e][1]), -1};
      if (fem.order == 2) {
        corners[fem.elements(t, 4 + e)] = edge;
      } else {
        corners[fem.elements(t, 4 + 2 * e)] = edge;
        corners[fem.elements(t, 5 + 2 * e)] = edge;
      }
    }
    if (fem.order == 3)
      for (int k = 0; k < 4; ++k)
        corners[fem.elements(t, 16 + k)] = {corner((k + 1) % 4), corner((k + 2) % 4), corner((k + 3) % 4)};
  }
  return corners;
}

}  // namespace mesh2dsp
