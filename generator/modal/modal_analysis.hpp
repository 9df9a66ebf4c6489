#pragma once
// FEM mesh + material → the modes in a frequency band: assembly, clamping, eigen solve,
// rigid-body exclusion by frequency.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "fem/boundary.hpp"
#include "fem/fem_mesh.hpp"
#include "fem/material.hpp"
#include "modal/memory_estimate.hpp"
#include "util/stage_timer.hpp"

namespace mesh2dsp {

struct ModalAnalysisRequest {
  int modes = 50;
  double fmin_hz = 20, fmax_hz = 20000;
  std::vector<HalfSpace> fix;
  double max_memory_bytes = 0;  // 0: the machine's available memory
  // "default": CHOLMOD + block Lanczos on this process; "slepc": PETSc/SLEPc on the MPI ranks
  // (the same modes; see modal/slepc_solve.hpp).
  std::string solver = "default";
  // Only the frequencies are wanted (a sizing estimate): ModalAnalysisResult::shapes is left
  // empty, and the iteration stops at a looser residual (modal_analysis.cpp).
  bool frequencies_only = false;
};

struct ModalAnalysisResult {
  Eigen::VectorXd eigenvalues;  // ascending, in band, λ = ω² (rad²/s²)
  Eigen::MatrixXd shapes;       // 3N × modes over all nodes (clamped DOFs 0), φᵀMφ = 1
  int rigid_modes = 0;          // near-zero modes found (6 for a free body)
  int dof = 0;                  // free degrees of freedom solved for
  int clamped_nodes = 0;
  int below_band = 0, above_band = 0;  // elastic modes found outside [fmin, fmax]
  SolveEstimate estimate;          // made before factorizing (zero for the dense solve)
  int solved_vectors = 0;          // right-hand sides solved with the factor (Lanczos vectors)
  double triangular_solve_s = 0;   // the time those solves took
  int mass_products = 0;           // M times a block of the basis
  double mass_product_s = 0;       // the time those products took
};

// Throws mesh2dsp::Error on failure; warns (notice) when a free body does not show exactly six
// rigid-body modes, which signals a broken mesh (disconnected parts, flat elements).
ModalAnalysisResult analyze_modes(const FemMesh& mesh, const Material& material,
                                  const ModalAnalysisRequest& request, StageTimer* timer = nullptr);

// The frequency of an eigenvalue λ = ω² of K φ = λ M φ (rad²/s²), Hz; 0 for a round-off
// negative one.
inline double frequency_hz_of_eigenvalue(double eigenvalue) {
  return std::sqrt(std::max(0.0, eigenvalue)) / (2 * M_PI);
}

// Rigid-body modes are told from elastic ones by frequency: below this fraction of the highest
// frequency found they are numerically zero (an exact zero comes out at ~1e-5 relative).
inline constexpr double kRigidFrequencyFraction = 1e-3;
// Beyond the six of each free body, a mode is counted rigid (a broken mesh's stray zero) only
// below this fraction: a sword scan's 300 modes reach 21 kHz, and its 20.7 Hz fundamental, under
// a thousandth of that, was taken for a seventh rigid mode and left out of the model.
inline constexpr double kStrayRigidFrequencyFraction = 1e-4;

// Whether the `index`-th lowest eigenvalue (ascending, rad²/s²) is a rigid-body mode, of a model
// expected to have `rigid_expected` of them, the highest frequency found `highest_hz`.
bool is_rigid_mode(double eigenvalue, int index, int rigid_expected, double highest_hz);

}  // namespace mesh2dsp
