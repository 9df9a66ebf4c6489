#include "validate/contact_reference.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "filters.hpp"
#include "newmark.hpp"
#include "util/serial_threads.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp::validate {

std::vector<float> render_contact_velocity(const FemMesh& fem, const Material& material,
                                           const std::vector<bool>& clamped,
                                           const ReferenceSettings& s, double* dt_out) {
  if (!(s.duration_s > 0) || !std::isfinite(s.duration_s))
    throw Error(fmt::format("--duration must be positive (got {} s)", s.duration_s));
  const double cutoff_hz = std::min(s.fmax_hz, 0.5 * s.sample_rate_hz);
  const double dt = s.dt_s ? *s.dt_s : automatic_time_step(s.sample_rate_hz, cutoff_hz);
  if (dt_out) *dt_out = dt;
  NewmarkOptions options;
  options.dt_s = dt;
  options.nonlinear = s.nonlinear;
  options.solver = s.solver;
  options.single_precision = single_precision_factor(s);
  options.memory_limit_bytes = s.max_memory_bytes;  // --max-memory
  NewmarkIntegrator integrator(fem, material, clamped, options);
  const int nodes = static_cast<int>(fem.nodes.rows());
  const Eigen::VectorXd unit_load = strike_load(s.strike, nodes);
  integrator.set_load(unit_load);
  const bool impulse = s.force.kind == ForceKind::impulse;
  integrator.start(force_at(s.force, 0), impulse ? Eigen::VectorXd(s.force.amplitude * unit_load)
                                                 : Eigen::VectorXd::Zero(3 * nodes));

  // The pickup: the strike's barycentric share of each node's velocity along the strike
  // direction (strike_load of a unit force is exactly those weights times the direction).
  SincDecimator lowpass(1, dt, s.sample_rate_hz, cutoff_hz, Eigen::VectorXd::Zero(1));
  DcBlocker dc_blocker(1, s.dc_alpha);  // the free body's rigid motion is DC, as in the solver
  const auto samples = static_cast<long long>(std::ceil(s.duration_s * s.sample_rate_hz));
  std::vector<float> out;
  out.reserve(samples);
  Eigen::VectorXd velocity(3 * nodes), frame(1), audio(1);
  auto push = [&] {
    integrator.full_velocity(velocity);
    frame[0] = unit_load.dot(velocity);
    lowpass.push(frame);
    while (static_cast<long long>(out.size()) < samples && lowpass.pop(audio)) {
      dc_blocker.process(audio);
      out.push_back(static_cast<float>(audio[0]));
    }
  };
  const long long total_steps =
      static_cast<long long>(std::ceil((s.duration_s + 3.0 / cutoff_hz) / dt)) + 1;
  std::optional<Progress> progress;
  if (s.show_progress) progress.emplace("contact reference");
  const SerialThreads serial;  // as the solver's own loop: no idle threads spinning
  push();
  for (long long n = 1; n < total_steps && static_cast<long long>(out.size()) < samples; ++n) {
    integrator.step(force_at(s.force, static_cast<double>(n) * dt));
    push();
    if (progress && (n & 1023) == 0) progress->update(static_cast<double>(n) / total_steps);
    if (n % 4096 == 0 && !std::isfinite(velocity.squaredNorm()))
      throw Error(fmt::format("the simulation diverged at t = {:.6g} s", integrator.time_s()));
  }
  lowpass.finish();
  while (static_cast<long long>(out.size()) < samples && lowpass.pop(audio)) {
    dc_blocker.process(audio);
    out.push_back(static_cast<float>(audio[0]));
  }
  out.resize(samples, 0.0f);
  if (progress) progress->finish();
  return out;
}

}  // namespace mesh2dsp::validate
