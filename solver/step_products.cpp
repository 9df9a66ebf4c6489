#include "step_products.hpp"

#include "cpu_clones.hpp"
#include "fem/assembly.hpp"

namespace mesh2dsp {

MassStiffnessProduct::MassStiffnessProduct(const Eigen::SparseMatrix<double, Eigen::RowMajor, int>& mass,
                                           const Eigen::SparseMatrix<double, Eigen::RowMajor, int>& stiffness) {
  using RowMajor = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;
  const RowMajor node_mass = stiffness.rows() % 3 == 0 ? node_mass_matrix(mass) : RowMajor();
  if (node_mass.size() == 0) {
    mass_ = mass;
    stiffness_rows_ = stiffness;
    return;
  }
  const int nodes = static_cast<int>(stiffness.rows() / 3);
  std::vector<int> slot(nodes, -1);  // column node → its block in the current row
  block_start_.assign(1, 0);
  for (int row_node = 0; row_node < nodes; ++row_node) {
    const int first = static_cast<int>(block_column_.size());
    const auto block_of = [&](int column_node) {
      if (slot[column_node] < 0) {
        slot[column_node] = static_cast<int>(block_column_.size());
        block_column_.push_back(column_node);
        stiffness_.insert(stiffness_.end(), 9, 0.0);
        node_mass_.push_back(0.0);
      }
      return slot[column_node];
    };
    // The node-lower half only: the product applies each block below the diagonal twice.
    for (int component = 0; component < 3; ++component)
      for (RowMajor::InnerIterator it(stiffness, 3 * row_node + component); it; ++it)
        if (it.col() / 3 <= row_node)
          stiffness_[9 * block_of(static_cast<int>(it.col() / 3)) + 3 * component + it.col() % 3] = it.value();
    for (RowMajor::InnerIterator it(node_mass, row_node); it; ++it)
      if (it.col() <= row_node) node_mass_[block_of(static_cast<int>(it.col()))] = it.value();
    for (size_t b = first; b < block_column_.size(); ++b) slot[block_column_[b]] = -1;
    block_start_.push_back(static_cast<int>(block_column_.size()));
  }
}

namespace {

// The node-block loop of MassStiffnessProduct::apply; `out` zeroed.
MESH2DSP_CPU_CLONES void apply_node_blocks(int nodes, const int* block_start, const int* block_column,
                                           const double* stiffness, const double* node_mass, const double* p1,
                                           const double* p2, double* out) {
  for (int row = 0; row < nodes; ++row) {
    const int r = 3 * row;
    const double b0 = p2[r], b1 = p2[r + 1], b2 = p2[r + 2];
    double y0 = 0, y1 = 0, y2 = 0;
    for (int b = block_start[row]; b < block_start[row + 1]; ++b) {
      const int c = 3 * block_column[b];
      const double* k = stiffness + 9L * b;
      const double m = node_mass[b];
      const double a0 = p2[c], a1 = p2[c + 1], a2 = p2[c + 2];
      y0 += k[0] * a0 + k[1] * a1 + k[2] * a2 + m * p1[c];
      y1 += k[3] * a0 + k[4] * a1 + k[5] * a2 + m * p1[c + 1];
      y2 += k[6] * a0 + k[7] * a1 + k[8] * a2 + m * p1[c + 2];
      if (c == r) continue;
      // The mirrored block above the diagonal: Kᵀ and the same mass.
      out[c] += k[0] * b0 + k[3] * b1 + k[6] * b2 + m * p1[r];
      out[c + 1] += k[1] * b0 + k[4] * b1 + k[7] * b2 + m * p1[r + 1];
      out[c + 2] += k[2] * b0 + k[5] * b1 + k[8] * b2 + m * p1[r + 2];
    }
    out[r] += y0;
    out[r + 1] += y1;
    out[r + 2] += y2;
  }
}

}  // namespace

void MassStiffnessProduct::apply(const Eigen::VectorXd& x1, const Eigen::VectorXd& x2, Eigen::VectorXd& y) const {
  if (block_start_.empty()) {
    y.noalias() = mass_ * x1;
    y.noalias() += stiffness_rows_ * x2;
    return;
  }
  y.setZero();
  apply_node_blocks(static_cast<int>(block_start_.size()) - 1, block_start_.data(), block_column_.data(),
                    stiffness_.data(), node_mass_.data(), x1.data(), x2.data(), y.data());
}

}  // namespace mesh2dsp
