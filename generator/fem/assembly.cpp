#include "fem/assembly.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "fem/elements.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {
namespace {

// Sparsity patterns of the lower triangles, built once at node level. Assembling straight into
// them (instead of through triplets) keeps memory near the final size: triplets of a 100k-tet
// P2 mesh would take over a gigabyte. M = Mₙ ⊗ I₃ in every element (expand_scalar_mass), so its
// pattern holds only the entries (3a + j, 3b + j) of each node pair: a third of K's (the sword
// scan's M 180 -> 60 MB, alive through the whole eigen solve).
struct LowerPattern {
  std::vector<std::vector<int>> neighbours;  // per node b: sorted nodes a ≥ b sharing an element
  std::vector<int> outer;                    // K's CSC column starts, 3N + 1
  std::vector<int> mass_outer;               // M's
};

// The elements along a Morton (Z-order) curve through their centroids, 10 bits an axis: taken
// in this order, consecutive elements write to nearby columns of K and M, and each core's share
// to its own region of them (the mesher's order scattered the writes: a statue scan's assembly
// 0.50-0.57 -> 0.38 s, a sword scan's 1.28-1.31 -> 0.93-1.17 s).
std::vector<int> elements_in_space_order(const FemMesh& mesh) {
  const int count = static_cast<int>(mesh.elements.rows());
  std::vector<int> order(static_cast<std::size_t>(count));
  if (count == 0) return order;
  const Eigen::RowVector3d low = mesh.nodes.colwise().minCoeff();
  const Eigen::RowVector3d extent =
      (mesh.nodes.colwise().maxCoeff() - low).cwiseMax(Eigen::RowVector3d::Constant(1e-300));
  constexpr int kBits = 10;
  std::vector<std::pair<std::uint32_t, int>> keyed(order.size());
  for (int t = 0; t < count; ++t) {
    Eigen::RowVector3d centroid = Eigen::RowVector3d::Zero();
    for (int k = 0; k < 4; ++k) centroid += mesh.nodes.row(mesh.elements(t, k));
    const Eigen::RowVector3d unit = (0.25 * centroid - low).cwiseQuotient(extent);
    std::uint32_t cell[3], code = 0;
    for (int d = 0; d < 3; ++d)
      cell[d] = static_cast<std::uint32_t>(std::clamp(unit[d], 0.0, 1.0) * ((1 << kBits) - 1));
    for (int bit = kBits - 1; bit >= 0; --bit)
      for (int d = 0; d < 3; ++d) code = (code << 1) | ((cell[d] >> bit) & 1u);
    keyed[static_cast<std::size_t>(t)] = {code, t};
  }
  std::sort(keyed.begin(), keyed.end());
  for (std::size_t k = 0; k < keyed.size(); ++k) order[k] = keyed[k].second;
  return order;
}

LowerPattern build_pattern(const FemMesh& mesh, const std::vector<int>& order) {
  const int n = static_cast<int>(mesh.nodes.rows());
  const int per = static_cast<int>(mesh.elements.cols());
  LowerPattern p;
  p.neighbours.resize(n);
  for (const int t : order)
    for (int i = 0; i < per; ++i)
      for (int j = 0; j < per; ++j) {
        const int a = mesh.elements(t, i), b = mesh.elements(t, j);
        if (a >= b) p.neighbours[b].push_back(a);
      }
  for (auto& v : p.neighbours) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    v.shrink_to_fit();
  }
  p.outer.assign(3 * n + 1, 0);
  p.mass_outer.assign(3 * n + 1, 0);
  for (int b = 0; b < n; ++b)
    for (int j = 0; j < 3; ++j) {
      const int neighbours = static_cast<int>(p.neighbours[b].size());
      p.outer[3 * b + j + 1] = p.outer[3 * b + j] + (3 - j) + 3 * (neighbours - 1);
      p.mass_outer[3 * b + j + 1] = p.mass_outer[3 * b + j] + neighbours;
    }
  return p;
}

// Where node a's entries sit in node b's columns (a ≥ b): K's entry (3a + i, 3b + j) is at
// outer[3b + j] + offset(i, j), with i ≥ j when a == b; M's (3a + j, 3b + j) at
// mass_outer[3b + j] + k.
struct NodePairSlot {
  int k;  // a's place among b's neighbours (0: a == b)
  int offset(int i, int j) const { return k == 0 ? (i - j) : (3 - j) + 3 * (k - 1) + i; }
};

inline NodePairSlot node_pair_slot(const LowerPattern& p, int a, int b) {
  const auto& nb = p.neighbours[b];
  return {static_cast<int>(std::lower_bound(nb.begin(), nb.end(), a) - nb.begin())};
}

template <int Nodes, class ElementFn>
void scatter_elements(const FemMesh& mesh, const std::vector<int>& order, const LowerPattern& p,
                      ElementFn element_fn, double* k_values, double* m_values) {
  constexpr int D = 3 * Nodes;
  const int count = static_cast<int>(mesh.elements.rows());
  Progress progress("assembly");
  std::atomic<int> done{0};
#pragma omp parallel
  {
    Eigen::Matrix<double, D, D> ke, me;
    Eigen::Matrix<double, Nodes, 3> x;  // every node: a curved P2 element's edge nodes matter
#pragma omp for schedule(static)
    for (int position = 0; position < count; ++position) {
      const int t = order[static_cast<std::size_t>(position)];
      for (int c = 0; c < Nodes; ++c) x.row(c) = mesh.nodes.row(mesh.elements(t, c));
      element_fn(x, ke, me);
      for (int r = 0; r < Nodes; ++r)
        for (int s = 0; s < Nodes; ++s) {
          const int a = mesh.elements(t, r), b = mesh.elements(t, s);
          if (a < b) continue;
          // One search per node pair, not per entry; M is (scalar mass) ⊗ I₃ in every element
          // (expand_scalar_mass): only its i == j entries exist.
          const NodePairSlot slot = node_pair_slot(p, a, b);
          for (int j = 0; j < 3; ++j) {
            const int column = p.outer[3 * b + j];
            for (int i = (a == b ? j : 0); i < 3; ++i) {
#pragma omp atomic
              k_values[column + slot.offset(i, j)] += ke(3 * r + i, 3 * s + j);
            }
#pragma omp atomic
            m_values[p.mass_outer[3 * b + j] + slot.k] += me(3 * r + j, 3 * s + j);
          }
        }
      const int finished = ++done;
#ifdef _OPENMP
      if (omp_get_thread_num() == 0)  // the progress line is not thread-safe
#endif
        progress.update(static_cast<double>(finished) / count);
    }
  }
  progress.finish(fmt::format("{} elements", count));
}

// Zeroed matrices of the patterns, assembled into in place: a Map of separate arrays copied
// into a SparseMatrix afterwards took 0.23 s of the statue's 1 s of assembly. Their row indices
// are written from the node lists node by node, on every core: these are the arrays' first
// touches (a host fault per page on a virtual machine; the sword scan's K is 180 MB).
SparseMatrix zeroed_matrix(const std::vector<int>& outer, const std::vector<std::vector<int>>& neighbours,
                           void (*rows_of)(int b, int j, const std::vector<int>& neighbours, int* rows)) {
  const int n = static_cast<int>(outer.size()) - 1;
  SparseMatrix a(n, n);
  a.resizeNonZeros(static_cast<Eigen::Index>(outer.back()));
  std::copy(outer.begin(), outer.end(), a.outerIndexPtr());
  int* rows = a.innerIndexPtr();
  double* values = a.valuePtr();
  const int nodes = static_cast<int>(neighbours.size());
#pragma omp parallel for schedule(static)
  for (int b = 0; b < nodes; ++b)
    for (int j = 0; j < 3; ++j) {
      rows_of(b, j, neighbours[static_cast<std::size_t>(b)], rows + outer[3 * b + j]);
      std::fill(values + outer[3 * b + j], values + outer[3 * b + j + 1], 0.0);
    }
  return a;
}

// Column 3b + j of K: rows 3b + j .. 3b + 2, then the three of each neighbour a > b.
void stiffness_rows(int b, int j, const std::vector<int>& neighbours, int* rows) {
  for (int i = j; i < 3; ++i) *rows++ = 3 * b + i;
  for (std::size_t k = 1; k < neighbours.size(); ++k)
    for (int i = 0; i < 3; ++i) *rows++ = 3 * neighbours[k] + i;
}

// Column 3b + j of M: row 3a + j of each node a ≥ b.
void mass_rows(int, int j, const std::vector<int>& neighbours, int* rows) {
  for (int a : neighbours) *rows++ = 3 * a + j;
}

}  // namespace

void check_element_orientation(const FemMesh& mesh) {
  for (int t = 0; t < mesh.elements.rows(); ++t) {
    TetCorners x;
    for (int c = 0; c < 4; ++c) x.row(c) = mesh.nodes.row(mesh.elements(t, c));
    Eigen::Matrix<double, 4, 3> g;
    if (!(barycentric_gradients(x, g) > 0))
      throw Error(fmt::format("tetrahedron {} is inverted or flat", t));
  }
}

FemMatrices assemble_fem_matrices(const FemMesh& mesh, const Material& material) {
  validate_material(material);
  const double lambda = lame_lambda(material), mu = lame_mu(material), rho = material.density_kg_m3;
  check_element_orientation(mesh);
  const std::vector<int> order = elements_in_space_order(mesh);
  const LowerPattern pattern = build_pattern(mesh, order);
  FemMatrices out{zeroed_matrix(pattern.outer, pattern.neighbours, stiffness_rows),
                  zeroed_matrix(pattern.mass_outer, pattern.neighbours, mass_rows)};
  double *k = out.stiffness.valuePtr(), *m = out.mass.valuePtr();
  if (mesh.order == 1)
    scatter_elements<4>(mesh, order, pattern,
                        [&](const TetCorners& x, auto& ke, auto& me) {
                          p1_element_matrices(x, lambda, mu, rho, ke, me);
                        },
                        k, m);
  else if (mesh.order == 2)
    scatter_elements<10>(mesh, order, pattern,
                         [&](const P2Nodes& x, auto& ke, auto& me) {
                           p2_element_matrices(x, lambda, mu, rho, ke, me);
                         },
                         k, m);
  else
    scatter_elements<20>(mesh, order, pattern,
                         [&](const P3Nodes& x, auto& ke, auto& me) {
                           p3_element_matrices(x, lambda, mu, rho, ke, me);
                         },
                         k, m);
  return out;
}

void subtract_scaled_in_place(SparseMatrix& a, double sigma, const SparseMatrix& b) {
  // Visits b's entries with the position of each in a (or −1 where a has none).
  auto each_entry = [&](auto&& visit) {
    for (int col = 0; col < b.outerSize(); ++col) {
      const int* rows = a.innerIndexPtr() + a.outerIndexPtr()[col];
      const int* rows_end = a.innerIndexPtr() + a.outerIndexPtr()[col + 1];
      for (SparseMatrix::InnerIterator it(b, col); it; ++it) {
        rows = std::lower_bound(rows, rows_end, it.row());
        const bool found = rows != rows_end && *rows == it.row();
        if (!visit(found ? rows - a.innerIndexPtr() : -1, it.value())) return;
      }
    }
  };
  bool within = a.rows() == b.rows() && a.cols() == b.cols();
  if (within) each_entry([&](std::ptrdiff_t at, double) { return within = at >= 0; });
  if (!within) {
    a = SparseMatrix(a - sigma * b);
    a.makeCompressed();
    return;
  }
  each_entry([&](std::ptrdiff_t at, double value) {
    a.valuePtr()[at] -= sigma * value;
    return true;
  });
}

SparseMatrix symmetric_from_lower(const SparseMatrix& lower) {
  return lower.selfadjointView<Eigen::Lower>();
}

RowMajorSparse node_mass_from_lower(const SparseMatrix& lower, const Eigen::VectorXi& node_order) {
  const Eigen::Index n = lower.rows();
  if (n % 3 != 0 || lower.cols() != n) return {};
  const int nodes = static_cast<int>(n / 3);
  if (node_order.size() != 0 && node_order.size() != nodes) return {};
  std::vector<int> position(nodes);  // node → its place in the order
  for (int k = 0; k < nodes; ++k) position[node_order.size() ? node_order[k] : k] = k;
  std::vector<Eigen::Triplet<double, int>> entries;
  entries.reserve(static_cast<std::size_t>(lower.nonZeros() / 3 * 2));
  std::vector<std::pair<int, double>> column_x;  // node column J's x entries: (row node, value)
  for (int j = 0; j < nodes; ++j) {
    column_x.clear();
    // Column 3J holds rows 3I (I ≥ J) for the x components; columns 3J+1 and 3J+2 must hold the
    // same values at rows 3I+1 and 3I+2, and nothing else but zeros (K's pattern).
    for (int d = 0; d < 3; ++d) {
      std::size_t next = 0;
      for (SparseMatrix::InnerIterator it(lower, 3 * j + d); it; ++it) {
        if (it.value() == 0) continue;
        if (it.row() % 3 != d) return {};
        const int row_node = static_cast<int>(it.row() / 3);
        if (d == 0) {
          column_x.emplace_back(row_node, it.value());
          continue;
        }
        if (next >= column_x.size() || column_x[next].first != row_node) return {};
        const double x = column_x[next++].second;
        if (std::abs(it.value() - x) > 1e-12 * std::abs(x)) return {};
      }
      if (d > 0 && next != column_x.size()) return {};
    }
    for (const auto& [i, value] : column_x) {
      entries.emplace_back(position[i], position[j], value);
      if (i != j) entries.emplace_back(position[j], position[i], value);
    }
  }
  RowMajorSparse node(nodes, nodes);
  node.setFromTriplets(entries.begin(), entries.end());
  return node;
}

RowMajorSparse node_mass_matrix(const RowMajorSparse& mass) {
  return node_mass_from_lower(SparseMatrix(mass.triangularView<Eigen::Lower>()), {});
}

}  // namespace mesh2dsp
