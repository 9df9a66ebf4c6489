#include "emit/ambisonics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <complex>

#include "radiation/bem.hpp"
#include "util/error.hpp"

namespace mesh2dsp {

double sn3d_from_orthonormal(int degree) { return std::sqrt((2.0 * degree + 1) / (4 * M_PI)); }

int stored_directivity_order(const ModalModel& model) {
  int order = model.modes.empty() ? -1 : kMaxDirectivityOrder;
  for (const auto& mode : model.modes) {
    const bool stored = mode.directivity_order >= 0 &&
                        mode.directivity.size() == static_cast<size_t>(ambisonic_channel_count(mode.directivity_order));
    order = std::min(order, stored ? mode.directivity_order : -1);
  }
  return order;
}

void check_ambisonic_order(int order) {
  if (order < 1 || order > kMaxDirectivityOrder)
    throw Error(fmt::format("--ambisonics {}: the order must be 1 to {}", order, kMaxDirectivityOrder));
}

void check_ambisonic_model(const ModalModel& model, int order) {
  check_ambisonic_order(order);
  const int stored = stored_directivity_order(model);
  if (stored < 0)
    throw Error("--ambisonics needs each mode's far-field directivity, which this model does not carry: "
                "analyse with --radiation bem (`mesh2dsp modes MESH --radiation bem`, or give generate the "
                "mesh with --radiation bem)");
  // Modes store the order their ka needs; the order is bounded by the highest any mode stores
  // (above it every channel would be silent).
  int highest = 0;
  for (const auto& mode : model.modes) highest = std::max(highest, mode.directivity_order);
  if (order > highest)
    throw Error(fmt::format("--ambisonics {}: the model's directivity goes to order {} at most", order, highest));
}

AmbisonicGains ambisonic_gains(const ModalModel& model, int order, bool quadrature) {
  check_ambisonic_model(model, order);
  AmbisonicGains out;
  out.order = order;
  const int channels = ambisonic_channel_count(order);
  out.gains.assign(channels, std::vector<double>(model.modes.size(), 0.0));
  if (quadrature) out.quadrature = out.gains;
  for (size_t n = 0; n < model.modes.size(); ++n) {
    const auto& c = model.modes[n].directivity;
    const int used = std::min(channels, static_cast<int>(c.size()));
    std::complex<double> square_sum = 0;
    double energy = 0;
    for (int i = 0; i < used; ++i) square_sum += c[i] * c[i], energy += std::norm(c[i]);
    // α = ½ arg Σc² lies in (−π/2, π/2]: of the two opposite best phases, the one nearer the
    // in-phase axis, so a pattern of one phase keeps the sign of its in-phase part.
    const double alpha = quadrature ? 0.0 : 0.5 * std::arg(square_sum);
    const std::complex<double> unrotate = std::polar(1.0, -alpha);
    for (int i = 0; i < used; ++i) {
      const int degree = static_cast<int>(std::sqrt(static_cast<double>(i)));
      out.gains[i][n] = (c[i] * unrotate).real() * sn3d_from_orthonormal(degree);
      if (quadrature) out.quadrature[i][n] = c[i].imag() * sn3d_from_orthonormal(degree);
    }
    out.phase_rad.push_back(alpha);
    // Σ Re(c e^{−iα})² = (Σ|c|² + |Σc²|) / 2.
    out.kept_energy.push_back(quadrature || !(energy > 0) ? 1.0 : 0.5 * (energy + std::abs(square_sum)) / energy);
  }
  return out;
}

}  // namespace mesh2dsp
