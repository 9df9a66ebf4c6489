#pragma once
// Audio helpers shared by the emitter tests: spectra (FFTW), WAV and raw float32 files.
#include <fftw3.h>
#include <sndfile.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "modal/modal_model.hpp"
#include "test_support.hpp"

namespace emit_test {

// Magnitude spectrum of a Hann-windowed, zero-padded signal.
inline std::vector<double> spectrum(const std::vector<float>& x, size_t size) {
  std::vector<float> in(size, 0.0f);
  const size_t n = std::min(x.size(), size);
  for (size_t i = 0; i < n; ++i) in[i] = x[i] * static_cast<float>(0.5 - 0.5 * std::cos(2 * M_PI * i / n));
  std::vector<fftwf_complex> out(size / 2 + 1);
  fftwf_plan plan = fftwf_plan_dft_r2c_1d(static_cast<int>(size), in.data(), out.data(), FFTW_ESTIMATE);
  fftwf_execute(plan);
  fftwf_destroy_plan(plan);
  std::vector<double> mag(out.size());
  for (size_t k = 0; k < out.size(); ++k) mag[k] = std::hypot(out[k][0], out[k][1]);
  return mag;
}

// Welch's power spectrum: the mean of |spectrum|^2 over half-overlapping Hann frames.
inline std::vector<double> welch_power(const std::vector<float>& x, size_t frame) {
  std::vector<double> power(frame / 2 + 1, 0.0);
  int frames = 0;
  for (size_t start = 0; start + frame <= x.size(); start += frame / 2, ++frames) {
    const auto mag = spectrum(std::vector<float>(x.begin() + start, x.begin() + start + frame), frame);
    for (size_t k = 0; k < power.size(); ++k) power[k] += mag[k] * mag[k];
  }
  for (double& p : power) p /= std::max(frames, 1);
  return power;
}

// The strongest peak within +-2 % of `hz`, refined by a parabola through log magnitudes.
inline double peak_near(const std::vector<double>& mag, double bin_hz, double hz) {
  const size_t lo = static_cast<size_t>(hz * 0.98 / bin_hz), hi = static_cast<size_t>(hz * 1.02 / bin_hz);
  size_t best = lo;
  for (size_t k = lo; k <= hi && k + 1 < mag.size(); ++k)
    if (mag[k] > mag[best]) best = k;
  const double a = std::log(mag[best - 1]), b = std::log(mag[best]), c = std::log(mag[best + 1]);
  return (best + 0.5 * (a - c) / (a - 2 * b + c)) * bin_hz;
}

// A render made by some host (Pd, scsynth, a JACK client, an emulator ...) rings at the model's
// frequencies: every one below `below_hz` has a spectral peak within `tolerance` of it, and the
// render is not silent. Channel `channel` of `channels` interleaved.
inline void expect_peaks_at(const std::vector<float>& interleaved, int channels, int channel, int rate,
                            const std::vector<double>& frequencies_hz, double below_hz,
                            const std::string& what, double tolerance = 0.005) {
  std::vector<float> x;
  for (size_t i = channel; i < interleaved.size(); i += channels) x.push_back(interleaved[i]);
  double peak = 0;
  for (float v : x) peak = std::max(peak, double(std::abs(v)));
  ASSERT_GT(peak, 1e-3) << what << ": silent (" << x.size() << " samples)";
  size_t size = 1;
  while (size < 4 * x.size()) size *= 2;
  const auto mag = spectrum(x, size);
  int checked = 0;
  for (double hz : frequencies_hz) {
    if (hz >= below_hz) continue;
    const double found = peak_near(mag, double(rate) / size, hz);
    EXPECT_NEAR(found / hz, 1.0, tolerance) << what << ": the " << hz << " Hz mode peaks at " << found << " Hz";
    ++checked;
  }
  EXPECT_GT(checked, 0) << what;
}

// The model's frequencies that ring long enough to show as peaks in a spectrum over a whole
// render (the Hann window weights its first 50 ms by less than 3 %).
inline std::vector<double> ringing_frequencies(const fs::path& model, double min_t60_s = 0.1) {
  std::vector<double> hz;
  for (const auto& m : mesh2dsp::read_modal_model(model).modes)
    if (m.t60_s >= min_t60_s) hz.push_back(m.frequency_hz);
  return hz;
}

inline std::vector<float> read_wav(const fs::path& path, int& rate, int& channels) {
  SF_INFO info{};
  SNDFILE* f = sf_open(path.c_str(), SFM_READ, &info);
  if (!f) return {};
  std::vector<float> samples(info.frames * info.channels);
  sf_readf_float(f, samples.data(), info.frames);
  sf_close(f);
  rate = info.samplerate;
  channels = info.channels;
  return samples;
}

inline std::vector<float> read_f32(const fs::path& path) {
  const std::string bytes = read_text(path);
  std::vector<float> samples(bytes.size() / sizeof(float));
  std::memcpy(samples.data(), bytes.data(), samples.size() * sizeof(float));
  return samples;
}

}  // namespace emit_test
