// The pressure filters of O'Brien et al. §3.2: the windowed-sinc low-pass with sub-sampling
// (eqs. 6–8) and the DC blocker (eq. 9).
#include <gtest/gtest.h>

#include <cmath>

#include "filters.hpp"

using namespace mesh2dsp;

namespace {

// Pushes sin(2πft) + offset sampled every dt through the decimator; returns the audio output.
std::vector<double> decimate(double frequency_hz, double offset, double dt, double rate,
                             double cutoff, double seconds) {
  SincDecimator filter(1, dt, rate, cutoff, Eigen::VectorXd::Constant(1, offset));
  std::vector<double> out;
  Eigen::VectorXd frame(1), audio;
  const long long steps = static_cast<long long>(seconds / dt);
  for (long long n = 0; n < steps; ++n) {
    frame[0] = offset + std::sin(2 * M_PI * frequency_hz * n * dt);
    filter.push(frame);
    while (filter.pop(audio)) out.push_back(audio[0]);
  }
  return out;
}

double amplitude(const std::vector<double>& x, size_t skip) {
  double peak = 0;
  for (size_t i = skip; i < x.size(); ++i) peak = std::max(peak, std::abs(x[i]));
  return peak;
}

}  // namespace

TEST(Filters, KernelIsTheWindowedSincOfEq6) {
  const double fmax = 20000, half = 3 / fmax;
  EXPECT_DOUBLE_EQ(windowed_sinc(0, fmax, half), 2 * fmax);  // sinc(0) = 2 f_max
  EXPECT_EQ(windowed_sinc(1.01 * half, fmax, half), 0.0);    // win(u) = 0 for |u| > 1
  const double t = 0.3 * half;
  EXPECT_NEAR(windowed_sinc(t, fmax, half),
              std::sin(2 * M_PI * fmax * t) / (M_PI * t) * (0.5 + 0.5 * std::cos(M_PI * 0.3)), 1e-9);
}

TEST(Filters, LowPassKeepsTheBandAndRemovesContentAboveFmax) {
  const double dt = 1.0 / (4 * 48000), rate = 48000, cutoff = 20000;
  // In band: unit gain within 1 %.
  EXPECT_NEAR(amplitude(decimate(1000, 0, dt, rate, cutoff, 0.02), 100), 1.0, 0.01);
  EXPECT_NEAR(amplitude(decimate(5000, 0, dt, rate, cutoff, 0.02), 100), 1.0, 0.01);
  // Above f_max (30 kHz would alias to 18 kHz at 48 kHz): removed to below 1 %.
  EXPECT_LT(amplitude(decimate(30000, 0, dt, rate, cutoff, 0.02), 100), 0.01);
  EXPECT_LT(amplitude(decimate(60000, 0, dt, rate, cutoff, 0.02), 100), 0.01);
  // A step that does not divide the audio period works the same way.
  EXPECT_NEAR(amplitude(decimate(2000, 0, 3.1e-6, rate, cutoff, 0.02), 100), 1.0, 0.01);
  EXPECT_LT(amplitude(decimate(40000, 0, 3.1e-6, rate, cutoff, 0.02), 100), 0.01);
}

TEST(Filters, DecimatorProducesOneFramePerAudioSampleTimeAligned) {
  const double dt = 1.0 / (4 * 48000);
  const auto out = decimate(1000, 0, dt, 48000, 20000, 0.01);
  // 0.01 s of steps gives the audio frames whose kernel support ends before 0.01 s.
  EXPECT_NEAR(static_cast<double>(out.size()), 0.01 * 48000 - 3.0 / 20000 * 48000, 2);
  // No delay: output j is the input at t = j/fs (a 1 kHz sine stays in phase).
  for (int j = 50; j < 300; ++j) EXPECT_NEAR(out[j], std::sin(2 * M_PI * 1000 * j / 48000.0), 1e-3);
}

TEST(Filters, DcBlockerRemovesAConstantOffset) {
  DcBlocker blocker(1, 0.1);
  Eigen::VectorXd frame(1);
  const double rate = 48000;
  double last = 0, peak_ac = 0;
  for (int i = 0; i < 4800; ++i) {
    // Silence, then a constant pressure offset of 5 Pa plus a 3 kHz tone.
    const double t = i / rate;
    frame[0] = i < 100 ? 0.0 : 5.0 + std::sin(2 * M_PI * 3000 * t);
    blocker.process(frame);
    last = frame[0];
    if (i > 2400) peak_ac = std::max(peak_ac, std::abs(frame[0]));
  }
  (void)last;
  // The offset is gone: the output swings around zero with the tone's amplitude
  // (|H| at 3 kHz for α = 0.1 at 48 kHz is about 0.97).
  EXPECT_LT(peak_ac, 1.05);
  EXPECT_GT(peak_ac, 0.9);
  // A pure constant decays to nothing: (1 − α)^n.
  DcBlocker pure(1, 0.1);
  frame[0] = 0;
  pure.process(frame);
  for (int i = 0; i < 200; ++i) {
    frame[0] = 5.0;
    pure.process(frame);
  }
  EXPECT_LT(std::abs(frame[0]), 1e-6);
}
