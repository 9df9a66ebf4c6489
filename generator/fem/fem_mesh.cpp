#include "fem/fem_mesh.hpp"

#include <fmt/format.h>

#include <unordered_map>

#include "util/error.hpp"

namespace mesh2dsp {

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
      int a = tets.tets(t, kTetEdges[e][0]), b = tets.tets(t, kTetEdges[e][1]);
      if (a > b) std::swap(a, b);
      const uint64_t key = (static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b);
      auto [it, inserted] = edge_node.try_emplace(key, fem.corner_count + static_cast<int>(extra.size()));
      if (inserted)
        extra.push_back(0.5 * (tets.vertices.row(a) + tets.vertices.row(b)).transpose());
      fem.elements(t, 4 + e) = it->second;
    }
  }
  fem.nodes.resize(fem.corner_count + static_cast<int>(extra.size()), 3);
  fem.nodes.topRows(fem.corner_count) = tets.vertices;
  for (size_t i = 0; i < extra.size(); ++i) fem.nodes.row(fem.corner_count + i) = extra[i];
  return fem;
}

}  // namespace mesh2dsp
