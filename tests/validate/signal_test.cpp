// The measures on synthetic signals whose answers are known exactly: decaying sinusoids at
// given frequencies and T60s, a degenerate pair, a missing and a spurious peak.
#include <gtest/gtest.h>

#include <cmath>

#include "validate/comparison.hpp"
#include "validate/mode_matching.hpp"
#include "validate/plots.hpp"
#include "validate/signal_analysis.hpp"

using namespace mesh2dsp;
using namespace mesh2dsp::validate;

namespace {

constexpr double kRate = 48000;

struct Partial {
  double frequency_hz, t60_s, amplitude;
};

std::vector<float> ring(const std::vector<Partial>& partials, double duration_s, int delay = 0) {
  std::vector<float> x(static_cast<std::size_t>(duration_s * kRate), 0.0f);
  for (const auto& p : partials) {
    const double sigma = std::log(1000.0) / p.t60_s;
    for (std::size_t i = delay; i < x.size(); ++i) {
      const double t = (i - delay) / kRate;
      x[i] += static_cast<float>(p.amplitude * std::exp(-sigma * t) * std::sin(2 * M_PI * p.frequency_hz * t));
    }
  }
  return x;
}

std::vector<ExpectedMode> expected(const std::vector<Partial>& partials) {
  std::vector<ExpectedMode> m;
  for (const auto& p : partials) m.push_back({p.frequency_hz, p.t60_s, p.amplitude});
  return m;
}

}  // namespace

TEST(Signal, InterpolatedPeaksAndBandDecayRecoverFrequencyAndT60) {
  const std::vector<Partial> partials{{440, 1.2, 1}, {1234.5, 0.5, 0.5}, {5000, 0.2, 0.3}};
  const auto x = ring(partials, 0.8);
  const auto s = signal::magnitude_spectrum(x, kRate);
  const auto sg = signal::spectrogram(x, kRate, 2048, 512);
  for (const auto& p : partials) {
    const double f = s.peak_in(0.97 * p.frequency_hz, 1.03 * p.frequency_hz);
    EXPECT_NEAR(f / p.frequency_hz, 1, 2e-4) << p.frequency_hz;
    const auto fit = signal::band_decay(sg, p.frequency_hz - 50, p.frequency_hz + 50);
    EXPECT_NEAR(fit.t60_s / p.t60_s, 1, 0.03) << p.frequency_hz;
  }
  const auto peaks = signal::find_peaks(s, 100, 10000, 60, 6);
  ASSERT_GE(peaks.size(), 3u);
}

TEST(Signal, OnsetAndLagFindADelayAndAnInvertedPolarity) {
  const auto a = ring({{700, 0.5, 1}, {1900, 0.3, 0.4}}, 0.4, 0);
  auto b = ring({{700, 0.5, 1}, {1900, 0.3, 0.4}}, 0.4, 72);
  for (float& v : b) v = -v;
  int polarity = 0;
  EXPECT_EQ(signal::best_lag(b, a, 2400, 9600, &polarity), 72);
  EXPECT_EQ(polarity, -1);
  EXPECT_GE(signal::onset_sample(b), 72);
}

TEST(Matching, DegeneratePairIsOneGroupMissingAndSpuriousAreNamed) {
  // Model: a pair 0.5 Hz apart (unresolvable in 0.5 s), 2000 Hz, 3000 Hz. The reference lacks
  // 3000 Hz and has an extra loud peak at 1500 Hz.
  const std::vector<Partial> model{{1000, 0.8, 1}, {1000.5, 0.8, 1}, {2000, 0.5, 0.8}, {3000, 0.4, 0.8}};
  const auto generated = ring(model, 0.5);
  const auto reference = ring({{1000.2, 0.8, 2}, {2000, 0.5, 0.8}, {1500, 0.4, 0.8}}, 0.5);
  CompareSettings settings;
  settings.sample_rate_hz = kRate;
  settings.band_hi_hz = 5000;
  settings.expected_delay_s = 0;
  Tolerances tol;
  const auto c = compare(reference, generated, expected(model), settings, tol);
  ASSERT_EQ(c.match.groups.size(), 3u);
  EXPECT_EQ(c.match.groups[0].modes.size(), 2u);
  EXPECT_EQ(c.match.groups[0].status, MatchStatus::matched);
  EXPECT_EQ(c.match.groups[2].status, MatchStatus::missing);
  EXPECT_FALSE(c.passed);
  bool missing = false, spurious = false;
  for (const auto& f : c.failures) {
    missing |= f.starts_with("missing modes") && f.find("mode 3") != std::string::npos;
    spurious |= f.starts_with("spurious peaks") && f.find("1500") != std::string::npos;
  }
  EXPECT_TRUE(missing);
  EXPECT_TRUE(spurious);
}

TEST(Matching, IdenticalSignalsPassAndAThreePercentShiftFailsOnFrequency) {
  const std::vector<Partial> model{{523, 1.0, 1}, {1410, 0.6, 0.6}, {2760, 0.4, 0.5}, {4560, 0.3, 0.3}};
  const auto generated = ring(model, 0.6);
  CompareSettings settings;
  settings.sample_rate_hz = kRate;
  settings.expected_delay_s = 0;
  Tolerances tol;
  const auto same = compare(generated, generated, expected(model), settings, tol);
  EXPECT_TRUE(same.passed) << (same.failures.empty() ? "" : same.failures[0]);
  EXPECT_LT(same.lsd_db, 0.01);

  std::vector<Partial> shifted = model;
  for (auto& p : shifted) p.frequency_hz *= 1.03;
  const auto c = compare(ring(shifted, 0.6), generated, expected(model), settings, tol);
  EXPECT_FALSE(c.passed);
  ASSERT_FALSE(c.failures.empty());
  EXPECT_TRUE(c.failures[0].starts_with("frequency")) << c.failures[0];
  EXPECT_NE(c.failures[0].find("+3.00 %"), std::string::npos) << c.failures[0];

  settings.align_fundamental = true;
  const auto aligned = compare(ring(shifted, 0.6), generated, expected(model), settings, tol);
  ASSERT_TRUE(aligned.aligned.has_value());
  EXPECT_NEAR(aligned.aligned->scale, 1.03, 1e-3);
  EXPECT_EQ(aligned.aligned->matched, aligned.aligned->judged);
  EXPECT_FALSE(aligned.passed) << "alignment is reported beside the raw verdict, never instead";
}

TEST(Plots, PngAndBase64AreWellFormed) {
  const std::vector<unsigned char> rgb(4 * 3 * 3, 200);
  const std::string png = encode_png(4, 3, rgb);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  EXPECT_EQ(base64("Man"), "TWFu");
  EXPECT_EQ(base64("Ma"), "TWE=");
  EXPECT_EQ(base64("M"), "TQ==");
}
