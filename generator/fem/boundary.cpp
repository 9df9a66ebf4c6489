#include "fem/boundary.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>

#include "util/error.hpp"

namespace mesh2dsp {

HalfSpace parse_half_space(const std::string& text) {
  std::string s;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) s += static_cast<char>(std::tolower(c));
  auto bad = [&] {
    return Error(fmt::format(
        "cannot read --fix \"{}\": expected an axis, a comparison and a value, e.g. \"x<=0.0\"",
        text));
  };
  if (s.size() < 3 || (s[0] != 'x' && s[0] != 'y' && s[0] != 'z')) throw bad();
  HalfSpace h;
  h.text = text;
  h.axis = s[0] - 'x';
  size_t pos = 1;
  if (s[pos] == '<') h.less = true;
  else if (s[pos] == '>') h.less = false;
  else throw bad();
  ++pos;
  if (pos < s.size() && s[pos] == '=') ++pos;
  const char* first = s.data() + pos;
  const char* last = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(first, last, h.value_m);
  if (ec != std::errc() || ptr != last || !std::isfinite(h.value_m)) throw bad();
  return h;
}

std::vector<bool> clamped_nodes(const Eigen::MatrixXd& nodes, const std::vector<HalfSpace>& fix) {
  std::vector<bool> clamped(nodes.rows(), false);
  if (fix.empty()) return clamped;
  const double tol =
      1e-9 * (nodes.colwise().maxCoeff() - nodes.colwise().minCoeff()).norm();
  for (const auto& h : fix) {
    int selected = 0;
    for (int i = 0; i < nodes.rows(); ++i) {
      const double v = nodes(i, h.axis);
      const bool inside = h.less ? v <= h.value_m + tol : v >= h.value_m - tol;
      if (inside) {
        clamped[i] = true;
        ++selected;
      }
    }
    if (selected == 0) {
      const double lo = nodes.col(h.axis).minCoeff(), hi = nodes.col(h.axis).maxCoeff();
      throw Error(fmt::format("--fix \"{}\" selects no vertex (the mesh spans {} = {:.6g} .. {:.6g})",
                              h.text, "xyz"[h.axis], lo, hi));
    }
  }
  return clamped;
}

std::vector<int> free_dof_map(const std::vector<bool>& clamped, int& free_count) {
  std::vector<int> map(3 * clamped.size(), -1);
  free_count = 0;
  for (size_t n = 0; n < clamped.size(); ++n)
    if (!clamped[n])
      for (int c = 0; c < 3; ++c) map[3 * n + c] = free_count++;
  return map;
}

SparseMatrix restrict_to_free(const SparseMatrix& lower, const std::vector<int>& dof_map,
                              int free_count) {
  SparseMatrix out(free_count, free_count);
  std::vector<int> per_column(free_count, 0);
  for (int col = 0; col < lower.outerSize(); ++col) {
    if (dof_map[col] < 0) continue;
    for (SparseMatrix::InnerIterator it(lower, col); it; ++it)
      if (dof_map[it.row()] >= 0) ++per_column[dof_map[col]];
  }
  out.reserve(per_column);
  for (int col = 0; col < lower.outerSize(); ++col) {
    if (dof_map[col] < 0) continue;
    for (SparseMatrix::InnerIterator it(lower, col); it; ++it)
      if (dof_map[it.row()] >= 0) out.insert(dof_map[it.row()], dof_map[col]) = it.value();
  }
  out.makeCompressed();
  return out;
}

void restrict_to_free(FemMatrices& fem, const std::vector<int>& dof_map, int free_count) {
  // Swapped in, not assigned: Eigen 3.4's sparse matrices have no move assignment.
  SparseMatrix stiffness = restrict_to_free(fem.stiffness, dof_map, free_count);
  fem.stiffness.swap(stiffness);
  SparseMatrix mass = restrict_to_free(fem.mass, dof_map, free_count);
  fem.mass.swap(mass);
}

}  // namespace mesh2dsp
