#include "supernodal_solve.hpp"

#include <cholmod.h>

#include <Eigen/CholmodSupport>

#include "util/error.hpp"

namespace mesh2dsp {

SupernodalCholesky::SupernodalCholesky(const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& lower,
                                       bool single_precision,
                                       const std::function<void(double)>& before_factorizing)
    : n_(static_cast<int>(lower.rows())), single_(single_precision) {
  cholmod_common common;
  cholmod_start(&common);
  common.supernodal = CHOLMOD_SUPERNODAL;
  // Every step pays for the fill: try the three orderings and keep the sparsest factor.
  common.nmethods = 3;
  common.method[0].ordering = CHOLMOD_AMD;
  common.method[1].ordering = CHOLMOD_METIS;
  common.method[2].ordering = CHOLMOD_NESDIS;
  common.postorder = 1;
  Eigen::SparseMatrix<double, Eigen::ColMajor, int> matrix = lower;  // CHOLMOD's view wants it mutable
  matrix.makeCompressed();
  cholmod_sparse a = Eigen::viewAsCholmod(matrix);
  a.stype = -1;  // symmetric, lower triangle stored
  cholmod_factor* factor = cholmod_analyze(&a, &common);
  if (factor && before_factorizing) {
    try {  // CHOLMOD's supernodal factor (xsize doubles) and our copy of it, double or float
      before_factorizing(static_cast<double>(factor->xsize) * (single_precision ? 12.0 : 16.0));
    } catch (...) {
      cholmod_free_factor(&factor, &common);
      cholmod_finish(&common);
      throw;
    }
  }
  const bool ok = factor && cholmod_factorize(&a, factor, &common) && common.status == CHOLMOD_OK &&
                  factor->minor == factor->n && factor->is_super;
  if (!ok) {
    if (factor) cholmod_free_factor(&factor, &common);
    cholmod_finish(&common);
    throw Error("the effective matrix K + (2/dt)C + (4/dt²)M is not positive definite "
                "(check the material and the mesh)");
  }
  switch (common.method[common.selected].ordering) {
    case CHOLMOD_AMD: ordering_ = "AMD"; break;
    case CHOLMOD_METIS: ordering_ = "METIS"; break;
    case CHOLMOD_NESDIS: ordering_ = "NESDIS"; break;
    default: ordering_ = "other";
  }
  const int nsuper = static_cast<int>(factor->nsuper);
  const int* perm = static_cast<const int*>(factor->Perm);
  const int* super = static_cast<const int*>(factor->super);
  const int* pi = static_cast<const int*>(factor->pi);
  const int* px = static_cast<const int*>(factor->px);
  const int* s = static_cast<const int*>(factor->s);
  const double* x = static_cast<const double*>(factor->x);
  perm_.assign(perm, perm + n_);
  super_.assign(super, super + nsuper + 1);
  row_start_.assign(pi, pi + nsuper + 1);
  value_start_.assign(px, px + nsuper + 1);
  rows_.assign(s, s + pi[nsuper]);
  const long values = px[nsuper];
  if (single_) values_f_.assign(x, x + values);
  else values_d_.assign(x, x + values);
  nonzeros_ = static_cast<long long>(common.method[common.selected].lnz);
  cholmod_free_factor(&factor, &common);
  cholmod_finish(&common);
  int widest = 0;
  for (int k = 0; k < nsuper; ++k) widest = std::max(widest, row_start_[k + 1] - row_start_[k]);
  y_d_.setZero(n_);
  gathered_d_.setZero(widest);
  y_f_.setZero(n_);
  gathered_f_.setZero(widest);
}

// L Lᵀ y = y in place (permuted order): a forward sweep over the supernodes (dense triangle,
// then the rectangle below it as one matrix-vector product), then the backward sweep.
template <typename Scalar>
void SupernodalCholesky::sweep(const std::vector<Scalar>& values, Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& y,
                               Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& gathered) const {
  using Block = Eigen::Map<const Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>, 0, Eigen::OuterStride<>>;
  const int nsuper = static_cast<int>(super_.size()) - 1;
  for (int k = 0; k < nsuper; ++k) {
    const int first = super_[k], columns = super_[k + 1] - first;
    const int rows = row_start_[k + 1] - row_start_[k], below = rows - columns;
    const Block block(values.data() + value_start_[k], rows, columns, Eigen::OuterStride<>(rows));
    auto own = y.segment(first, columns);
    block.topRows(columns).template triangularView<Eigen::Lower>().solveInPlace(own);
    if (below == 0) continue;
    auto g = gathered.head(below);
    g.noalias() = block.bottomRows(below) * own;
    const int* r = rows_.data() + row_start_[k] + columns;
    for (int i = 0; i < below; ++i) y[r[i]] -= g[i];
  }
  for (int k = nsuper - 1; k >= 0; --k) {
    const int first = super_[k], columns = super_[k + 1] - first;
    const int rows = row_start_[k + 1] - row_start_[k], below = rows - columns;
    const Block block(values.data() + value_start_[k], rows, columns, Eigen::OuterStride<>(rows));
    auto own = y.segment(first, columns);
    if (below > 0) {
      auto g = gathered.head(below);
      const int* r = rows_.data() + row_start_[k] + columns;
      for (int i = 0; i < below; ++i) g[i] = y[r[i]];
      own.noalias() -= block.bottomRows(below).transpose() * g;
    }
    block.topRows(columns).template triangularView<Eigen::Lower>().transpose().solveInPlace(own);
  }
}

void SupernodalCholesky::solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) {
  x.resize(n_);
  if (single_) {
    for (int k = 0; k < n_; ++k) y_f_[k] = static_cast<float>(b[perm_[k]]);
    sweep(values_f_, y_f_, gathered_f_);
    for (int k = 0; k < n_; ++k) x[perm_[k]] = y_f_[k];
  } else {
    for (int k = 0; k < n_; ++k) y_d_[k] = b[perm_[k]];
    sweep(values_d_, y_d_, gathered_d_);
    for (int k = 0; k < n_; ++k) x[perm_[k]] = y_d_[k];
  }
}

}  // namespace mesh2dsp
