#include "modal/node_partition.hpp"

#include <metis.h>

#include <algorithm>

namespace mesh2dsp {
namespace {

// The node graph in compressed rows (METIS's xadj/adjncy), without self loops or repeats.
void node_graph(const Eigen::MatrixXi& elements, int node_count, std::vector<idx_t>& offsets,
                std::vector<idx_t>& neighbours) {
  std::vector<std::vector<idx_t>> adjacent(node_count);
  for (Eigen::Index e = 0; e < elements.rows(); ++e)
    for (Eigen::Index a = 0; a < elements.cols(); ++a)
      for (Eigen::Index b = 0; b < elements.cols(); ++b)
        if (a != b) adjacent[elements(e, a)].push_back(elements(e, b));
  offsets.assign(1, 0);
  neighbours.clear();
  for (auto& list : adjacent) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    neighbours.insert(neighbours.end(), list.begin(), list.end());
    offsets.push_back(static_cast<idx_t>(neighbours.size()));
    std::vector<idx_t>().swap(list);
  }
}

}  // namespace

std::vector<int> partition_nodes(const Eigen::MatrixXi& elements, int node_count, int parts) {
  if (parts <= 1) return std::vector<int>(node_count, 0);
  if (node_count < parts) return {};
  std::vector<idx_t> offsets, neighbours;
  node_graph(elements, node_count, offsets, neighbours);
  idx_t vertices = node_count, constraints = 1, count = parts, cut = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;  // the same partition on every run: the same rounding
  std::vector<idx_t> part(node_count, 0);
  if (METIS_PartGraphKway(&vertices, &constraints, offsets.data(), neighbours.data(), nullptr, nullptr,
                          nullptr, &count, nullptr, nullptr, options, &cut, part.data()) != METIS_OK)
    return {};
  std::vector<int> sizes(parts, 0);
  for (idx_t p : part) ++sizes[p];
  if (std::count(sizes.begin(), sizes.end(), 0) > 0) return {};
  return {part.begin(), part.end()};
}

long long cut_edges(const Eigen::MatrixXi& elements, int node_count, const std::vector<int>& part) {
  std::vector<idx_t> offsets, neighbours;
  node_graph(elements, node_count, offsets, neighbours);
  long long cut = 0;
  for (int i = 0; i < node_count; ++i)
    for (idx_t k = offsets[i]; k < offsets[i + 1]; ++k)
      if (neighbours[k] > i && part[i] != part[neighbours[k]]) ++cut;
  return cut;
}

}  // namespace mesh2dsp
