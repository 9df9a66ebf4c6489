#include "fem/mesh_bodies.hpp"

#include <vector>

#include "fem/disjoint_sets.hpp"

namespace mesh2dsp {

int count_connected_bodies(const Eigen::MatrixXi& elements, Eigen::Index node_count) {
  DisjointSets sets(static_cast<std::size_t>(node_count));
  std::vector<bool> used(static_cast<std::size_t>(node_count), false);
  for (Eigen::Index e = 0; e < elements.rows(); ++e)
    for (Eigen::Index k = 0; k < elements.cols(); ++k) {
      used[static_cast<std::size_t>(elements(e, k))] = true;
      sets.unite(elements(e, k), elements(e, 0));
    }
  int bodies = 0;
  for (Eigen::Index i = 0; i < node_count; ++i)
    if (used[static_cast<std::size_t>(i)] && sets.find(static_cast<int>(i)) == i) ++bodies;
  return bodies;
}

}  // namespace mesh2dsp
