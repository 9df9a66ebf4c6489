#include "validate/model_from_mesh.hpp"

#include <cmath>

#include "newmark.hpp"

namespace mesh2dsp::validate {

ModalModel newmark_warped_model(const ModalModel& model, double dt_s) {
  ModalModel warped = model;
  for (std::size_t n = 0; n < model.modes.size(); ++n) {
    const auto& m = model.modes[n];
    // The pole −ξω ± iω√(1 − ξ²) (frequency_hz is the undamped ω/2π), a hand-written model's
    // T60 when it gives no ξ, as the emitter reads them.
    const double omega = 2 * M_PI * m.frequency_hz;
    const double sigma = m.damping_ratio > 0 ? m.damping_ratio * omega
                         : std::isfinite(m.t60_s) && m.t60_s > 0 ? std::log(1000.0) / m.t60_s : 0.0;
    const ModeFrequencyDecay continuous{std::sqrt(std::max(omega * omega - sigma * sigma, 0.0)) / (2 * M_PI),
                                        sigma > 0 ? std::log(1000.0) / sigma : INFINITY};
    const ModeFrequencyDecay shown = newmark_discrete_mode(continuous, dt_s);
    const double shown_sigma = std::isfinite(shown.t60_s) ? std::log(1000.0) / shown.t60_s : 0.0;
    const double shown_omega = std::hypot(2 * M_PI * shown.frequency_hz, shown_sigma);
    auto& w = warped.modes[n];
    w.frequency_hz = shown_omega / (2 * M_PI);
    w.t60_s = shown.t60_s;
    w.damping_ratio = shown_sigma / shown_omega;
    w.eigenvalue = shown_omega * shown_omega;
    // The output of mode n is excitation gain × pickup gain: scale one of them (the pickup is
    // the excitation itself for a contact microphone, hence the square root there).
    const double ratio = newmark_amplitude_ratio(continuous, dt_s);
    if (warped.listeners.empty()) {
      for (auto& e : warped.excitations) e.gains.at(n) *= std::sqrt(ratio);
    } else {
      for (auto& l : warped.listeners) l.gains.at(n) *= ratio;
    }
  }
  return warped;
}

}  // namespace mesh2dsp::validate
