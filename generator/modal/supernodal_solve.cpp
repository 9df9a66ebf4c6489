#include "modal/supernodal_solve.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>

#include "modal/row_block_product.hpp"
#include "util/error.hpp"
#include "util/run_parts.hpp"
#include "util/vector_clones.hpp"

namespace mesh2dsp {
namespace {

struct Supernode {
  int first, columns, rows;  // rows: all of them, the diagonal block's first
  const int* row_index;
  const double* values;      // column-major, leading dimension `rows`
};

Supernode supernode(const SupernodalFactorView& f, int s) {
  Supernode n;
  n.first = f.first_column[s];
  n.columns = f.first_column[s + 1] - n.first;
  n.rows = f.row_start[s + 1] - f.row_start[s];
  n.row_index = f.row_index + f.row_start[s];
  n.values = f.values + static_cast<std::ptrdiff_t>(f.value_start[s]);
  return n;
}

constexpr int kAhead = 64;  // factor entries prefetched ahead on each column stream
constexpr int kRowsAhead = 8;  // rows of x prefetched ahead of a gather or scatter


// L y = b on one supernode: its columns' rows of x are solved, and the updates of the rows below
// (accumulated in `below`, then added once per row) go to x, or to `update` for a separator's
// row when `separator_row` is given (another core may be adding to it at the same time). Columns
// are taken four at a time, so a row below is loaded and stored once per four factor columns.
template <int W>
MESH2DSP_INLINE void forward_supernode(const Supernode& n, double* x, double* below_rows, const int* separator_row,
                              double* update) {
  using Row = typename RowOf<W>::type;
  const int off = n.rows - n.columns;
  Row* below = reinterpret_cast<Row*>(below_rows);
  Row* own = reinterpret_cast<Row*>(x) + n.first;
  const Row zero = {};
  for (int i = 0; i < off; ++i) below[i] = zero;
  auto column = [&](int j) { return n.values + static_cast<std::ptrdiff_t>(j) * n.rows; };
  for (int j0 = 0; j0 < n.columns; j0 += 4) {
    const int group = std::min(4, n.columns - j0), end = j0 + group;
    // The group's own triangle, column by column.
    for (int j = j0; j < end; ++j) {
      const double* c = column(j);
      own[j] *= 1.0 / c[j];
      for (int i = j + 1; i < end; ++i) own[i] -= c[i] * own[j];
    }
    if (group == 4) {
      const double *c0 = column(j0), *c1 = column(j0 + 1), *c2 = column(j0 + 2), *c3 = column(j0 + 3);
      const Row x0 = own[j0], x1 = own[j0 + 1], x2 = own[j0 + 2], x3 = own[j0 + 3];
      for (int i = end; i < n.columns; ++i) own[i] -= c0[i] * x0 + c1[i] * x1 + c2[i] * x2 + c3[i] * x3;
      c0 += n.columns, c1 += n.columns, c2 += n.columns, c3 += n.columns;
      for (int i = 0; i < off; ++i) {
        __builtin_prefetch(c0 + i + kAhead), __builtin_prefetch(c1 + i + kAhead);
        __builtin_prefetch(c2 + i + kAhead), __builtin_prefetch(c3 + i + kAhead);
        below[i] -= c0[i] * x0 + c1[i] * x1 + c2[i] * x2 + c3[i] * x3;
      }
    } else {
      for (int j = j0; j < end; ++j) {
        const double* c = column(j);
        const Row xj = own[j];
        for (int i = end; i < n.columns; ++i) own[i] -= c[i] * xj;
        c += n.columns;
        for (int i = 0; i < off; ++i) below[i] -= c[i] * xj;
      }
    }
  }
  Row* rows = reinterpret_cast<Row*>(x);
  Row* separator_rows = reinterpret_cast<Row*>(update);
  const int* below_index = n.row_index + n.columns;
  for (int i = 0; i < off; ++i) {
    if (i + kRowsAhead < off) __builtin_prefetch(rows + below_index[i + kRowsAhead], 1);
    const int row = below_index[i];
    const int s = separator_row ? separator_row[row] : -1;
    if (s >= 0)
      separator_rows[s] += below[i];
    else
      rows[row] += below[i];
  }
}

// Lᵀ x = y on one supernode: the rows below are final (its ancestors come first), gathered into
// `below`; its own rows are solved last column first, four columns sharing each pass over the
// rows beyond them.
template <int W>
MESH2DSP_INLINE void backward_supernode(const Supernode& n, double* x, double* below_rows) {
  using Row = typename RowOf<W>::type;
  const int off = n.rows - n.columns;
  Row* below = reinterpret_cast<Row*>(below_rows);
  const Row* rows = reinterpret_cast<const Row*>(x);
  const int* below_index = n.row_index + n.columns;
  for (int i = 0; i < off; ++i) {
    if (i + kRowsAhead < off) __builtin_prefetch(rows + below_index[i + kRowsAhead]);
    below[i] = rows[below_index[i]];
  }
  Row* own = reinterpret_cast<Row*>(x) + n.first;
  auto column = [&](int j) { return n.values + static_cast<std::ptrdiff_t>(j) * n.rows; };
  for (int end = n.columns; end > 0;) {
    const int group = std::min(4, end), j0 = end - group;
    Row sum[4] = {};
    if (group == 4) {
      const double *c0 = column(j0), *c1 = column(j0 + 1), *c2 = column(j0 + 2), *c3 = column(j0 + 3);
      for (int i = end; i < n.columns; ++i) {
        const Row xi = own[i];
        sum[0] += c0[i] * xi, sum[1] += c1[i] * xi, sum[2] += c2[i] * xi, sum[3] += c3[i] * xi;
      }
      c0 += n.columns, c1 += n.columns, c2 += n.columns, c3 += n.columns;
      for (int i = 0; i < off; ++i) {
        __builtin_prefetch(c0 + i + kAhead), __builtin_prefetch(c1 + i + kAhead);
        __builtin_prefetch(c2 + i + kAhead), __builtin_prefetch(c3 + i + kAhead);
        const Row xi = below[i];
        sum[0] += c0[i] * xi, sum[1] += c1[i] * xi, sum[2] += c2[i] * xi, sum[3] += c3[i] * xi;
      }
    } else {
      for (int k = 0; k < group; ++k) {
        const double* c = column(j0 + k);
        for (int i = end; i < n.columns; ++i) sum[k] += c[i] * own[i];
        c += n.columns;
        for (int i = 0; i < off; ++i) sum[k] += c[i] * below[i];
      }
    }
    // The group's own triangle, last column first.
    for (int j = end - 1; j >= j0; --j) {
      const double* c = column(j);
      Row value = own[j] - sum[j - j0];
      for (int i = j + 1; i < end; ++i) value -= c[i] * own[i];
      own[j] = value * (1.0 / c[j]);
    }
    end = j0;
  }
}

template <int W>
MESH2DSP_VECTOR_CLONES void forward_supernodes(const SupernodalFactorView& f, const std::vector<int>& list, double* x,
                                               double* below, const int* separator_row, double* update) {
  for (int s : list) forward_supernode<W>(supernode(f, s), x, below, separator_row, update);
}

template <int W>
MESH2DSP_VECTOR_CLONES void backward_supernodes(const SupernodalFactorView& f, const std::vector<int>& list,
                                                double* x, double* below) {
  for (auto s = list.rbegin(); s != list.rend(); ++s) backward_supernode<W>(supernode(f, *s), x, below);
}

}  // namespace

SupernodalSolve::SupernodalSolve(const SupernodalFactorView& factor, int parts) : f_(factor) {
  const int ns = f_.supernodes;
  parts = std::max(1, parts);
  // The supernodal elimination tree: a supernode's parent holds the first row below its
  // diagonal block. CHOLMOD numbers supernodes children first.
  std::vector<int> supernode_of(f_.rows), parent(ns, -1);
  std::vector<double> size(ns), subtree(ns, 0.0);
  std::vector<std::vector<int>> children(ns);
  std::vector<int> roots;
  int widest = 0;
  for (int s = 0; s < ns; ++s) {
    const Supernode n = supernode(f_, s);
    for (int c = 0; c < n.columns; ++c) supernode_of[n.first + c] = s;
    widest = std::max(widest, n.rows - n.columns);
    size[s] = static_cast<double>(n.rows) * n.columns;
  }
  for (int s = 0; s < ns; ++s) {
    const Supernode n = supernode(f_, s);
    if (n.rows > n.columns) {
      parent[s] = supernode_of[n.row_index[n.columns]];
      if (parent[s] <= s) throw Error("internal: the factor's supernodes are not in elimination order");
      children[parent[s]].push_back(s);
    } else {
      roots.push_back(s);
    }
    subtree[s] += size[s];
    if (parent[s] >= 0) subtree[parent[s]] += subtree[s];
  }
  const double total = std::accumulate(size.begin(), size.end(), 0.0);

  // Cut the tree: take the heaviest subtree's root into the separators (its children become
  // subtrees) until the subtrees share out evenly among the cores. The cost of a cut is its
  // largest share plus the separators (substituted by one core), and the cheapest cut is kept.
  // The cost falls, then rises with the separators: the search ends once it cannot fall again
  // (the separators alone cost more) or has not fallen for a while.
  std::vector<int> candidates = roots, separators;
  std::vector<int> best_candidates = candidates, best_separators;
  double best_cost = total, separator_size = 0;
  auto share_out = [&](const std::vector<int>& trees, std::vector<std::vector<int>>* bins) {
    std::vector<int> sorted = trees;
    std::sort(sorted.begin(), sorted.end(),
              [&](int a, int b) { return subtree[a] > subtree[b] || (subtree[a] == subtree[b] && a < b); });
    std::vector<double> load(parts, 0.0);
    if (bins) bins->assign(parts, {});
    for (int t : sorted) {
      const int lightest = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
      load[lightest] += subtree[t];
      if (bins) (*bins)[lightest].push_back(t);
    }
    return *std::max_element(load.begin(), load.end());
  };
  if (parts > 1) {
    constexpr int kStepsWithoutGain = 64;
    for (int step = 0, last_gain = 0; step < ns && !candidates.empty(); ++step) {
      const double cost = share_out(candidates, nullptr) + separator_size;
      if (cost < best_cost) {
        best_cost = cost;
        best_candidates = candidates;
        best_separators = separators;
        last_gain = step;
      }
      if (separator_size >= best_cost || step - last_gain > kStepsWithoutGain) break;
      const auto heaviest = std::max_element(candidates.begin(), candidates.end(),
                                             [&](int a, int b) { return subtree[a] < subtree[b]; });
      const int cut = *heaviest;
      candidates.erase(heaviest);
      separators.push_back(cut);
      separator_size += size[cut];
      candidates.insert(candidates.end(), children[cut].begin(), children[cut].end());
    }
  }
  std::vector<std::vector<int>> trees;
  share_out(best_candidates, &trees);
  subtrees_.assign(parts, {});
  for (int p = 0; p < parts; ++p) {
    std::vector<int> stack = trees[p];
    while (!stack.empty()) {
      const int s = stack.back();
      stack.pop_back();
      subtrees_[p].push_back(s);
      stack.insert(stack.end(), children[s].begin(), children[s].end());
    }
    std::sort(subtrees_[p].begin(), subtrees_[p].end());
  }
  separators_ = best_separators;
  std::sort(separators_.begin(), separators_.end());
  separator_row_.assign(parts > 1 ? f_.rows : 0, -1);
  for (int s : separators_) {
    const Supernode n = supernode(f_, s);
    for (int c = 0; c < n.columns; ++c) separator_row_[n.first + c] = separator_rows_++;
  }
  update_.assign(parts, {});
  scratch_.assign(parts, std::vector<double>(static_cast<std::size_t>(widest) * 8));
}

template <int W>
void SupernodalSolve::solve_block(double* x) {
  const int parts = this->parts();
  if (parts == 1) {
    forward_supernodes<W>(f_, subtrees_[0], x, scratch_[0].data(), nullptr, nullptr);
    backward_supernodes<W>(f_, subtrees_[0], x, scratch_[0].data());
    return;
  }
  run_parts(parts, [&](int p) {
    std::vector<double>& update = update_[p];
    update.assign(static_cast<std::size_t>(separator_rows_) * W, 0.0);
    forward_supernodes<W>(f_, subtrees_[p], x, scratch_[p].data(), separator_row_.data(), update.data());
  });
  // The separators' rows gather every core's updates (in core order: the same sums each run).
  for (int p = 0; p < parts; ++p)
    for (int s : separators_) {
      const Supernode n = supernode(f_, s);
      const double* u = update_[p].data() + static_cast<std::ptrdiff_t>(separator_row_[n.first]) * W;
      double* target = x + static_cast<std::ptrdiff_t>(n.first) * W;
      for (int k = 0; k < n.columns * W; ++k) target[k] += u[k];
    }
  forward_supernodes<W>(f_, separators_, x, scratch_[0].data(), nullptr, nullptr);
  backward_supernodes<W>(f_, separators_, x, scratch_[0].data());
  run_parts(parts, [&](int p) { backward_supernodes<W>(f_, subtrees_[p], x, scratch_[p].data()); });
}

void SupernodalSolve::solve(const Eigen::MatrixXd& b, Eigen::MatrixXd& x) {
  if (b.rows() != f_.rows) throw Error("internal: a right-hand side of the wrong size for the factor");
  const int n = f_.rows, columns = static_cast<int>(b.cols());
  x.resize(n, columns);
  // Blocks of 8, 4, 2 and 1 columns: the kernels' row width is fixed at compile time.
  for (int first = 0; first < columns;) {
    const int left = columns - first;
    const int w = left >= 8 ? 8 : left >= 4 ? 4 : left >= 2 ? 2 : 1;
    work_.resize(static_cast<std::size_t>(n) * w);
    copy_to_rows(b, first, w, work_.data());
    switch (w) {
      case 8: solve_block<8>(work_.data()); break;
      case 4: solve_block<4>(work_.data()); break;
      case 2: solve_block<2>(work_.data()); break;
      default: solve_block<1>(work_.data()); break;
    }
    copy_from_rows(work_.data(), first, w, x);
    first += w;
  }
}

}  // namespace mesh2dsp
