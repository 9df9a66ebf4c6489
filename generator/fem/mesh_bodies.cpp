#include "fem/mesh_bodies.hpp"

#include <numeric>
#include <vector>

namespace mesh2dsp {

int count_connected_bodies(const Eigen::MatrixXi& elements, Eigen::Index node_count) {
  std::vector<int> parent(static_cast<std::size_t>(node_count));
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[static_cast<std::size_t>(x)] != x)
      x = parent[static_cast<std::size_t>(x)] =
          parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    return x;
  };
  std::vector<bool> used(static_cast<std::size_t>(node_count), false);
  for (Eigen::Index e = 0; e < elements.rows(); ++e)
    for (Eigen::Index k = 0; k < elements.cols(); ++k) {
      used[static_cast<std::size_t>(elements(e, k))] = true;
      parent[static_cast<std::size_t>(find(elements(e, k)))] = find(elements(e, 0));
    }
  int bodies = 0;
  for (Eigen::Index i = 0; i < node_count; ++i)
    if (used[static_cast<std::size_t>(i)] && find(static_cast<int>(i)) == i) ++bodies;
  return bodies;
}

}  // namespace mesh2dsp
