#pragma once
// Union-find with path halving: connected shells, fans and bodies of meshes.
#include <numeric>
#include <vector>

namespace mesh2dsp {

struct DisjointSets {
  std::vector<int> parent;
  DisjointSets() = default;
  explicit DisjointSets(std::size_t n) { reset(n); }
  void reset(std::size_t n) {
    parent.resize(n);
    std::iota(parent.begin(), parent.end(), 0);
  }
  int find(int x) {
    while (parent[static_cast<std::size_t>(x)] != x)
      x = parent[static_cast<std::size_t>(x)] =
          parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    return x;
  }
  // False when a and b were in one set already.
  bool unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b) return false;
    parent[static_cast<std::size_t>(a)] = b;
    return true;
  }
};

}  // namespace mesh2dsp
