#pragma once
// Synthetic "recordings" of known truth for the fitting tests (issue 29): a modal sum of
// exponentially decaying partials, and the impairments a real recording brings: noise, DC,
// mains hum, a room's decaying tail, a microphone's spectral tilt, 16-bit quantisation.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace mesh2dsp::test {

struct SyntheticPartial {
  double frequency_hz = 0, amplitude = 0, t60_s = 1;
};

// Σ a e^{−σt} sin(2πft), σ = ln(1000)/T60, starting pre_roll_s into a signal duration_s long.
inline std::vector<float> render_partials(const std::vector<SyntheticPartial>& partials, double rate_hz,
                                          double pre_roll_s, double duration_s) {
  std::vector<float> x(static_cast<std::size_t>(duration_s * rate_hz), 0.0f);
  const auto start = static_cast<std::size_t>(pre_roll_s * rate_hz);
  for (const auto& p : partials) {
    const double sigma = std::log(1000.0) / p.t60_s;
    // Recurrences instead of exp/sin per sample: a rotating, shrinking phasor.
    const double decay = std::exp(-sigma / rate_hz), step = 2 * M_PI * p.frequency_hz / rate_hz;
    const double c = std::cos(step), s = std::sin(step);
    double re = p.amplitude, im = 0;  // amplitude · e^{iωt}: the sine is its imaginary part
    for (std::size_t i = start; i < x.size(); ++i) {
      x[i] += static_cast<float>(im);
      const double r2 = (re * c - im * s) * decay, i2 = (re * s + im * c) * decay;
      re = r2, im = i2;
    }
  }
  return x;
}

// A small linear-congruential generator: reproducible noise without <random>'s distributions
// (whose output differs between standard libraries).
class Noise {
 public:
  explicit Noise(std::uint32_t seed) : state_(seed) {}
  double uniform() {  // [-0.5, 0.5)
    state_ = state_ * 1664525u + 1013904223u;
    return (state_ >> 8) / 16777216.0 - 0.5;
  }
  double gaussian() {  // unit variance (sum of 12 uniforms)
    double s = 0;
    for (int i = 0; i < 12; ++i) s += uniform();
    return s;
  }

 private:
  std::uint32_t state_;
};

inline void add_noise(std::vector<float>& x, double rms, std::uint32_t seed) {
  Noise n(seed);
  for (float& v : x) v += static_cast<float>(rms * n.gaussian());
}

// Mains hum: hum_hz and its harmonics at amplitude / k.
inline void add_hum(std::vector<float>& x, double rate_hz, double hum_hz, double amplitude, int harmonics) {
  for (std::size_t i = 0; i < x.size(); ++i)
    for (int k = 1; k <= harmonics; ++k)
      x[i] += static_cast<float>(amplitude / k * std::sin(2 * M_PI * k * hum_hz * i / rate_hz + k));
}

// A room: the direct sound plus a decaying tail of `taps` random reflections over tail_s whose
// level falls by 60 dB over the tail (its T60), starting `level_db` below the direct sound.
inline std::vector<float> add_room(const std::vector<float>& x, double rate_hz, double tail_s, double level_db,
                                   int taps, std::uint32_t seed) {
  Noise n(seed);
  std::vector<float> y = x;
  const double first = std::pow(10.0, level_db / 20);
  for (int t = 0; t < taps; ++t) {
    const double delay_s = 0.002 + (n.uniform() + 0.5) * tail_s;
    const double gain = first * std::pow(10.0, -3 * delay_s / tail_s) * (n.uniform() < 0 ? -1 : 1);
    const auto d = static_cast<std::size_t>(delay_s * rate_hz);
    for (std::size_t i = d; i < x.size(); ++i) y[i] += static_cast<float>(gain * x[i - d]);
  }
  return y;
}

// A gentle microphone tilt: y[n] = (1 − k) x[n] + k x[n−1] (0 dB at DC, 20 log10(1 − 2k) at Nyquist).
inline void tilt(std::vector<float>& x, double k) {
  float previous = 0;
  for (float& v : x) {
    const float now = v;
    v = static_cast<float>((1 - k) * now + k * previous);
    previous = now;
  }
}

inline void quantise_16_bit(std::vector<float>& x) {
  for (float& v : x) v = static_cast<float>(std::round(std::clamp(v, -1.0f, 1.0f) * 32767.0) / 32767.0);
}

}  // namespace mesh2dsp::test
