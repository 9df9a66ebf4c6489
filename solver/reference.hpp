#pragma once
// The reference render (issue 5): full FEM in time → surface pressure → listeners, after
// O'Brien, Cook & Essl, "Synthesizing Sounds from Physically Based Motion" (2001). One function on plain types, used by the
// `mesh2dsp reference` command, the tests and the benchmark.
#include <Eigen/Core>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fem/fem_mesh.hpp"
#include "fem/material.hpp"
#include "fem/tet_mesh.hpp"
#include "forces.hpp"
#include "newmark.hpp"
#include "radiation/radiation.hpp"

namespace mesh2dsp {

struct ReferenceSettings {
  double sample_rate_hz = 48000;
  double duration_s = 1;
  std::optional<double> dt_s;   // none: automatic_time_step()
  double fmax_hz = 20000;       // highest frequency retained (low-pass cutoff, ≤ fs/2)
  double dc_alpha = 0.1;        // eq. 9
  bool nonlinear = false;       // St. Venant–Kirchhoff
  LinearSolverKind solver = LinearSolverKind::cholmod_supernodal;  // measured faster at all sizes
  // The factor in float (the default; false: --double-precision). Used by linear renders with the
  // supernodal solver only: each linear step carries its solve's residual into the next, which
  // keeps a float factor's rounding from acting as a stiffness; a non-linear step does not.
  bool single_precision = true;
  bool visibility = true;       // δ of eq. 10 by ray casting
  std::vector<Eigen::Vector3d> listeners_m;
  ForceProfile force;
  StrikePoint strike;
  double speed_of_sound_m_s = kSpeedOfSoundMS;
  double impedance_pa_s_m = kAirImpedancePaSM;
  // Stop after this many steps (benchmark); 0: run the whole duration.
  long long max_steps = 0;
  bool show_progress = true;
  // --max-memory (0: the machine's available memory): the render stops before allocating with
  // one message when its matrices, factor and audio buffers would not fit.
  double max_memory_bytes = 0;
  // Called once, after the first steps were timed (≥ 0.3 s or 2 % of the run), with the
  // expected wall time of the whole time loop: what `validate` prints before waiting.
  std::function<void(double estimated_loop_s, long long steps)> on_estimate;
};

// Whether a render with these settings solves with a float factor (see single_precision).
bool single_precision_factor(const ReferenceSettings& s);

struct ReferenceResult {
  std::vector<std::vector<float>> channels;  // one per listener, duration × fs samples
  double dt_s = 0, cutoff_hz = 0;
  long long steps = 0;
  int free_dofs = 0, surface_triangles = 0;
  double setup_s = 0;           // assembly + factorization
  double factorization_s = 0;
  double integration_s = 0;     // the time loop (solver + audio), wall clock
  double integration_cpu_s = 0; // the same, CPU time of the process (all threads)
  double audio_s = 0;           // of which: pressure, filters, radiation
  double max_iterations = 0;    // non-linear: most fixed-point iterations in a step
  long long factor_nonzeros = -1;
  double integration_system_s = 0;
  double estimated_integration_s = 0;  // the estimate given to on_estimate (0: none made)  // kernel time of the process during the loop (getrusage)
  double mean_cg_iterations = 0;
};

// The step for audio (§3.1): no larger than 1e-5 s, at least 8 steps per period of `fmax_hz`,
// and Newmark's period error (ωΔt)²/12 no more than kMaxPeriodError at fmax_hz/2; rounded down
// to a whole number of steps per audio sample so that audio sample times fall on steps.
// At 48 kHz and f_max = 20 kHz: Δt = 1/(6·48 000) s.
inline constexpr double kMaxPeriodError = 0.005;
double automatic_time_step(double sample_rate_hz, double fmax_hz);

// Runs the whole render. `clamped` is per FEM node (empty: free body). Throws mesh2dsp::Error.
ReferenceResult render_reference(const TetMesh& tets, const FemMesh& fem, const Material& material,
                                 const std::vector<bool>& clamped, const ReferenceSettings& settings);

// The default listener when none is given: 0.5 m from the centre of the bounding box along +z.
Eigen::Vector3d default_listener(const TetMesh& tets);

}  // namespace mesh2dsp
