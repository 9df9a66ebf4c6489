#pragma once
// The generalized symmetric eigenproblem K φ = λ M φ for the lowest eigenpairs, by Spectra's
// shift-invert Lanczos on a CHOLMOD Cholesky factorization of K − σM with σ < 0 (so the
// matrix is positive definite even when rigid-body modes make K singular).
#include <Eigen/Core>
#include <functional>

#include "fem/assembly.hpp"

namespace mesh2dsp {

struct EigenSolution {
  Eigen::VectorXd eigenvalues;  // ascending, λ = ω²
  Eigen::MatrixXd vectors;      // columns M-orthonormal: φᵀMφ = I
  int factorizations = 0;
  double factorization_s = 0;
  int operations = 0;  // solves with the factor (Lanczos steps)
  double triangular_solve_s = 0;  // time spent in those solves
};

struct EigenSolveOptions {
  int count = 10;
  double shift = -1.0;  // σ < 0, rad²/s²
  double tolerance = 1e-10;
  int max_restarts = 1000;
};

// K and M given as their lower triangles. Throws mesh2dsp::Error when the factorization or the
// iteration fails (never returns an empty or partial solution). After each round `more` (when
// given) may ask for a larger count — the factorization is reused, only the Lanczos iteration
// runs again; returning 0 (or no more than the current count) ends it.
EigenSolution solve_lowest_modes(const SparseMatrix& stiffness_lower,
                                 const SparseMatrix& mass_lower, const EigenSolveOptions& options,
                                 const std::function<int(const EigenSolution&)>& more = {});

}  // namespace mesh2dsp
