#pragma once
// Spectral analysis for the solver tests (FFTW): a Hann-windowed, zero-padded magnitude
// spectrum, peak location with parabolic interpolation, and a mode's decay rate.
#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace mesh2dsp::test {

struct Spectrum {
  std::vector<double> magnitude;  // bins 0 .. n/2
  double bin_hz = 0;

  // Interpolated frequency of the largest bin within [lo, hi]; -1 when that maximum sits on
  // the window's edge (no peak inside).
  double peak_in(double lo_hz, double hi_hz, double* height = nullptr) const {
    const int a = std::max(1, static_cast<int>(std::floor(lo_hz / bin_hz)));
    const int b = std::min(static_cast<int>(magnitude.size()) - 2, static_cast<int>(std::ceil(hi_hz / bin_hz)));
    int best = a;
    for (int i = a; i <= b; ++i)
      if (magnitude[i] > magnitude[best]) best = i;
    if (height) *height = magnitude[best];
    if (best == a || best == b) return -1;
    const double l = std::log(magnitude[best - 1] + 1e-300), c = std::log(magnitude[best] + 1e-300),
                 r = std::log(magnitude[best + 1] + 1e-300);
    const double offset = 0.5 * (l - r) / (l - 2 * c + r);
    return (best + offset) * bin_hz;
  }
  double max_in(double lo_hz, double hi_hz) const {
    double h = 0;
    peak_in(lo_hz, hi_hz, &h);
    return h;
  }
  double max_all() const { return *std::max_element(magnitude.begin(), magnitude.end()); }
};

inline Spectrum spectrum(const std::vector<float>& x, double rate_hz, int pad = 8,
                         size_t begin = 0) {
  const size_t n = x.size() - begin;
  const size_t m = n * pad;
  std::vector<double> in(m, 0.0);
  for (size_t i = 0; i < n; ++i)
    in[i] = x[begin + i] * (0.5 - 0.5 * std::cos(2 * M_PI * i / (n - 1)));
  std::vector<fftw_complex> out(m / 2 + 1);
  fftw_plan plan = fftw_plan_dft_r2c_1d(static_cast<int>(m), in.data(), out.data(), FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  Spectrum s;
  s.bin_hz = rate_hz / static_cast<double>(m);
  s.magnitude.resize(out.size());
  for (size_t i = 0; i < out.size(); ++i) s.magnitude[i] = std::hypot(out[i][0], out[i][1]);
  return s;
}

// Amplitude at `f` of Hann-windowed frames (length `frame`, hop `hop`) starting at `start`:
// the envelope of one mode when its neighbours are further than a few bins away.
inline std::vector<double> envelope_at(const std::vector<float>& x, double rate_hz, double f,
                                       size_t start, size_t frame, size_t hop) {
  std::vector<double> out;
  for (size_t s = start; s + frame <= x.size(); s += hop) {
    double re = 0, im = 0;
    for (size_t i = 0; i < frame; ++i) {
      const double w = 0.5 - 0.5 * std::cos(2 * M_PI * i / (frame - 1));
      const double phase = 2 * M_PI * f * static_cast<double>(i) / rate_hz;
      re += w * x[s + i] * std::cos(phase);
      im -= w * x[s + i] * std::sin(phase);
    }
    out.push_back(std::hypot(re, im));
  }
  return out;
}

// Least-squares slope of y against x.
inline double slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace mesh2dsp::test
