#include "newmark.hpp"

#include <fmt/format.h>

#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <complex>

#include "fem/boundary.hpp"
#include "modal/memory_estimate.hpp"
#include "stvk.hpp"
#include "step_products.hpp"
#include "supernodal_solve.hpp"
#include "util/error.hpp"

namespace mesh2dsp {

// Either factorization behind one interface: Eigen's simplicial LLᵀ (AMD ordering) has the
// cheapest solve for the small systems a reference render uses; CHOLMOD's supernodal LLᵀ
// factors large ones much faster.
struct NewmarkIntegrator::Solver {
  using RowMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;
  Eigen::SimplicialLLT<SparseMatrix, Eigen::Lower, Eigen::AMDOrdering<int>> simplicial;
  std::unique_ptr<SupernodalCholesky> supernodal;
  RowMatrix full;  // CG: the whole symmetric K_eff, row-major for a fast serial mat-vec
  Eigen::ConjugateGradient<RowMatrix, Eigen::Lower | Eigen::Upper, Eigen::DiagonalPreconditioner<double>> cg;
  LinearSolverKind kind;
  long long cg_iterations = 0, cg_solves = 0;

  Solver(const SparseMatrix& lower, LinearSolverKind k, bool single_precision,
         const std::function<void(double)>& before_factorizing)
      : kind(k) {
    Eigen::ComputationInfo info;
    if (kind != LinearSolverKind::cholmod_supernodal) before_factorizing(0);  // no estimate
    if (kind == LinearSolverKind::simplicial) {
      simplicial.compute(lower);
      info = simplicial.info();
    } else if (kind == LinearSolverKind::cholmod_supernodal) {
      supernodal = std::make_unique<SupernodalCholesky>(lower, single_precision,
                                                        before_factorizing);  // throws
      info = Eigen::Success;
    } else {
      full = symmetric_from_lower(lower);
      cg.setTolerance(1e-12);
      cg.setMaxIterations(2000);
      cg.compute(full);
      info = cg.info();
    }
    if (info != Eigen::Success)
      throw Error("the effective matrix K + (2/dt)C + (4/dt²)M is not positive definite "
                  "(check the material and the mesh)");
  }
  // `x` holds the initial guess on entry (used by CG only).
  void solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) {
    if (kind == LinearSolverKind::simplicial) {
      x = simplicial.solve(rhs);
    } else if (kind == LinearSolverKind::cholmod_supernodal) {
      supernodal->solve(rhs, x);
    } else {
      x = cg.solveWithGuess(rhs, x);
      cg_iterations += cg.iterations();
      ++cg_solves;
      if (cg.info() != Eigen::Success)
        throw Error("conjugate gradients did not converge on K_eff (try --solver cholmod)");
    }
  }
  long long nonzeros() const {
    if (kind == LinearSolverKind::simplicial) return simplicial.matrixL().nestedExpression().nonZeros();
    if (kind == LinearSolverKind::cholmod_supernodal) return supernodal->nonzeros();
    return -1;
  }
};

namespace {
std::complex<double> continuous_pole(const ModeFrequencyDecay& m) {
  const double sigma = std::isfinite(m.t60_s) && m.t60_s > 0 ? std::log(1000.0) / m.t60_s : 0.0;
  return {-sigma, 2 * M_PI * m.frequency_hz};
}
ModeFrequencyDecay from_pole(std::complex<double> s) {
  return {s.imag() / (2 * M_PI), s.real() < 0 ? std::log(1000.0) / -s.real() : INFINITY};
}
std::complex<double> discrete_pole(const ModeFrequencyDecay& m, double dt) {
  const std::complex<double> s = continuous_pole(m);
  return (1.0 + 0.5 * dt * s) / (1.0 - 0.5 * dt * s);
}
}  // namespace

ModeFrequencyDecay newmark_discrete_mode(const ModeFrequencyDecay& mode, double dt) {
  return from_pole(std::log(discrete_pole(mode, dt)) / dt);  // z = exp(s̃Δt)
}

ModeFrequencyDecay newmark_continuous_mode(const ModeFrequencyDecay& measured, double dt) {
  const std::complex<double> z = std::exp(continuous_pole(measured) * dt);
  return from_pole((2.0 / dt) * (z - 1.0) / (z + 1.0));
}

double newmark_amplitude_ratio(const ModeFrequencyDecay& mode, double dt) {
  return std::norm(discrete_pole(mode, dt) + 1.0) / 4;
}

NewmarkIntegrator::NewmarkIntegrator(const FemMesh& mesh, const Material& material,
                                     const std::vector<bool>& clamped, const NewmarkOptions& options)
    : mesh_(mesh), material_(material), options_(options) {
  const double dt = options.dt_s;
  if (!(dt > 0) || !std::isfinite(dt)) throw Error(fmt::format("--dt must be positive (got {})", dt));
  const int nodes = static_cast<int>(mesh.nodes.rows());
  std::vector<bool> fixed = clamped.empty() ? std::vector<bool>(nodes, false) : clamped;
  dof_map_ = free_dof_map(fixed, free_count_);
  if (free_count_ == 0) throw Error("--fix clamps every vertex: nothing is left to vibrate");

  FemMatrices fem = assemble_fem_matrices(mesh, material);
  if (free_count_ < 3 * nodes) restrict_to_free(fem, dof_map_, free_count_);
  const double alpha = material.rayleigh_mass_per_s, beta = material.rayleigh_stiffness_s;
  // K_eff = K + (2/Δt)(αM + βK) + (4/Δt²)M: the average-acceleration effective stiffness.
  const SparseMatrix effective =
      (1 + 2 * beta / dt) * fem.stiffness + (4 / (dt * dt) + 2 * alpha / dt) * fem.mass;
  // What the render holds at its peak besides the factor: K, M and K_eff (lower, 12 bytes an
  // entry), the full row-major copy of M, a transient one of K (twice the entries each), K and Mₙ
  // by node blocks made from it (about half as large, counted as large) and the caller's audio buffers.
  const double matrices_bytes =
      12.0 * static_cast<double>(fem.stiffness.nonZeros()) * (3 + 2 * 3);
  const auto check_memory = [&](double factor_bytes) {
    check_reference_memory(
        matrices_bytes + factor_bytes + options.other_bytes, options.memory_limit_bytes, free_count_,
        fmt::format("factor {}, matrices {}{}",
                    factor_bytes > 0 ? format_bytes(factor_bytes) : std::string("not estimated"),
                    format_bytes(matrices_bytes),
                    options.other_bytes > 0
                        ? ", audio and radiation " + format_bytes(options.other_bytes)
                        : std::string()));
  };
  const auto t0 = std::chrono::steady_clock::now();
  effective_ = std::make_unique<Solver>(effective, options.solver, options.single_precision,
                                        check_memory);
  factorization_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  mass_ = symmetric_from_lower(fem.mass);  // whole, row-major: the initial conditions' solve
  product_ = std::make_unique<MassStiffnessProduct>(mass_, symmetric_from_lower(fem.stiffness));
  const int n = free_count_;
  load_ = u_ = v_ = a_ = a_next_ = rhs_ = x1_ = x2_ = u_next_ = increment_ = Eigen::VectorXd::Zero(n);
  full_u_ = Eigen::VectorXd::Zero(3 * nodes);
}

NewmarkIntegrator::~NewmarkIntegrator() = default;

void check_reference_memory(double needed_bytes, double limit_bytes, int dof,
                            const std::string& what) {
  const bool given = limit_bytes > 0;
  const double limit = given ? limit_bytes : available_memory_bytes();
  if (limit <= 0 || needed_bytes <= limit) return;
  throw Error(fmt::format(
      "the reference render needs about {} ({}) but {}: use --element-order 1 or a "
      "larger --max-tet-volume, a shorter --duration or fewer listeners, --single-precision, or "
      "run on a machine with more memory",
      format_bytes(needed_bytes), dof > 0 ? fmt::format("{} DOF: {}", dof, what) : what,
      given ? "--max-memory allows " + format_bytes(limit)
            : "only " + format_bytes(limit) + " is available"));
}

long long NewmarkIntegrator::factor_nonzeros() const { return effective_->nonzeros(); }
double NewmarkIntegrator::mean_cg_iterations() const {
  return effective_->cg_solves ? static_cast<double>(effective_->cg_iterations) / effective_->cg_solves : 0;
}

void NewmarkIntegrator::scatter(const Eigen::VectorXd& reduced, Eigen::VectorXd& full) const {
  full.setZero(static_cast<Eigen::Index>(dof_map_.size()));
  for (size_t d = 0; d < dof_map_.size(); ++d)
    if (dof_map_[d] >= 0) full[d] = reduced[dof_map_[d]];
}

void NewmarkIntegrator::gather(const Eigen::VectorXd& full, Eigen::VectorXd& reduced) const {
  reduced.setZero(free_count_);
  for (size_t d = 0; d < dof_map_.size(); ++d)
    if (dof_map_[d] >= 0) reduced[dof_map_[d]] = full[d];
}

void NewmarkIntegrator::set_load(const Eigen::VectorXd& full_load) { gather(full_load, load_); }

void NewmarkIntegrator::start(double load_scale0, const Eigen::VectorXd& full_impulse) {
  u_.setZero();
  time_s_ = 0;
  steps_ = 0;
  Eigen::VectorXd impulse;
  gather(full_impulse, impulse);
  const bool moving = impulse.squaredNorm() > 0;
  const bool loaded = load_scale0 != 0 && load_.squaredNorm() > 0;
  v_.setZero();
  a_.setZero();
  if (!moving && !loaded) return;
  // One factorization of the consistent mass for the initial conditions.
  SparseMatrix mass_lower = mass_.triangularView<Eigen::Lower>();
  Eigen::SimplicialLLT<SparseMatrix, Eigen::Lower, Eigen::AMDOrdering<int>> m_inverse(mass_lower);
  if (m_inverse.info() != Eigen::Success) throw Error("the mass matrix is not positive definite");
  if (moving) v_ = m_inverse.solve(impulse);  // an impulse is an instant change of momentum
  const double alpha = material_.rayleigh_mass_per_s, beta = material_.rayleigh_stiffness_s;
  Eigen::VectorXd damping_force(free_count_);
  product_->apply(alpha * v_, beta * v_, damping_force);
  a_ = m_inverse.solve(load_scale0 * load_ - damping_force);
}

void NewmarkIntegrator::step(double load_scale_next) {
  const double dt = options_.dt_s;
  const double alpha = material_.rayleigh_mass_per_s, beta = material_.rayleigh_stiffness_s;
  // rhs = f + M[(4/Δt² + 2α/Δt)u + (4/Δt + α)v + a] + K[β(2/Δt·u + v)]
  //
  // Linear steps carry each solve's residual into the next right-hand side: with r = R − K_eff u⁺
  // left by the solve of R, the next one solves R' = rhs' + r. Expanded (K_eff = (1 + 2β/Δt)K +
  // (4/Δt² + 2α/Δt)M), that is R' = R + M[(4/Δt + α)v⁺ + a⁺] + K[βv⁺ − u⁺] + f': the same one
  // pass over M and K, with no product of K_eff. An exact solve leaves r = 0 and changes nothing;
  // an inexact one (a float factor, CG to a tolerance) no longer perturbs the stiffness. Solving
  // (K_eff + E)u⁺ = R with E a float factor's rounding acts like stiffness K + E: on a free body's
  // rigid-body modes (K = 0) an indefinite E grew them exponentially, ~4 000-fold in 0.3 s
  // (stop 24). Carried, the error is E(u⁺ − u): a force on the increment, which only the next
  // step sees, and the float render of a free P1 or P2 bar stays within -72 dB of the double one
  // over 1 s at the fine step and -89 / -105 dB at one step per sample (was: diverged in all four).
  // (The same correction as one step of iterative refinement per time step, with the refinement's
  // second solve deferred into the next step.)
  const bool carry = !options_.nonlinear && steps_ > 0;
  if (carry) {
    x1_ = (4 / dt + alpha) * v_ + a_;
    x2_ = beta * v_ - u_;
    product_->apply(x1_, x2_, increment_);
    rhs_ += increment_;
  } else {
    x1_ = (4 / (dt * dt) + 2 * alpha / dt) * u_ + (4 / dt + alpha) * v_ + a_;
    x2_ = beta * ((2 / dt) * u_ + v_);
    product_->apply(x1_, x2_, rhs_);
  }
  if (load_scale_next != 0) rhs_ += load_scale_next * load_;
  if (!options_.nonlinear) {
    u_next_ = u_ + dt * v_ + (0.5 * dt * dt) * a_;  // predictor: CG's starting guess
    effective_->solve(rhs_, u_next_);
    last_iterations_ = 1;
  } else {
    // f_int(u) = K u + g(u): iterate K_eff u = rhs − g(u) to a fixed point (modified Newton
    // with the constant linear tangent, which the (4/Δt²)M term dominates at audio steps).
    u_next_ = u_;
    Eigen::VectorXd candidate;
    int iteration = 0;
    double previous_change = INFINITY;
    for (;;) {
      scatter(u_next_, full_u_);
      gather(stvk_nonlinear_force(mesh_, material_, full_u_), g_);
      candidate = u_next_;
      effective_->solve(rhs_ - g_, candidate);
      ++iteration;
      const double change = (candidate - u_next_).norm();
      const double scale = std::max((candidate - u_).norm(), 1e-300);
      u_next_.swap(candidate);
      if (change <= options_.tolerance * scale || change == 0) break;
      // Round-off floor: g(u) = f_int(u) − K u is a difference of nearly equal sums, so at
      // tiny strains the update stops shrinking at ~1e-10 relative; accept that.
      if (change >= previous_change && change <= 1e-6 * scale) break;
      previous_change = change;
      if (iteration >= options_.max_iterations)
        throw Error(fmt::format(
            "the non-linear step at t = {:.6g} s did not converge in {} iterations (the "
            "deformation is too large for this time step: try a smaller --dt or a weaker force)",
            time_s_, iteration));
    }
    last_iterations_ = iteration;
  }
  // Newmark updates: a = 4/Δt²(u⁺ − u) − 4/Δt·v − a, v⁺ = v + Δt/2 (a + a⁺).
  a_next_ = (4 / (dt * dt)) * (u_next_ - u_) - (4 / dt) * v_ - a_;
  v_ += (0.5 * dt) * (a_ + a_next_);
  a_.swap(a_next_);
  u_.swap(u_next_);
  time_s_ = static_cast<double>(++steps_) * dt;
}

double NewmarkIntegrator::energy_j() const {
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(free_count_);
  Eigen::VectorXd mv(free_count_), ku(free_count_);
  product_->apply(v_, zero, mv);
  product_->apply(zero, u_, ku);
  return 0.5 * v_.dot(mv) + 0.5 * u_.dot(ku);
}

void NewmarkIntegrator::full_displacement(Eigen::VectorXd& out) const { scatter(u_, out); }
void NewmarkIntegrator::full_velocity(Eigen::VectorXd& out) const { scatter(v_, out); }

}  // namespace mesh2dsp
