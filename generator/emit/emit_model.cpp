#include "emit/emit_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "emit/ambisonics.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {

std::string identifier_from(const std::string& text) {
  std::string id;
  for (unsigned char c : text) id += std::isalnum(c) ? static_cast<char>(c) : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "m_" + id;
  return id;
}

std::string camel_case(const std::string& identifier) {
  std::string out;
  bool upper = true;
  for (char c : identifier) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "M" + out;
  return out;
}

EmitModel make_emit_model(const ModalModel& model, const std::string& name_override, int ambisonic_order,
                          bool quadrature) {
  EmitModel e;
  e.name = identifier_from(name_override.empty() ? model.name : name_override);
  e.class_name = camel_case(e.name);
  const int n_modes = static_cast<int>(model.modes.size());
  if (n_modes == 0) throw Error("the model has no modes: nothing to emit");
  if (model.excitations.empty())
    throw Error("the model has no excitation points: nothing can strike it");
  e.mode_count = n_modes;
  e.point_count = static_cast<int>(model.excitations.size());
  // Each output's pickup gain per mode: the listeners', or the ambisonic channels' (which
  // replace the listeners: they are the whole far field, delays none).
  std::vector<std::vector<double>> pickups, quadratures;
  std::vector<double> delays;
  if (ambisonic_order > 0) {
    const AmbisonicGains ambisonic = ambisonic_gains(model, ambisonic_order, quadrature);
    pickups = ambisonic.gains;
    quadratures = ambisonic.quadrature;
    delays.assign(pickups.size(), 0.0);
    e.ambisonic_order = ambisonic_order;
    const double least = *std::min_element(ambisonic.kept_energy.begin(), ambisonic.kept_energy.end());
    if (least < 0.9)
      notice(fmt::format("--ambisonics: each mode's directivity is made real by one phase (pm.modeFilter "
                         "gives no quadrature signal); the worst mode keeps {:.0f} % of its pattern's energy",
                         100 * least));
  } else {
    for (const auto& l : model.listeners) pickups.push_back(l.gains), delays.push_back(l.delay_s);
  }
  e.contact_microphone = pickups.empty();
  e.output_count = e.contact_microphone ? 1 : static_cast<int>(pickups.size());
  e.fundamental_hz = model.modes.front().frequency_hz;

  for (const auto& m : model.modes) {
    e.frequency_ratio.push_back(m.frequency_hz / e.fundamental_hz);
    const double omega = 2 * M_PI * m.frequency_hz;
    // σ = ξω; a hand-written model may give only T60 (σ = ln(1000)/T60).
    double sigma = m.damping_ratio * omega;
    if (!(sigma > 0) && std::isfinite(m.t60_s) && m.t60_s > 0) sigma = std::log(1000.0) / m.t60_s;
    if (sigma >= omega)
      throw Error(fmt::format("mode at {} Hz is overdamped (decay rate {} 1/s): not a resonance",
                              m.frequency_hz, sigma));
    if (!(sigma > 0)) ++e.undamped_modes;
    e.decay_per_s.push_back(sigma);
  }
  if (e.undamped_modes)
    notice(fmt::format(
        "{} of {} mode(s) are undamped (no damping ratio, no finite T60): the generated code gives "
        "them the slowest decay its float resonators hold stably (pole radius 1 - 2^-20: T60 {:.0f} s "
        "at 48 kHz, {:.0f} s at 192 kHz)",
        e.undamped_modes, n_modes, std::log(1000.0) / (kMaxPoleDecayPerSample * 48000),
        std::log(1000.0) / (kMaxPoleDecayPerSample * 192000)));

  e.gains.assign(static_cast<size_t>(e.output_count) * e.point_count * n_modes, 0.0);
  if (!quadratures.empty()) e.gains_quadrature = e.gains;
  double largest_sum = 0;
  for (int l = 0; l < e.output_count; ++l)
    for (int k = 0; k < e.point_count; ++k) {
      const auto& excite = model.excitations[k].gains;
      const auto& pickup = e.contact_microphone ? excite : pickups[l];
      double sum = 0;
      for (int n = 0; n < n_modes; ++n) {
        const size_t at = e.gain_index(l, k, n);
        e.gains[at] = excite[n] * pickup[n];
        if (quadratures.empty()) {
          sum += std::abs(e.gains[at]);
        } else {
          e.gains_quadrature[at] = excite[n] * quadratures[l][n];
          sum += std::hypot(e.gains[at], e.gains_quadrature[at]);
        }
      }
      largest_sum = std::max(largest_sum, sum);
    }
  if (!(largest_sum > 0) || !std::isfinite(largest_sum))
    throw Error("every mode gain of the model is zero (or not finite): it would be silent");
  e.normalization = 1.0 / largest_sum;
  e.physical_scale = largest_sum;
  e.triangles = model.excitation_triangles;
  // Gains below float's normal range would only cost denormal arithmetic in the resonators.
  auto flush = [](double g) { return std::abs(g) < 1e-30 ? 0.0 : g; };
  for (double& g : e.gains) g = flush(g * e.normalization);
  for (double& g : e.gains_quadrature) g = flush(g * e.normalization);
  const double root = std::sqrt(e.normalization);
  for (int k = 0; k < e.point_count; ++k)
    for (int n = 0; n < n_modes; ++n) e.excite.push_back(flush(root * model.excitations[k].gains[n]));
  e.delay_s.assign(e.output_count, 0.0);
  if (!e.contact_microphone) {
    const double nearest = *std::min_element(delays.begin(), delays.end());
    for (int l = 0; l < e.output_count; ++l) e.delay_s[l] = delays[l] - nearest;
  }
  if (!e.contact_microphone)
    for (int l = 0; l < e.output_count; ++l)
      for (int n = 0; n < n_modes; ++n) {
        e.pickup.push_back(flush(root * pickups[l][n]));
        if (!quadratures.empty()) e.pickup_quadrature.push_back(flush(root * quadratures[l][n]));
      }

  e.description = fmt::format(
      "Modal model of {}: {} modes ({} Hz to {} Hz), {} excitation point(s), {}; material {}",
      model.mesh.source.empty() ? e.name : model.mesh.source, n_modes,
      fmt::format("{:.6g}", model.modes.front().frequency_hz),
      fmt::format("{:.6g}", model.modes.back().frequency_hz), e.point_count,
      e.ambisonic_order > 0 ? fmt::format("order-{} ambisonic output (ACN, SN3D, {} channels)",
                                          e.ambisonic_order, e.output_count)
      : e.contact_microphone ? std::string("contact-microphone output")
                             : fmt::format("{} listener output(s)", e.output_count),
      model.material.name.empty() ? "custom" : model.material.name);
  return e;
}

}  // namespace mesh2dsp
