#include "emit/output_level.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

namespace mesh2dsp {

double strike_peak(const EmitModel& m, int point, double hardness, double rate_hz, double duration_s) {
  // The impact's force sampled at the rate and integrated per sample (F / rate), as emitted.
  const double contact_s = 0.0002 * std::pow(50.0, 1 - hardness);
  const long samples = static_cast<long>(duration_s * rate_hz);
  std::vector<double> momentum;
  for (long i = 0; i / rate_hz < contact_s; ++i)
    momentum.push_back((1 - std::cos(2 * M_PI * i / (contact_s * rate_hz))) / (contact_s * rate_hz));
  std::vector<double> out(static_cast<size_t>(samples) * m.output_count, 0.0);
  for (int n = 0; n < m.mode_count; ++n) {
    const double sigma = m.decay_per_s[n];
    const double w0 = 2 * M_PI * m.fundamental_hz * m.frequency_ratio[n];
    const double wd = std::sqrt(std::max(0.0, w0 * w0 - sigma * sigma));
    if (!(w0 < M_PI * rate_hz) || !(wd > 0)) continue;
    // Coupled form: z <- pole z + x, velocity = Re z - (sigma / wd) Im z.
    const std::complex<double> pole = std::exp(std::complex<double>(-sigma, wd) / rate_hz);
    const double k = sigma / wd;
    std::complex<double> z = 0;
    for (long i = 0; i < samples; ++i) {
      z = pole * z + (i < static_cast<long>(momentum.size()) ? momentum[i] : 0.0);
      const double v = z.real() - k * z.imag();
      for (int l = 0; l < m.output_count; ++l) out[i * m.output_count + l] += v * m.gain(l, point, n);
      if (!m.gains_quadrature.empty()) {  // ambisonic outputs: the quadrature signal's share too
        const double q = z.imag() + k * z.real();
        for (int l = 0; l < m.output_count; ++l)
          out[i * m.output_count + l] += q * m.gains_quadrature[m.gain_index(l, point, n)];
      }
    }
  }
  double peak = 0;
  for (double v : out) peak = std::max(peak, std::abs(v));
  return peak;
}

int loudest_point(const EmitModel& m, double hardness) {
  int best = 0;
  double best_peak = -1;
  for (int k = 0; k < m.point_count; ++k) {
    const double peak = strike_peak(m, k, hardness);
    if (peak > best_peak) best = k, best_peak = peak;
  }
  return best;
}

double default_output_level(const EmitModel& m, double default_hardness, double default_gain) {
  const double target = std::pow(10.0, -6.0 / 20), ceiling = std::pow(10.0, -1.0 / 20);
  const int point = loudest_point(m, default_hardness);
  const double peak = strike_peak(m, point, default_hardness), hard = strike_peak(m, point, 1.0);
  double level = peak > 0 ? target / (default_gain * peak) : 1.0;
  if (hard > 0) level = std::min(level, ceiling / (default_gain * hard));
  return level;
}

}  // namespace mesh2dsp
