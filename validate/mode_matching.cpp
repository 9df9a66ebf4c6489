#include "validate/mode_matching.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace mesh2dsp::validate {
namespace {

double db_re(double magnitude, double reference) {
  return 20 * std::log10(std::max(magnitude, 1e-300) / std::max(reference, 1e-300));
}

// Level (dB re the spectrum's maximum) of the largest bin within ±2 bins of f.
double level_near(const signal::Spectrum& s, double f_hz) {
  const int i = static_cast<int>(std::lround(f_hz / s.bin_hz));
  double m = 0;
  for (int k = std::max(0, i - 2); k <= std::min<int>(static_cast<int>(s.magnitude.size()) - 1, i + 2); ++k)
    m = std::max(m, s.magnitude[k]);
  return db_re(m, s.max());
}

}  // namespace

std::string to_string(MatchStatus status) {
  switch (status) {
    case MatchStatus::matched: return "matched";
    case MatchStatus::shifted: return "shifted";
    case MatchStatus::missing: return "missing";
    case MatchStatus::weak: return "weak";
  }
  return "?";
}

std::vector<signal::Peak> reference_peaks(const signal::Spectrum& reference, double lo_hz, double hi_hz,
                                          const MatchSettings& settings) {
  auto peaks = signal::find_peaks(reference, lo_hz, hi_hz, settings.floor_db, settings.min_prominence_db);
  const auto& noise = settings.reference_noise_magnitude;
  if (noise.size() == reference.magnitude.size()) {
    const double margin = std::pow(10.0, settings.noise_margin_db / 20);
    std::erase_if(peaks, [&](const signal::Peak& p) {
      const auto bin = static_cast<std::size_t>(std::lround(p.frequency_hz / reference.bin_hz));
      return bin >= noise.size() || std::pow(10.0, p.level_db / 20) < margin * noise[bin];
    });
  }
  return peaks;
}

MatchResult match_modes(const std::vector<double>& model_hz, const std::vector<double>& weights,
                        const signal::Spectrum& generated, const signal::Spectrum& reference,
                        double band_lo_hz, double band_hi_hz, double tolerance,
                        const MatchSettings& settings) {
  MatchResult result;
  result.band_lo_hz = band_lo_hz;
  result.band_hi_hz = band_hi_hz;
  const double scale = settings.frequency_scale;

  // Degenerate groups: modes the analysis cannot tell apart are one expected peak (Hiner 2024 §4).
  for (std::size_t i = 0; i < model_hz.size(); ++i) {
    const double f = model_hz[i] * scale;
    if (f < band_lo_hz || f > band_hi_hz) {
      result.outside.push_back({static_cast<int>(i), f, f < band_lo_hz
          ? fmt::format("below the compared band ({:.0f} Hz: --fmin, or 20 Hz)", band_lo_hz)
          : fmt::format("above the compared band ({:.0f} Hz: the lower of the audible 20 kHz, --fmax, "
                        "0.49 x the sample rate and the model's highest mode)", band_hi_hz)});
      continue;
    }
    if (!result.groups.empty() &&
        f - model_hz[result.groups.back().modes.back()] * scale < settings.resolution_hz)
      result.groups.back().modes.push_back(static_cast<int>(i));
    else
      result.groups.push_back({{static_cast<int>(i)}});
  }
  for (auto& g : result.groups) {
    double sum = 0, weight = 0;
    for (int m : g.modes) {
      const double w = std::max(std::abs(weights.at(m)), 1e-300);
      sum += w * model_hz[m] * scale;
      weight += w;
    }
    g.model_hz = sum / weight;
  }

  const auto peaks = reference_peaks(reference, band_lo_hz * (1 - settings.search),
                                     band_hi_hz * (1 + settings.search), settings);
  std::vector<char> used(peaks.size(), 0);
  // Levels re the strongest bin in the band: DC, rumble or a rigid drift below it are not
  // what "audible" is measured against.
  auto band_max = [&](const signal::Spectrum& sp) {
    double m = 0;
    const auto a = static_cast<std::size_t>(std::max(0.0, band_lo_hz / sp.bin_hz));
    const auto b = std::min(sp.magnitude.size(), static_cast<std::size_t>(band_hi_hz / sp.bin_hz) + 1);
    for (std::size_t k = a; k < b; ++k) m = std::max(m, sp.magnitude[k]);
    return m > 0 ? m : sp.max();
  };
  const double reference_top_db = db_re(band_max(reference), 1);
  const double generated_max = band_max(generated);

  for (std::size_t i = 0; i < result.groups.size(); ++i) {
    ModeGroup& g = result.groups[i];
    // The window: ±search, but never past halfway to a neighbouring group, so one peak is
    // claimed by one group at most.
    g.lo_hz = g.model_hz * (1 - settings.search);
    g.hi_hz = g.model_hz * (1 + settings.search);
    if (i > 0) g.lo_hz = std::max(g.lo_hz, 0.5 * (g.model_hz + result.groups[i - 1].model_hz));
    if (i + 1 < result.groups.size())
      g.hi_hz = std::min(g.hi_hz, 0.5 * (g.model_hz + result.groups[i + 1].model_hz));

    // The generated peak, searched where the model puts the mode (unscaled spectrum).
    double height = 0;
    const double f_generated = generated.peak_in(g.lo_hz / scale, g.hi_hz / scale, &height);
    g.generated_db = db_re(height, generated_max);
    g.generated_hz = f_generated > 0 ? f_generated * scale : g.model_hz;
    const bool generated_audible = f_generated > 0 && g.generated_db >= -settings.judge_floor_db;
    // The strongest reference peak in the window (where the reference integrator shows it).
    const double dt = settings.reference_newmark_dt_s;
    const double shown = dt > 0 && !settings.generated_prewarped
                             ? std::atan(M_PI * g.model_hz * dt) / (M_PI * g.model_hz * dt) : 1.0;
    int best = -1;
    for (std::size_t p = 0; p < peaks.size(); ++p) {
      const auto& peak = peaks[p];
      if (peak.frequency_hz < g.lo_hz * shown || peak.frequency_hz > g.hi_hz * shown) continue;
      if (best < 0 || peak.level_db > peaks[best].level_db) best = static_cast<int>(p);
    }
    if (best >= 0) {
      used[best] = 1;
      g.reference_hz = peaks[best].frequency_hz;
      g.reference_db = peaks[best].level_db - reference_top_db;
      g.raw_frequency_error = g.reference_hz / g.generated_hz - 1;
      g.frequency_error = g.raw_frequency_error;
      if (settings.reference_newmark_dt_s > 0) {
        // Both renders show the modes at the trapezoidal rule's warp (the generated one
        // pre-warped): judge in continuous time, f = tan(π f̃ Δt)/(πΔt) (newmark.hpp), which is
        // exact, so the verdict does not depend on Δt.
        const double dt = settings.reference_newmark_dt_s;
        auto unwarp = [dt](double f) { return std::tan(M_PI * f * dt) / (M_PI * dt); };
        g.reference_continuous_hz = unwarp(g.reference_hz);
        const double generated_true = settings.generated_prewarped ? unwarp(g.generated_hz) : g.generated_hz;
        g.integrator_shift = g.reference_hz / g.reference_continuous_hz - 1;
        g.frequency_error = g.reference_continuous_hz / generated_true - 1;
      } else {
        g.reference_continuous_hz = g.reference_hz;
      }
    }
    const bool reference_audible = best >= 0 && g.reference_db >= -settings.judge_floor_db;
    if (!generated_audible && !reference_audible) {
      g.status = MatchStatus::weak;
      g.note = fmt::format("{} in the generated render, {} in the reference (re each one's strongest peak): "
                           "below the {:.0f} dB audible floor in both",
                           f_generated > 0 ? fmt::format("{:.0f} dB", g.generated_db) : "no peak",
                           best >= 0 ? fmt::format("{:.0f} dB", g.reference_db) : "no peak",
                           settings.judge_floor_db);
      continue;
    }
    if (best < 0) g.status = MatchStatus::missing;
    else g.status = std::abs(g.frequency_error) <= tolerance ? MatchStatus::matched : MatchStatus::shifted;
  }

  // Spurious: a reference peak no group claimed, where the reference has clearly more energy
  // (≥ 10 dB, each re its maximum) than the generated render. A window's side lobes, which
  // the generated render shows as well, are not spurious.
  for (std::size_t p = 0; p < peaks.size(); ++p) {
    if (used[p]) continue;
    const auto& peak = peaks[p];
    if (peak.frequency_hz < band_lo_hz || peak.frequency_hz > band_hi_hz) continue;
    const double level = peak.level_db - reference_top_db;
    if (level < -settings.judge_floor_db) continue;
    if (level - level_near(generated, peak.frequency_hz / scale) < 10) continue;
    result.spurious.push_back({peak.frequency_hz, level});
  }
  return result;
}

}  // namespace mesh2dsp::validate
