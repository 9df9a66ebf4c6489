#include "step_products.hpp"

#include "cpu_clones.hpp"
#include "fem/assembly.hpp"

// Double4 values cross only always-inlined helpers: the ABI note GCC gives for them does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

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
        blocks_.insert(blocks_.end(), kBlockValues, 0.0);
      }
      return slot[column_node];
    };
    // The node-lower half only: the product applies each block below the diagonal twice.
    for (int component = 0; component < 3; ++component)
      for (RowMajor::InnerIterator it(stiffness, 3 * row_node + component); it; ++it)
        if (it.col() / 3 <= row_node)
          blocks_[kBlockValues * block_of(static_cast<int>(it.col() / 3)) + 3 * component + it.col() % 3] = it.value();
    for (RowMajor::InnerIterator it(node_mass, row_node); it; ++it)
      if (it.col() <= row_node) blocks_[kBlockValues * block_of(static_cast<int>(it.col())) + 9] = it.value();
    for (size_t b = first; b < block_column_.size(); ++b) slot[block_column_[b]] = -1;
    block_start_.push_back(static_cast<int>(block_column_.size()));
  }
}

namespace {

// The node-block loop of MassStiffnessProduct::apply; `out` zeroed. A block's three rows are
// loaded as three four-value vectors, each with the next row's first value (or the mass) in
// its fourth lane: K·a accumulates as three vector products whose fourth lanes are left out of
// the sums across, and the mirrored Kᵀ·b as three broadcasts whose fourth lanes are zero.
MESH2DSP_CPU_CLONES void apply_node_blocks(int nodes, const int* block_start, const int* block_column,
                                           const double* blocks, const double* p1, const double* p2, double* out) {
  const int last = 3 * (nodes - 1);  // its x₁, x₂ have no fourth value to load
  const auto three = [](const double* p) { return Double4{p[0], p[1], p[2], 0}; };
  for (int row = 0; row < nodes; ++row) {
    const int r = 3 * row;
    const Double4 b0{p2[r], p2[r], p2[r], 0}, b1{p2[r + 1], p2[r + 1], p2[r + 1], 0},
        b2{p2[r + 2], p2[r + 2], p2[r + 2], 0};
    const Double4 mass_row = three(p1 + r);
    Double4 k0{}, k1{}, k2{}, m{};
    for (int b = block_start[row]; b < block_start[row + 1]; ++b) {
      const int c = 3 * block_column[b];
      const double* k = blocks + MassStiffnessProduct::kBlockValues * static_cast<long>(b);
      const Double4 r0 = load4(k), r1 = load4(k + 3), r2 = load4(k + 6);
      const double mass = k[9];
      // The fourth lanes of a and x₁ are the next node's (or zero for the last node).
      const Double4 a = c < last ? load4(p2 + c) : three(p2 + c);
      const Double4 x1 = c < last ? load4(p1 + c) : three(p1 + c);
      k0 += r0 * a;
      k1 += r1 * a;
      k2 += r2 * a;
      m += mass * x1;
      if (c == r) continue;
      // The mirrored block above the diagonal, Kᵀ and the same mass; its fourth lane adds 0.
      store4(out + c, load4(out + c) + r0 * b0 + r1 * b1 + r2 * b2 + mass * mass_row);
    }
    out[r] += (k0[0] + k0[1]) + k0[2] + m[0];
    out[r + 1] += (k1[0] + k1[1]) + k1[2] + m[1];
    out[r + 2] += (k2[0] + k2[1]) + k2[2] + m[2];
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
                    blocks_.data(), x1.data(), x2.data(), y.data());
}

}  // namespace mesh2dsp
