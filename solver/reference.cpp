#include "reference.hpp"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <cmath>
#include <limits>

#include "filters.hpp"
#include "modal/memory_estimate.hpp"
#include "newmark.hpp"
#include "util/serial_threads.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {

bool single_precision_factor(const ReferenceSettings& s) {
  return s.single_precision && !s.nonlinear && s.solver == LinearSolverKind::cholmod_supernodal;
}
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string duration_text(double s) {
  if (!std::isfinite(s)) return "?";
  if (s < 60) return fmt::format("{:.0f} s", s);
  if (s < 3600) return fmt::format("{:.0f} min {:02.0f} s", std::floor(s / 60), std::fmod(s, 60));
  return fmt::format("{:.0f} h {:02.0f} min", std::floor(s / 3600), std::fmod(s / 60, 60));
}

}  // namespace

double automatic_time_step(double sample_rate_hz, double fmax_hz) {
  // §3.1: no more than 1e-5 s, and at least 8 steps per period of f_max; and Newmark's period
  // error (ωΔt)²/12 at most kMaxPeriodError at f_max/2, so that the modes in the lower half of
  // the band sit within 0.5 % of the FEM's frequencies (8 steps per period alone give 0.9 %
  // at 10 kHz).
  const double accuracy_limit = std::sqrt(12 * kMaxPeriodError) / (2 * M_PI * 0.5 * fmax_hz);
  const double limit = std::min({1e-5, 1.0 / (8.0 * fmax_hz), accuracy_limit});
  const double audio_period = 1.0 / sample_rate_hz;
  const double per_sample = std::ceil(audio_period / limit - 1e-9);
  return audio_period / per_sample;
}

Eigen::Vector3d default_listener(const TetMesh& tets) {
  const Eigen::Vector3d lo = tets.vertices.colwise().minCoeff(), hi = tets.vertices.colwise().maxCoeff();
  return 0.5 * (lo + hi) + Eigen::Vector3d(0, 0, 0.5);
}

ReferenceResult render_reference(const TetMesh& tets, const FemMesh& fem, const Material& material,
                                 const std::vector<bool>& clamped, const ReferenceSettings& s) {
  if (!(s.sample_rate_hz > 0)) throw Error("the sample rate must be positive");
  if (!(s.duration_s > 0) || !std::isfinite(s.duration_s))
    throw Error(fmt::format("--duration must be positive (got {} s)", s.duration_s));
  if (s.dt_s && !(*s.dt_s > 0 && std::isfinite(*s.dt_s)))
    throw Error(fmt::format("--dt must be positive (got {} s)", *s.dt_s));
  if (!(s.fmax_hz > 0)) throw Error("--fmax must be positive");
  if (s.listeners_m.empty()) throw Error("no listener");
  if (s.nonlinear && fem.order != 1 && fem.order != 2)
    throw Error(fmt::format("the nonlinear time loop takes elements of order 1 or 2 (got {})", fem.order));

  ReferenceResult result;
  const auto setup_start = Clock::now();
  // The low-pass keeps what the audio rate can carry: f_max ≤ fs/2 (§3.2 used 22 050 Hz at 44.1 kHz).
  result.cutoff_hz = std::min(s.fmax_hz, 0.5 * s.sample_rate_hz);
  result.dt_s = s.dt_s ? *s.dt_s : automatic_time_step(s.sample_rate_hz, result.cutoff_hz);
  const double dt = result.dt_s;

  // The audio side, known before anything is allocated: per listener the accumulation buffer
  // (double), the channel (float) and the file's interleaved copy (float); per triangle and
  // listener a delay kernel. A duration that would not fit fails here, before the assembly.
  const double audio_samples_estimate = std::ceil(s.duration_s * s.sample_rate_hz);
  if (audio_samples_estimate > std::numeric_limits<int>::max())
    throw Error(fmt::format("--duration {} s at {} Hz is {:.3g} samples: more than one render can "
                            "hold (at most {} per channel)",
                            s.duration_s, s.sample_rate_hz, audio_samples_estimate,
                            std::numeric_limits<int>::max()));
  const double audio_bytes =
      static_cast<double>(s.listeners_m.size()) *
      (16.0 * audio_samples_estimate + 64.0 * static_cast<double>(tets.surface_faces.rows()));
  check_reference_memory(audio_bytes, s.max_memory_bytes, 0,
                         fmt::format("audio and radiation {}", format_bytes(audio_bytes)));

  NewmarkOptions options;
  options.dt_s = dt;
  options.nonlinear = s.nonlinear;
  options.solver = s.solver;
  options.single_precision = single_precision_factor(s);
  options.memory_limit_bytes = s.max_memory_bytes;
  options.other_bytes = audio_bytes;
  NewmarkIntegrator integrator(fem, material, clamped, options);
  result.free_dofs = integrator.free_dofs();
  result.factorization_s = integrator.factorization_s();
  result.factor_nonzeros = integrator.factor_nonzeros();
  const int nodes = static_cast<int>(fem.nodes.rows());
  const Eigen::VectorXd unit_load = strike_load(s.strike, nodes);
  integrator.set_load(unit_load);
  const bool impulse = s.force.kind == ForceKind::impulse;
  integrator.start(force_at(s.force, 0),
                   impulse ? Eigen::VectorXd(s.force.amplitude * unit_load)
                           : Eigen::VectorXd::Zero(3 * nodes));

  // Surface: triangles index tet-mesh vertices, which are the FEM corner nodes.
  const Eigen::MatrixXi& faces = tets.surface_faces;
  const int triangles = static_cast<int>(faces.rows());
  result.surface_triangles = triangles;
  std::vector<int> surface_vertices;
  {
    std::vector<char> used(tets.vertices.rows(), 0);
    for (int f = 0; f < triangles; ++f)
      for (int k = 0; k < 3; ++k) used[faces(f, k)] = 1;
    for (int v = 0; v < static_cast<int>(used.size()); ++v)
      if (used[v]) surface_vertices.push_back(v);
  }
  const Eigen::MatrixXd& rest = tets.vertices;
  const TriangleGeometry rest_geometry = triangle_geometry(rest, faces);
  const int listeners = static_cast<int>(s.listeners_m.size());
  std::vector<std::vector<char>> visibility(listeners);
  for (int l = 0; l < listeners; ++l)
    visibility[l] = s.visibility ? triangle_visibility(rest, faces, rest_geometry, s.listeners_m[l])
                                 : std::vector<char>(triangles, 1);

  const long long audio_samples = static_cast<long long>(std::ceil(s.duration_s * s.sample_rate_hz));
  std::vector<AccumulationBuffer> buffers;
  for (int l = 0; l < listeners; ++l) buffers.emplace_back(s.sample_rate_hz, static_cast<int>(audio_samples));

  // Per-triangle pressure (eq. 5) low-passed and sub-sampled (eqs. 6–8), then DC-blocked
  // (eq. 9). Linear elasticity is a small-displacement theory: the geometry of eq. 10 is the
  // rest shape, so the weights and delays are fixed and computed once. With geometric
  // non-linearity the vertex positions are low-pass filtered too (footnote 2) and the
  // weights follow the filtered shape at audio rate (visibility re-cast every 10 ms).
  SincDecimator pressure_filter(triangles, dt, s.sample_rate_hz, result.cutoff_hz,
                                Eigen::VectorXd::Zero(triangles));
  DcBlocker dc_blocker(triangles, s.dc_alpha);
  const int position_channels = s.nonlinear ? 3 * static_cast<int>(surface_vertices.size()) : 0;
  Eigen::VectorXd rest_positions(position_channels);
  for (int i = 0; i < position_channels / 3; ++i)
    rest_positions.segment<3>(3 * i) = rest.row(surface_vertices[i]).transpose();
  SincDecimator position_filter(std::max(1, position_channels), dt, s.sample_rate_hz,
                                result.cutoff_hz,
                                position_channels ? rest_positions : Eigen::VectorXd::Zero(1));

  std::vector<RadiationWeights> weights(listeners);
  std::vector<std::vector<AccumulationBuffer::Kernel>> kernels(listeners);
  auto update_weights = [&](const TriangleGeometry& g) {
    for (int l = 0; l < listeners; ++l) {
      weights[l] = radiation_weights(g, visibility[l], s.listeners_m[l], s.speed_of_sound_m_s);
      kernels[l].resize(triangles);
      for (int k = 0; k < triangles; ++k) kernels[l][k] = buffers[l].kernel(weights[l].delay_s[k]);
    }
  };
  update_weights(rest_geometry);
  result.setup_s = seconds_since(setup_start);

  const double filter_latency_s = 3.0 / result.cutoff_hz;
  long long total_steps =
      static_cast<long long>(std::ceil((s.duration_s + filter_latency_s) / dt)) + 1;
  if (s.max_steps > 0) total_steps = std::min(total_steps, s.max_steps);

  Eigen::VectorXd velocity(3 * nodes), displacement(3 * nodes), frame(triangles),
      audio_pressure(triangles), audio_positions, positions(position_channels);
  Eigen::MatrixXd deformed = rest;
  TriangleGeometry geometry = rest_geometry;
  const long long visibility_interval = std::max<long long>(1, std::llround(0.01 * s.sample_rate_hz));
  double audio_s = 0;

  std::optional<Progress> progress;
  if (s.show_progress) progress.emplace("reference");
  const SerialThreads serial;  // no idle threads spinning through ~10⁵ small solves a second
  const auto loop_start = Clock::now();
  const CpuTimes loop_cpu_start = process_cpu_times();
  auto emit_audio = [&]() {
    while (pressure_filter.pop(audio_pressure)) {
      const long long j = pressure_filter.produced() - 1;
      if (s.nonlinear) {
        position_filter.pop(audio_positions);
        for (size_t i = 0; i < surface_vertices.size(); ++i)
          deformed.row(surface_vertices[i]) = audio_positions.segment<3>(3 * i).transpose();
        geometry = triangle_geometry(deformed, faces);
        if (s.visibility && j % visibility_interval == 0)
          for (int l = 0; l < listeners; ++l)
            visibility[l] = triangle_visibility(deformed, faces, geometry, s.listeners_m[l]);
        update_weights(geometry);
      }
      dc_blocker.process(audio_pressure);
      // Eq. 10 per triangle, delayed by eq. 11 and splatted into the accumulation buffer.
      for (int l = 0; l < listeners; ++l) {
        const Eigen::VectorXd& w = weights[l].weight_m;
        for (int k = 0; k < triangles; ++k)
          if (w[k] != 0) buffers[l].add(j, kernels[l][k], w[k] * audio_pressure[k]);
      }
    }
  };

  auto push_state = [&]() {
    const auto audio_start = Clock::now();
    integrator.full_velocity(velocity);
    if (s.nonlinear) {
      integrator.full_displacement(displacement);
      for (size_t i = 0; i < surface_vertices.size(); ++i) {
        positions.segment<3>(3 * i) = rest_positions.segment<3>(3 * i) +
                                      displacement.segment<3>(3 * surface_vertices[i]);
        deformed.row(surface_vertices[i]) = positions.segment<3>(3 * i).transpose();
      }
      geometry = triangle_geometry(deformed, faces);
      frame = triangle_pressure(faces, geometry, velocity, s.impedance_pa_s_m);  // eq. 5
      position_filter.push(positions);
    } else {
      frame = triangle_pressure(faces, rest_geometry, velocity, s.impedance_pa_s_m);  // eq. 5
    }
    pressure_filter.push(frame);
    emit_audio();
    audio_s += seconds_since(audio_start);
  };

  const double force_end = force_end_s(s.force);
  double free_energy_j = -1;  // at the first check after the force ends
  constexpr long long kWarmupSteps = 16;
  Clock::time_point warm = loop_start;
  push_state();  // t = 0
  for (long long n = 1; n < total_steps; ++n) {
    integrator.step(force_at(s.force, static_cast<double>(n) * dt));
    result.max_iterations = std::max<double>(result.max_iterations, integrator.last_iterations());
    push_state();
    if (progress && (n & 255) == 0) {
      const double fraction = static_cast<double>(n) / static_cast<double>(total_steps);
      const double elapsed = seconds_since(loop_start);
      progress->update(fraction, fmt::format("t = {:.4f} of {:.4g} s simulated, {} left",
                                             integrator.time_s(), s.duration_s,
                                             duration_text(elapsed / fraction * (1 - fraction))));
    }
    if (n == kWarmupSteps) warm = Clock::now();
    if (result.estimated_integration_s == 0 && n > 2 * kWarmupSteps && (n & 15) == 0) {
      // Steps cost the same throughout (one factor, one pattern): extrapolate the pace after
      // the first steps (cold caches), once it is measured over 0.5 s or 5 % of the run.
      const double paced = seconds_since(warm);
      if (paced >= 0.5 || n >= total_steps / 20) {
        const double per_step = paced / static_cast<double>(n - kWarmupSteps);
        result.estimated_integration_s =
            seconds_since(loop_start) + per_step * static_cast<double>(total_steps - n);
        if (s.on_estimate) s.on_estimate(result.estimated_integration_s, total_steps);
      }
    }
    if (n % 4096 == 0 && !std::isfinite(velocity.squaredNorm()))
      throw Error(fmt::format("the simulation diverged at t = {:.6g} s", integrator.time_s()));
    if (n % 1024 == 0 && !s.nonlinear && integrator.time_s() > force_end) {
      // Unforced, the energy can only fall. The guard against a loop that diverges anyway: a
      // float factor without the carried residual made a free body's rigid-body motion grow
      // exponentially (a 360-tet P1 bar at 1/288 000 s: output RMS x4 000 in 0.3 s).
      const double energy = integrator.energy_j();
      if (free_energy_j < 0) free_energy_j = energy;
      else if (energy > 1.01 * free_energy_j + 1e-30)  // (+1e-30 J: a body at rest stays so)
        throw Error(fmt::format(
            "the simulation diverged at t = {:.6g} s (its energy grew {:.3g}-fold with no force){}",
            integrator.time_s(), energy / free_energy_j,
            single_precision_factor(s) ? ": render with --double-precision (the float factor is unstable here)"
                                       : ": try a smaller --dt"));
    }
  }
  if (!std::isfinite(velocity.squaredNorm()))
    throw Error("the simulation diverged (non-finite velocities)");
  if (progress) progress->finish(fmt::format("{} steps of {:.3g} s", total_steps, dt));
  result.steps = total_steps;
  result.integration_s = seconds_since(loop_start);
  result.mean_cg_iterations = integrator.mean_cg_iterations();
  const CpuTimes loop_cpu_end = process_cpu_times();
  result.integration_cpu_s = loop_cpu_end.user_s + loop_cpu_end.system_s - loop_cpu_start.user_s - loop_cpu_start.system_s;
  result.integration_system_s = loop_cpu_end.system_s - loop_cpu_start.system_s;
  result.audio_s = audio_s;

  for (int l = 0; l < listeners; ++l) {
    const auto& samples = buffers[l].samples();
    result.channels.emplace_back(samples.begin(), samples.end());
  }
  return result;
}

}  // namespace mesh2dsp
