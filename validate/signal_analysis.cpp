#include "validate/signal_analysis.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <mutex>

namespace mesh2dsp::signal {
namespace {

// FFTW's planner is not thread-safe; plans are made under one lock (execution is).
std::mutex g_plan_mutex;

// |FFT|² or |FFT| of a real buffer (length n, already windowed), bins 0 .. n/2.
std::vector<std::complex<double>> real_fft(std::vector<double>& in) {
  const int n = static_cast<int>(in.size());
  std::vector<std::complex<double>> out(in.size() / 2 + 1);
  fftw_plan plan;
  {
    std::lock_guard lock(g_plan_mutex);
    plan = fftw_plan_dft_r2c_1d(n, in.data(), reinterpret_cast<fftw_complex*>(out.data()),
                                FFTW_ESTIMATE);
  }
  fftw_execute(plan);
  {
    std::lock_guard lock(g_plan_mutex);
    fftw_destroy_plan(plan);
  }
  return out;
}

std::vector<double> hann(std::size_t n) {
  std::vector<double> w(n);
  for (std::size_t i = 0; i < n; ++i)
    w[i] = n > 1 ? 0.5 - 0.5 * std::cos(2 * M_PI * static_cast<double>(i) / static_cast<double>(n - 1)) : 1;
  return w;
}

double to_db(double magnitude) { return 20 * std::log10(std::max(magnitude, 1e-300)); }

}  // namespace

double Spectrum::max() const {
  return magnitude.empty() ? 0 : *std::max_element(magnitude.begin(), magnitude.end());
}

double Spectrum::peak_in(double lo_hz, double hi_hz, double* height) const {
  if (magnitude.size() < 3) return -1;
  const int a = std::max(1, static_cast<int>(std::floor(lo_hz / bin_hz)));
  const int b = std::min(static_cast<int>(magnitude.size()) - 2, static_cast<int>(std::ceil(hi_hz / bin_hz)));
  if (b < a) return -1;
  int best = a;
  for (int i = a; i <= b; ++i)
    if (magnitude[i] > magnitude[best]) best = i;
  if (height) *height = magnitude[best];
  if (best == a || best == b) return -1;
  const double l = std::log(magnitude[best - 1] + 1e-300), c = std::log(magnitude[best] + 1e-300),
               r = std::log(magnitude[best + 1] + 1e-300);
  const double denominator = l - 2 * c + r;
  const double offset = denominator < 0 ? 0.5 * (l - r) / denominator : 0;
  return (best + offset) * bin_hz;
}

Spectrum magnitude_spectrum(const std::vector<float>& x, double rate_hz, int pad, std::size_t begin,
                            std::size_t length, bool from_onset) {
  if (begin > x.size()) begin = x.size();
  const std::size_t n = length == 0 ? x.size() - begin : std::min(length, x.size() - begin);
  // A power of two at least pad × n: FFTW is fastest there and the zero-padding only
  // interpolates the spectrum (the parabola then sits on a finely sampled main lobe).
  std::size_t m = 1;
  while (m < n * static_cast<std::size_t>(std::max(pad, 1))) m <<= 1;
  std::vector<double> in(m, 0.0);
  std::vector<double> w = hann(from_onset ? 2 * n : n);
  if (from_onset) w.erase(w.begin(), w.begin() + static_cast<long>(n));  // its falling half
  for (std::size_t i = 0; i < n; ++i) in[i] = x[begin + i] * w[i];
  const auto out = real_fft(in);
  Spectrum s;
  s.bin_hz = rate_hz / static_cast<double>(m);
  s.magnitude.resize(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) s.magnitude[i] = std::abs(out[i]);
  return s;
}

std::vector<Peak> find_peaks(const Spectrum& s, double lo_hz, double hi_hz, double floor_db,
                             double min_prominence_db, double valley_span) {
  std::vector<Peak> peaks;
  const int n = static_cast<int>(s.magnitude.size());
  if (n < 3 || s.bin_hz <= 0) return peaks;
  const double top_db = to_db(s.max());
  const int a = std::max(1, static_cast<int>(std::floor(lo_hz / s.bin_hz)));
  const int b = std::min(n - 2, static_cast<int>(std::ceil(hi_hz / s.bin_hz)));
  for (int i = a; i <= b; ++i) {
    const double m = s.magnitude[i];
    if (!(m > s.magnitude[i - 1] && m >= s.magnitude[i + 1])) continue;
    const double level = to_db(m);
    if (level < top_db - floor_db) continue;
    // Prominence: the lowest point on each side before a higher sample (or the span's end);
    // the peak stands above the higher of the two.
    const int span = std::max(4, static_cast<int>(valley_span * i));
    double left = m, right = m;
    for (int j = i - 1; j >= std::max(0, i - span) && s.magnitude[j] <= m; --j) left = std::min(left, s.magnitude[j]);
    for (int j = i + 1; j <= std::min(n - 1, i + span) && s.magnitude[j] <= m; ++j) right = std::min(right, s.magnitude[j]);
    const double prominence = level - to_db(std::max(left, right));
    if (prominence < min_prominence_db) continue;
    const double l = std::log(s.magnitude[i - 1] + 1e-300), c = std::log(m + 1e-300),
                 r = std::log(s.magnitude[i + 1] + 1e-300);
    const double denominator = l - 2 * c + r;
    const double offset = denominator < 0 ? 0.5 * (l - r) / denominator : 0;
    peaks.push_back({(i + offset) * s.bin_hz, level, prominence});
  }
  return peaks;
}

Spectrum welch_power(const std::vector<float>& x, double rate_hz, std::size_t frame) {
  frame = std::max<std::size_t>(16, std::min(frame, x.size()));
  const std::size_t hop = std::max<std::size_t>(1, frame / 4);
  const auto w = hann(frame);
  Spectrum s;
  s.bin_hz = rate_hz / static_cast<double>(frame);
  s.magnitude.assign(frame / 2 + 1, 0.0);
  int frames = 0;
  std::vector<double> in(frame);
  for (std::size_t start = 0; start + frame <= x.size(); start += hop, ++frames) {
    for (std::size_t i = 0; i < frame; ++i) in[i] = x[start + i] * w[i];
    const auto out = real_fft(in);
    for (std::size_t k = 0; k < out.size(); ++k) s.magnitude[k] += std::norm(out[k]);
  }
  if (frames > 0)
    for (double& p : s.magnitude) p /= frames;
  return s;
}

BandLevels band_levels(const Spectrum& power, double lo_hz, double hi_hz, int bands_per_octave) {
  BandLevels out;
  const double step = std::pow(2.0, 1.0 / bands_per_octave);
  for (double lo = lo_hz; lo < hi_hz; lo *= step) {
    const double hi = std::min(lo * step, hi_hz);
    const auto a = static_cast<std::size_t>(std::ceil(lo / power.bin_hz));
    const auto b = static_cast<std::size_t>(std::floor(hi / power.bin_hz));
    double sum = 0;
    int count = 0;
    for (std::size_t k = a; k <= b && k < power.magnitude.size(); ++k) sum += power.magnitude[k], ++count;
    if (count == 0) continue;
    out.centre_hz.push_back(std::sqrt(lo * hi));
    out.level_db.push_back(10 * std::log10(std::max(sum / count, 1e-30)));
  }
  return out;
}

Spectrogram spectrogram(const std::vector<float>& x, double rate_hz, std::size_t frame,
                        std::size_t hop, std::size_t begin) {
  Spectrogram sg;
  sg.frame = frame;
  sg.bin_hz = rate_hz / static_cast<double>(frame);
  const auto w = hann(frame);
  std::vector<double> in(frame);
  for (std::size_t start = begin; start + frame <= x.size(); start += hop) {
    for (std::size_t i = 0; i < frame; ++i) in[i] = x[start + i] * w[i];
    const auto out = real_fft(in);
    std::vector<float> p(out.size());
    for (std::size_t k = 0; k < out.size(); ++k) p[k] = static_cast<float>(std::norm(out[k]));
    sg.power.push_back(std::move(p));
    sg.time_s.push_back((static_cast<double>(start) + 0.5 * static_cast<double>(frame)) / rate_hz);
  }
  return sg;
}

double fit_slope(const std::vector<double>& x, const std::vector<double>& y, double* r_squared) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i], syy += y[i] * y[i];
  const double vx = n * sxx - sx * sx, vy = n * syy - sy * sy, cxy = n * sxy - sx * sy;
  if (r_squared) *r_squared = vx > 0 && vy > 0 ? cxy * cxy / (vx * vy) : 0;
  return vx > 0 ? cxy / vx : 0;
}

std::vector<double> band_energy_db(const Spectrogram& sg, double lo_hz, double hi_hz) {
  std::vector<double> level_db;
  if (sg.power.empty()) return level_db;
  const std::size_t bins = sg.power.front().size();
  const auto a = static_cast<std::size_t>(std::max(0.0, std::floor(lo_hz / sg.bin_hz)));
  const auto b = std::min(bins - 1, static_cast<std::size_t>(std::ceil(hi_hz / sg.bin_hz)));
  for (const auto& frame : sg.power) {
    double e = 0;
    for (std::size_t k = a; k <= b; ++k) e += frame[k];
    level_db.push_back(10 * std::log10(std::max(e, 1e-300)));
  }
  return level_db;
}

DecayFit band_decay(const Spectrogram& sg, double lo_hz, double hi_hz, double range_db) {
  DecayFit fit;
  if (sg.power.empty()) return fit;
  const std::vector<double> level_db = band_energy_db(sg, lo_hz, hi_hz);
  const auto top = std::max_element(level_db.begin(), level_db.end()) - level_db.begin();
  std::vector<double> t, y;
  for (std::size_t i = static_cast<std::size_t>(top); i < level_db.size(); ++i) {
    if (level_db[i] < level_db[top] - range_db) break;
    t.push_back(sg.time_s[i]);
    y.push_back(level_db[i]);
  }
  fit.frames_used = static_cast<int>(t.size());
  if (t.size() < 3) return fit;
  fit.slope_db_per_s = fit_slope(t, y, &fit.r_squared);
  fit.fit_range_db = y.front() - y.back();
  fit.t60_s = fit.slope_db_per_s < 0 ? -60.0 / fit.slope_db_per_s : INFINITY;
  return fit;
}

ConditionedRecording condition_recording(const std::vector<float>& x, double rate_hz, double highpass_hz) {
  ConditionedRecording c;
  const std::size_t n = x.size();
  double mean = 0;
  for (float v : x) mean += v;
  mean /= std::max<std::size_t>(n, 1);
  // 2nd-order Butterworth high-pass, bilinear transform with pre-warping.
  const double k = std::tan(M_PI * std::min(highpass_hz, 0.4 * rate_hz) / rate_hz);
  const double q = M_SQRT1_2, norm = 1 / (1 + k / q + k * k);
  const double b0 = norm, b1 = -2 * norm, b2 = norm;
  const double a1 = 2 * (k * k - 1) * norm, a2 = (1 - k / q + k * k) * norm;
  double x1 = 0, x2 = 0, y1 = 0, y2 = 0;
  c.samples.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double in = x[i] - mean;
    const double out = b0 * in + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
    x2 = x1, x1 = in, y2 = y1, y1 = out;
    c.samples[i] = static_cast<float>(out);
  }
  const std::size_t frame = std::max<std::size_t>(16, static_cast<std::size_t>(0.0025 * rate_hz));
  const std::size_t frames = n / frame;
  if (frames < 4) return c;
  std::vector<double> level(frames);
  for (std::size_t f = 0; f < frames; ++f) level[f] = rms(c.samples, f * frame, frame);
  const std::size_t loudest = static_cast<std::size_t>(std::max_element(level.begin(), level.end()) - level.begin());
  // The floor: the median frame before the loudest (the pre-roll), else of the last tenth.
  std::vector<double> quiet(level.begin(), level.begin() + loudest);
  if (quiet.size() < 8) quiet.assign(level.end() - std::max<std::size_t>(frames / 10, 1), level.end());
  std::nth_element(quiet.begin(), quiet.begin() + quiet.size() / 2, quiet.end());
  const double floor = quiet[quiet.size() / 2];
  const double threshold = std::max(10 * floor, 0.01 * level[loudest]);
  std::size_t onset = loudest;
  for (std::size_t f = 0; f <= loudest; ++f)
    if (level[f] >= threshold) { onset = f; break; }
  while (onset > 0 && level[onset - 1] > 2 * floor) --onset;
  c.onset = static_cast<long long>(onset * frame);
  // The pre-roll, less a frame of margin, is the noise segment.
  const long long noise = c.onset - static_cast<long long>(frame);
  if (noise >= static_cast<long long>(0.05 * rate_hz)) {
    c.noise_length = noise;
    c.noise_rms = rms(c.samples, 0, static_cast<std::size_t>(noise));
  }
  return c;
}

std::vector<double> noise_magnitude(const std::vector<float>& x, double rate_hz, std::size_t begin,
                                    std::size_t length, std::size_t analysed_length, const Spectrum& like,
                                    double smooth) {
  const Spectrum s = magnitude_spectrum(x, rate_hz, 4, begin, length);
  // Power prefix sums for the moving average over ±smooth relative frequency.
  std::vector<double> prefix(s.magnitude.size() + 1, 0.0);
  for (std::size_t i = 0; i < s.magnitude.size(); ++i) prefix[i + 1] = prefix[i] + s.magnitude[i] * s.magnitude[i];
  const double scale = std::sqrt(static_cast<double>(analysed_length) / std::max<std::size_t>(length, 1));
  std::vector<double> out(like.magnitude.size());
  const long last = static_cast<long>(s.magnitude.size()) - 1;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double f = static_cast<double>(i) * like.bin_hz;
    const long lo = std::clamp(static_cast<long>(std::floor(f * (1 - smooth) / s.bin_hz)) - 1, 0L, last);
    const long hi = std::clamp(static_cast<long>(std::ceil(f * (1 + smooth) / s.bin_hz)) + 1, lo, last);
    out[i] = scale * std::sqrt((prefix[hi + 1] - prefix[lo]) / static_cast<double>(hi - lo + 1));
  }
  return out;
}

long long onset_sample(const std::vector<float>& x, double fraction) {
  const double threshold = fraction * peak_abs(x);
  if (threshold <= 0) return -1;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::abs(x[i]) >= threshold) return static_cast<long long>(i);
  return -1;
}

long long best_lag(const std::vector<float>& a, const std::vector<float>& b, long long max_lag,
                   std::size_t window, int* polarity) {
  window = std::min({window, a.size(), b.size()});
  std::size_t m = 1;
  while (m < 2 * (window + static_cast<std::size_t>(max_lag))) m <<= 1;
  std::vector<double> x(m, 0.0), y(m, 0.0);
  for (std::size_t i = 0; i < window; ++i) x[i] = a[i], y[i] = b[i];
  const auto fx = real_fft(x), fy = real_fft(y);
  // Cross-correlation r[k] = Σ a[n] b[n − k] = IFFT(A · conj(B)).
  std::vector<std::complex<double>> product(fx.size());
  for (std::size_t k = 0; k < fx.size(); ++k) product[k] = fx[k] * std::conj(fy[k]);
  std::vector<double> r(m);
  fftw_plan plan;
  {
    std::lock_guard lock(g_plan_mutex);
    plan = fftw_plan_dft_c2r_1d(static_cast<int>(m), reinterpret_cast<fftw_complex*>(product.data()),
                                r.data(), FFTW_ESTIMATE);
  }
  fftw_execute(plan);
  {
    std::lock_guard lock(g_plan_mutex);
    fftw_destroy_plan(plan);
  }
  long long best = 0;
  double best_value = 0;
  for (long long k = -max_lag; k <= max_lag; ++k) {
    const double v = r[static_cast<std::size_t>((k + static_cast<long long>(m)) % static_cast<long long>(m))];
    if (std::abs(v) > std::abs(best_value)) best_value = v, best = k;
  }
  if (polarity) *polarity = best_value < 0 ? -1 : 1;
  return best;
}

std::size_t power_of_two_at_most(double n) {
  std::size_t p = 1;
  while (static_cast<double>(p * 2) <= n) p <<= 1;
  return p;
}

std::size_t decay_frame(double rate_hz, std::size_t length) {
  return std::clamp<std::size_t>(power_of_two_at_most(std::min(0.09 * rate_hz, length / 6.0)), 256, 16384);
}

double rms(const std::vector<float>& x, std::size_t begin, std::size_t length) {
  if (begin >= x.size()) return 0;
  const std::size_t n = length == 0 ? x.size() - begin : std::min(length, x.size() - begin);
  double sum = 0;
  for (std::size_t i = begin; i < begin + n; ++i) sum += static_cast<double>(x[i]) * x[i];
  return n ? std::sqrt(sum / static_cast<double>(n)) : 0;
}

double peak_abs(const std::vector<float>& x) {
  double p = 0;
  for (float v : x) p = std::max(p, static_cast<double>(std::abs(v)));
  return p;
}

}  // namespace mesh2dsp::signal
