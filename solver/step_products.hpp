#pragma once
// The two mat-vecs of a Newmark step, y = M x₁ + K x₂, in one pass over 3×3 node blocks
// (issue 12, item 3). The mass and stiffness of a mesh couple nodes, not DOFs: each pair of
// coupled nodes holds a 3×3 block of K and, for an isotropic consistent mass (M = Mₙ ⊗ I₃),
// one scalar of Mₙ. Stored that way, and only the node-lower half (each block below the
// diagonal is applied as itself and as its transpose), a step reads 9 + 1 values and one index
// per pair of nodes instead of 2 × (9 + 9 values and 9 indices): under a quarter of the bytes
// of the fused CSR product, which on the P2 bundled bar was over a quarter of the step (0.87 of
// 3.08 ms).
#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <vector>

namespace mesh2dsp {

class MassStiffnessProduct {
 public:
  // `mass`, `stiffness`: whole symmetric matrices, row-major, DOF order 3·node + component.
  // Falls back to the two sparse products when the DOFs do not come in node triples or M is
  // not Mₙ ⊗ I₃.
  MassStiffnessProduct(const Eigen::SparseMatrix<double, Eigen::RowMajor, int>& mass,
                       const Eigen::SparseMatrix<double, Eigen::RowMajor, int>& stiffness);
  // y = M x₁ + K x₂; `y` is sized already; no allocation.
  void apply(const Eigen::VectorXd& x1, const Eigen::VectorXd& x2, Eigen::VectorXd& y) const;
  bool by_node_blocks() const { return !block_start_.empty(); }
  // Per block: K's three rows (row-major), then Mₙ's entry.
  static constexpr int kBlockValues = 10;

 private:
  std::vector<int> block_start_;    // per node row, into the blocks (nodes + 1)
  std::vector<int> block_column_;   // the column node of each block, at most the row's
  std::vector<double> blocks_;      // kBlockValues per block (Mₙ's entry 0 where only K couples)
  Eigen::SparseMatrix<double, Eigen::RowMajor, int> mass_, stiffness_rows_;  // the fallback
};

}  // namespace mesh2dsp
