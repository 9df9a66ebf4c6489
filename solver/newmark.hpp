#pragma once
// Time integration of M ü + C u̇ + K u = f (C = αM + βK, Rayleigh) on the FEM core's
// matrices, by Newmark's average-acceleration rule (γ = ½, β_N = ¼, the trapezoidal rule).
//
// Why this integrator (issue 5, measured — see the report and solver/bench):
//   - unconditionally stable, so the step is chosen for audio accuracy only (≤ 1e-5 s and at
//     least 8 steps per period of f_max), never by the CFL limit of the finest sliver element,
//     which on the bundled meshes is 10–100× smaller than that;
//   - no numerical damping: decay comes from the Rayleigh terms alone, so measured T60s are
//     the model's; its only error is period elongation, tan(ω̃Δt/2) = ωΔt/2, i.e. ≈ (ωΔt)²/12
//     relative (0.22 % at 5 kHz for Δt = 1/(4·48 kHz), 0.009 % at 1 kHz);
//   - it works with the consistent mass matrix of P1 and P2 elements (explicit central
//     differences need a lumped mass, which is ill-defined for P2 corners);
//   - the effective matrix K_eff = K + (2/Δt) C + (4/Δt²) M is constant, so it is factored
//     once (sparse Cholesky) and every step costs two triangular solves and two mat-vecs.
// Geometric non-linearity (St. Venant–Kirchhoff, §3.1) is solved per step by a modified
// Newton (fixed-point) iteration with the same constant K_eff: K_eff Δu = residual.
#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "fem/assembly.hpp"
#include "fem/fem_mesh.hpp"
#include "fem/material.hpp"

namespace mesh2dsp {

class MassStiffnessProduct;

// Direct factorizations cost O(N^{4/3}) per solve on 3-D meshes (fill-in); conjugate
// gradients on K_eff cost O(N) per iteration, warm-started from the Newmark predictor — but
// measured (solver/bench) they need 30–140 Jacobi-preconditioned iterations a step, because
// the stiffest elements make ω_max Δt ≫ 1, so CHOLMOD is the default.
enum class LinearSolverKind { simplicial, cholmod_supernodal, conjugate_gradient };

struct NewmarkOptions {
  double dt_s = 0;
  bool nonlinear = false;  // St. Venant–Kirchhoff (Green strain) instead of linear elasticity
  int max_iterations = 50;       // non-linear only
  double tolerance = 1e-9;       // relative step-update norm, non-linear only
  LinearSolverKind solver = LinearSolverKind::cholmod_supernodal;
  bool single_precision = false;  // the supernodal factor in float (see supernodal_solve.hpp)
  // --max-memory (0: the machine's available memory): the matrices and the factor, estimated
  // before they are allocated (the factor from its symbolic analysis), plus `other_bytes` the
  // caller will hold (audio buffers) must fit, or the integrator throws one Error saying what
  // it needs and what to change instead of being killed mid-factorization.
  double memory_limit_bytes = 0;
  double other_bytes = 0;
};

// Throws the reference render's out-of-memory Error when `needed_bytes` exceeds `limit_bytes`
// (0: the machine's available memory; unknown: no check). `what` lists the parts.
void check_reference_memory(double needed_bytes, double limit_bytes, int dof,
                            const std::string& what);

// The warp of the integrator, exact (issue 12, item 1). On a linear system with Rayleigh
// damping every mode is an independent oscillator, and Newmark's average acceleration is the
// trapezoidal rule, i.e. the bilinear transform s = (2/Δt)(z − 1)/(z + 1) of each mode
// (Hughes, "The Finite Element Method", 1987, §9.3; Oppenheim & Schafer, "Discrete-Time Signal
// Processing", eq. 7.20): a continuous pole s maps to z = (1 + sΔt/2)/(1 − sΔt/2), never
// aliased, never amplified; undamped, ω̃ = (2/Δt)·atan(ωΔt/2). A render at any Δt therefore
// holds every mode at a known frequency and decay, and a mode measured in it maps back exactly.
struct ModeFrequencyDecay {
  double frequency_hz = 0;
  double t60_s = INFINITY;  // 60 dB decay time; infinite: undamped
};
// The mode (continuous pole −σ ± iω, ω = 2π f, σ = ln 1000 / T60) as a render at Δt shows it.
ModeFrequencyDecay newmark_discrete_mode(const ModeFrequencyDecay& mode, double dt_s);
// The inverse: what a mode measured in a render at Δt is in continuous time.
ModeFrequencyDecay newmark_continuous_mode(const ModeFrequencyDecay& measured, double dt_s);
// The amplitude of the mode's impulse response in the render relative to the continuous one
// sampled: the residue ratio |z + 1|²/4 = cos²(ω̃Δt/2) undamped (= dω̃/dω).
double newmark_amplitude_ratio(const ModeFrequencyDecay& mode, double dt_s);

class NewmarkIntegrator {
 public:
  // `clamped`: per FEM node (empty: free body). Throws mesh2dsp::Error when nothing is free or
  // the factorization fails.
  NewmarkIntegrator(const FemMesh& mesh, const Material& material, const std::vector<bool>& clamped,
                    const NewmarkOptions& options);
  ~NewmarkIntegrator();
  NewmarkIntegrator(const NewmarkIntegrator&) = delete;
  NewmarkIntegrator& operator=(const NewmarkIntegrator&) = delete;

  // The spatial load pattern (3N, full DOFs); the force at a step is pattern × scale.
  void set_load(const Eigen::VectorXd& full_load);
  // Rest state plus an instantaneous impulse J (N·s, full DOFs; may be zero):
  // v₀ = M⁻¹J, a₀ = M⁻¹(f₀ − C v₀), f₀ = load × scale0.
  void start(double load_scale0, const Eigen::VectorXd& full_impulse);
  // Advance by Δt to t + Δt, where the force is load × scale_next.
  void step(double load_scale_next);

  // Full-DOF (3N) displacement and velocity; clamped DOFs are 0.
  void full_displacement(Eigen::VectorXd& out) const;
  void full_velocity(Eigen::VectorXd& out) const;
  // ½vᵀMv + ½uᵀKu (J): with no force and linear elasticity the average-acceleration rule keeps it
  // exactly (undamped) or lets it fall (Rayleigh damping), so a rise means the loop diverged.
  double energy_j() const;

  double time_s() const { return time_s_; }
  long long steps() const { return steps_; }
  int free_dofs() const { return free_count_; }
  int last_iterations() const { return last_iterations_; }
  double dt_s() const { return options_.dt_s; }
  double factorization_s() const { return factorization_s_; }
  long long factor_nonzeros() const;
  double mean_cg_iterations() const;

 private:
  struct Solver;
  void scatter(const Eigen::VectorXd& reduced, Eigen::VectorXd& full) const;
  void gather(const Eigen::VectorXd& full, Eigen::VectorXd& reduced) const;

  const FemMesh& mesh_;
  Material material_;
  NewmarkOptions options_;
  std::vector<int> dof_map_;  // full → reduced (−1 clamped)
  int free_count_ = 0;
  Eigen::SparseMatrix<double, Eigen::RowMajor, int> mass_;  // full symmetric
  std::unique_ptr<MassStiffnessProduct> product_;           // M x₁ + K x₂
  std::unique_ptr<Solver> effective_;  // K_eff
  Eigen::VectorXd load_, u_, v_, a_, a_next_, rhs_, x1_, x2_, u_next_, full_u_, g_, increment_;
  double time_s_ = 0;
  long long steps_ = 0;
  int last_iterations_ = 0;
  double factorization_s_ = 0;
};

}  // namespace mesh2dsp
