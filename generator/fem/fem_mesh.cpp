#include "fem/fem_mesh.hpp"

#include <fmt/format.h>

#include <algorithm>
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

}  // namespace

FemMesh make_fem_mesh(const TetMesh& tets, int order) {
  if (order != 1 && order != 2)
    throw Error(fmt::format("element order must be 1 or 2 (got {})", order));
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

}  // namespace mesh2dsp
