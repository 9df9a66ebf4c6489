#pragma once
#include "fem/assembly.hpp"

namespace mesh2dsp {

// The lower triangle of P A Pᵀ from A's lower triangle (entries above the diagonal are ignored,
// as CHOLMOD ignores them), where `order` (A.rows() entries) names the row of A taken k-th.
// The rows within a column come unsorted: what CHOLMOD's analysis (its column counts and
// supernodal pattern) and its supernodal numeric factorization take. On every core, the arrays faulted in on every core first:
// CHOLMOD's own route to P A Pᵀ for a lower-stored matrix is two single-threaded transposes
// (cholmod_factorize_p), each a fresh copy of the matrix: a sword scan's 15.8 M entries took
// 1.4 s of one core that way, half of it first touches of their memory.
SparseMatrix permuted_lower(const SparseMatrix& lower, const int* order);

}  // namespace mesh2dsp
