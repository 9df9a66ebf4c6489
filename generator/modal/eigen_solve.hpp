#pragma once
// The generalized symmetric eigenproblem K φ = λ M φ for the lowest eigenpairs, by a block
// shift-invert Lanczos on a CHOLMOD Cholesky factorization of K − σM with σ < 0 (so the
// matrix is positive definite even when rigid-body modes make K singular).
#include <Eigen/Core>
#include <functional>
#include <string>

#include "fem/assembly.hpp"
#include "fem/fem_mesh.hpp"
#include "modal/memory_estimate.hpp"

namespace mesh2dsp {

struct EigenSolution {
  Eigen::VectorXd eigenvalues;  // ascending, λ = ω²
  Eigen::MatrixXd vectors;      // columns M-orthonormal: φᵀMφ = I
  int factorizations = 0;
  double ordering_s = 0;  // the factor's fill-reducing ordering and symbolic analysis
  double factorization_s = 0;
  int operations = 0;  // right-hand sides solved with the factor (Lanczos vectors)
  double triangular_solve_s = 0;  // time spent in those solves
  int mass_products = 0;          // M times a block of the basis
  double mass_product_s = 0;      // time spent in those products
  SolveEstimate estimate;         // made before factorizing (zero for the dense solve)
  double assembly_s = 0;  // assembly done inside the solve (the SLEPc solver's, distributed)
};

// The block Lanczos's residual for an analysis's modes (EigenSolveOptions::tolerance). A
// residual ε moves a Ritz value by about ε² over its gap and a Ritz vector by about ε over it
// (Parlett, "The Symmetric Eigenvalue Problem", 1998, ch. 11, the Rayleigh-Ritz error bounds): at 1e-6 a sword scan's 50
// modes took 144 vectors instead of 160 at 1e-8 (its eigen iteration 3.6-3.8 -> 3.2 s), their
// frequencies the same to 6e-10 and their excitation gains to 8e-7 of the largest, far inside
// the mesh's own error. (The distributed solver keeps 1e-8: its Krylov-Schur missed a member of
// a cube's multiplet at 1e-6.)
constexpr double kModesResidual = 1e-6;

struct EigenSolveOptions {
  int count = 10;
  double shift = -1.0;  // σ < 0, rad²/s²
  double tolerance = 1e-8;  // residual ‖Sφ − θφ‖_M relative to |θ|, θ = 1/(λ − σ)
  int block_size = 8;
  int dense_below_dof = 1000;  // smaller problems: the dense solver (exact, all pairs at once)
  // For the memory and time estimate made before factorizing: the count the caller expects to
  // ask for in the end (0: `count`), the memory allowed (0: the machine's available memory) and
  // what is solved, for the estimate notice ("5 160 tetrahedra (P2)").
  int expected_count = 0;
  double memory_limit_bytes = 0;
  std::string problem;
  double notice_above_s = 2.0;  // print the estimate when the solve is expected to take longer
  // false: the eigenvalues only (EigenSolution::vectors left empty; the Ritz vectors are an
  // n × k × count product formed after the iteration).
  bool vectors = true;
  // For the matrix's node k (DOF 3k..3k+2), the corners of the mesh entity it lies on
  // (fem_mesh.hpp's node_corners): the fill-reducing ordering may then dissect the corners'
  // graph (CholmodFactor). Empty: the matrix's own graph only.
  NodeCorners node_corners;
};

// K and M given as their lower triangles. Throws mesh2dsp::Error when the problem will not fit
// in memory (before factorizing), when the factorization or the iteration fails (never returns
// an empty or partial solution). After each round `more` (when given) may ask for a larger
// count — the factorization and the Lanczos basis are reused, the basis only grows; returning 0
// (or no more than the current count) ends it. `more` sees the eigenvalues of the round; the
// eigenvectors are formed only for the last one.
EigenSolution solve_lowest_modes(const SparseMatrix& stiffness_lower,
                                 const SparseMatrix& mass_lower, const EigenSolveOptions& options,
                                 const std::function<int(const EigenSolution&)>& more = {});
// The same, forming K − σM in the stiffness's own storage (left empty): one matrix of the
// problem's size less at the factorization (the statue scan's K is 69 MB).
EigenSolution solve_lowest_modes(SparseMatrix&& stiffness_lower,
                                 const SparseMatrix& mass_lower, const EigenSolveOptions& options,
                                 const std::function<int(const EigenSolution&)>& more = {});

}  // namespace mesh2dsp
