#include "modal/permuted_lower.hpp"

#include <algorithm>
#include <thread>
#include <utility>
#include <vector>

#include "util/error.hpp"
#include "util/free_memory.hpp"
#include "util/run_parts.hpp"

namespace mesh2dsp {

SparseMatrix permuted_lower(const SparseMatrix& lower, const int* order) {
  const int n = static_cast<int>(lower.rows());
  if (lower.cols() != n) throw Error("internal: a symmetric permutation of a matrix that is not square");
  std::vector<int> position(static_cast<std::size_t>(n), -1);
  for (int k = 0; k < n; ++k) {
    if (order[k] < 0 || order[k] >= n || position[order[k]] >= 0) throw Error("internal: the order is not a permutation");
    position[order[k]] = k;
  }
  // Columns split among the cores by their entries; below a million entries one core does it
  // faster than handing it over.
  const long entries = lower.nonZeros();
  constexpr long kEntriesPerPart = 1 << 20;
  const int parts = static_cast<int>(
      std::max<long>(1, std::min<long>(std::thread::hardware_concurrency(), entries / kEntriesPerPart)));
  std::vector<int> first_column(static_cast<std::size_t>(parts) + 1, n);
  first_column[0] = 0;
  for (int part = 1, column = 0; part < parts; ++part) {
    const long from = entries * part / parts;
    while (column < n && lower.outerIndexPtr()[column] < from) ++column;
    first_column[part] = column;
  }
  // Entry (r, c), r ≥ c, goes to column min(position) and row max(position).
  auto for_each_entry = [&](int part, auto&& to) {
    for (int c = first_column[part]; c < first_column[part + 1]; ++c)
      for (SparseMatrix::InnerIterator it(lower, c); it; ++it) {
        const int r = static_cast<int>(it.row());
        if (r < c) continue;
        const int pr = position[r], pc = position[c];
        to(std::min(pr, pc), std::max(pr, pc), it.value());
      }
  };
  // Each part's entries per output column, then where each part's first one in that column goes.
  std::vector<std::vector<int>> next(static_cast<std::size_t>(parts), std::vector<int>(static_cast<std::size_t>(n), 0));
  run_parts(parts, [&](int part) {
    std::vector<int>& count = next[part];
    for_each_entry(part, [&](int column, int, double) { ++count[column]; });
  });
  SparseMatrix out(n, n);
  int at = 0;
  for (int column = 0; column < n; ++column) {
    out.outerIndexPtr()[column] = at;
    for (int part = 0; part < parts; ++part) at += std::exchange(next[part][column], at);
  }
  out.outerIndexPtr()[n] = at;
  out.resizeNonZeros(at);
  constexpr std::size_t kFaultInFrom = std::size_t{1} << 20;
  fault_in_on_every_core(out.valuePtr(), sizeof(double) * static_cast<std::size_t>(at), kFaultInFrom);
  fault_in_on_every_core(out.innerIndexPtr(), sizeof(int) * static_cast<std::size_t>(at), kFaultInFrom);
  run_parts(parts, [&](int part) {
    std::vector<int>& slot = next[part];
    int* rows = out.innerIndexPtr();
    double* values = out.valuePtr();
    for_each_entry(part, [&](int column, int row, double value) {
      const int s = slot[column]++;
      rows[s] = row;
      values[s] = value;
    });
  });
  return out;
}

}  // namespace mesh2dsp
