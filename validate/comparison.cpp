#include "validate/comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "util/error.hpp"
#include "validate/recording_fit.hpp"

namespace mesh2dsp::validate {
namespace {

std::string modes_text(const ModeGroup& g) {
  std::string s;
  for (int m : g.modes) s += (s.empty() ? "" : "+") + std::to_string(m);
  return (g.modes.size() > 1 ? "degenerate modes " : "mode ") + s;
}

void add_measure(Comparison& c, Measure m) {
  if (m.judged && !m.passed) {
    c.passed = false;
    c.failures.push_back(fmt::format("{}: {}", m.name, m.detail));
  }
  c.measures.push_back(std::move(m));
}

// T60 of every matched group from the slope of its band energy (band between the groups on
// either side, at least the STFT's main lobe), in both signals.
// `match`: the raw match, or for a recording the match after the fitted scale (its generated
// frequencies × scale: the generated render's bands are at them ÷ scale). A recording's decays
// are fitted only down to its noise floor (`noise`: the pre-roll; none: 40 dB as for a render).
void measure_decays(Comparison& c, const MatchResult& match, double scale, const std::vector<float>& reference,
                    const std::vector<float>& generated, const std::vector<ExpectedMode>& modes,
                    double rate_hz, const std::vector<float>* noise) {
  // Frames: ~85 ms at 48 kHz (11.7 Hz bins), shorter for short signals so at least ~8 frames fit.
  c.decay_frame = signal::decay_frame(rate_hz, static_cast<std::size_t>(c.length));
  const std::size_t hop = c.decay_frame / 4;
  std::vector<float> ref(reference.begin() + c.reference_start,
                         reference.begin() + c.reference_start + c.length);
  std::vector<float> gen(generated.begin() + c.generated_start,
                         generated.begin() + c.generated_start + c.length);
  const auto sg_ref = signal::spectrogram(ref, rate_hz, c.decay_frame, hop);
  const auto sg_gen = signal::spectrogram(gen, rate_hz, c.decay_frame, hop);
  const double lobe_hz = 2 * rate_hz / static_cast<double>(c.decay_frame);  // Hann main lobe half-width
  const auto& groups = match.groups;
  const signal::Spectrogram sg_noise = noise && noise->size() >= c.decay_frame
      ? signal::spectrogram(*noise, rate_hz, c.decay_frame, hop) : signal::Spectrogram{};
  for (std::size_t i = 0; i < groups.size(); ++i) {
    ModeRow row;
    row.group = groups[i];
    double t60 = 0, weight = 0;
    for (int m : groups[i].modes) {
      t60 += modes[m].weight * modes[m].t60_s;
      weight += modes[m].weight;
    }
    row.model_t60_s = weight > 0 ? t60 / weight : modes[groups[i].modes.front()].t60_s;
    const double f = groups[i].generated_hz;
    const double below = i > 0 ? f - groups[i - 1].generated_hz : INFINITY;
    const double above = i + 1 < groups.size() ? groups[i + 1].generated_hz - f : INFINITY;
    const double half = std::max(lobe_hz, 0.004 * f);
    if (groups[i].status == MatchStatus::weak) {
      row.t60_note = "too weak to judge";
    } else if (groups[i].status != MatchStatus::matched) {
      row.t60_note = "frequency not matched";
    } else if (std::min(below, above) < 2 * half) {
      row.t60_note = fmt::format("a neighbour within {:.0f} Hz shares the band", 2 * half);
    }
    row.generated_decay = signal::band_decay(sg_gen, (f - half) / scale, (f + half) / scale);
    const double fr = groups[i].reference_hz > 0 ? groups[i].reference_hz : f;
    if (!sg_noise.power.empty()) {
      const PartialDecay d = measure_partial_decay(sg_ref, sg_noise, fr, fr, {}, 10);
      row.reference_decay = d.fit;
      if (!d.measured && row.t60_note.empty()) row.t60_note = "the recording: " + d.note;
    } else {
      row.reference_decay = signal::band_decay(sg_ref, fr - half, fr + half);
    }
    if (row.t60_note.empty() && (row.generated_decay.frames_used < 4 || row.reference_decay.frames_used < 4))
      row.t60_note = "too few frames for a slope";
    if (row.t60_note.empty() && !(std::isfinite(row.generated_decay.t60_s) && std::isfinite(row.reference_decay.t60_s)))
      row.t60_note = "no decay in the analysed time";
    if (std::isfinite(row.generated_decay.t60_s) && row.generated_decay.t60_s > 0 &&
        std::isfinite(row.reference_decay.t60_s))
      row.t60_error = row.reference_decay.t60_s / row.generated_decay.t60_s - 1;
    row.t60_judged = row.t60_note.empty();
    c.rows.push_back(std::move(row));
  }
}

}  // namespace

Comparison compare(const std::vector<float>& reference_in, const std::vector<float>& generated_in,
                   const std::vector<ExpectedMode>& modes, const CompareSettings& s,
                   const Tolerances& tol) {
  Comparison c;
  const double rate = s.sample_rate_hz;
  c.sample_rate_hz = rate;
  signal::ConditionedRecording conditioned;
  std::vector<float> generated_conditioned;
  if (s.recording) {
    // Rumble: everything an octave below the lowest mode in the band (at most 100 Hz).
    double lowest_hz = INFINITY;
    for (const auto& m : modes)
      if (m.frequency_hz >= s.band_lo_hz) lowest_hz = std::min(lowest_hz, m.frequency_hz);
    const double highpass_hz = std::max(0.5 * s.band_lo_hz, std::min(100.0, 0.5 * lowest_hz));
    conditioned = signal::condition_recording(reference_in, rate, highpass_hz);
    // Mains hum (50 or 60 Hz and harmonics, found in the pre-roll) notched out, as `fit` does.
    if (conditioned.noise_length > 0) {
      int harmonics = 0;
      const double hum_hz = detect_hum_hz(conditioned.samples, rate, 0,
                                          static_cast<std::size_t>(conditioned.noise_length), &harmonics);
      if (hum_hz > 0) remove_hum(conditioned.samples, rate, hum_hz, harmonics);
    }
    // The same high-pass on the generated side: one measurement chain for both.
    generated_conditioned = signal::condition_recording(generated_in, rate, highpass_hz).samples;
  }
  const std::vector<float>& reference = s.recording ? conditioned.samples : reference_in;
  const std::vector<float>& generated = s.recording ? generated_conditioned : generated_in;
  if (signal::peak_abs(reference) <= 0) throw Error("the reference is silent");
  if (signal::peak_abs(generated) <= 0) throw Error("the generated render is silent");

  // Onset alignment: the lag that best aligns the two (cross-correlation of the first 200 ms,
  // ±50 ms), then both are analysed from the generated render's onset on.
  c.onset_reference_s = static_cast<double>(signal::onset_sample(reference)) / rate;
  c.onset_generated_s = static_cast<double>(signal::onset_sample(generated)) / rate;
  if (s.recording) {
    // Unknown latency and pre-roll: each signal from its own onset (a correlation with the
    // model is no help when the pre-roll is seconds long or the model detuned).
    c.generated_start = signal::onset_sample(generated);
    c.reference_start = conditioned.onset;
    c.lag_samples = c.reference_start - c.generated_start;
    c.onset_reference_s = static_cast<double>(conditioned.onset) / rate;
    c.reference_noise_rms = conditioned.noise_rms;
    c.reference_noise_s = static_cast<double>(conditioned.noise_length) / rate;
  } else {
    c.lag_samples = signal::best_lag(reference, generated, static_cast<long long>(0.05 * rate),
                                     static_cast<std::size_t>(0.2 * rate), &c.polarity);
    c.generated_start = signal::onset_sample(generated);
    c.reference_start = c.generated_start + c.lag_samples;
  }
  if (c.reference_start < 0) {
    c.generated_start -= c.reference_start;
    c.reference_start = 0;
  }
  c.length = std::min<long long>(static_cast<long long>(reference.size()) - c.reference_start,
                                 static_cast<long long>(generated.size()) - c.generated_start);
  if (c.length < static_cast<long long>(0.05 * rate))
    throw Error(fmt::format("the signals overlap for {:.3f} s after alignment; at least 0.05 s is needed",
                            std::max<long long>(c.length, 0) / rate));

  // Band: the audible band, below Nyquist, and not above the model's highest mode (the
  // reference holds every mode; the model only those it computed).
  double highest = 0;
  for (const auto& m : modes) highest = std::max(highest, m.frequency_hz);
  c.band_lo_hz = s.band_lo_hz;
  c.band_hi_hz = std::min({s.band_hi_hz, 0.5 * rate * 0.98, highest * (1 + s.matching.search / 2)});
  if (c.band_hi_hz <= c.band_lo_hz)
    throw Error(fmt::format("no model mode lies in the compared band {:.0f}-{:.0f} Hz (sample rate {} Hz)",
                            c.band_lo_hz, std::min(s.band_hi_hz, 0.5 * rate), rate));

  // Spectra of the aligned segments; modes closer than the Hann main lobe (2 bins of 1/length)
  // cannot be told apart and are grouped.
  // A recording: both analysed from their strikes with the falling half of a Hann (a full
  // Hann weighs a decaying partial's loudest part near zero and hides the fast ones).
  c.reference_spectrum = signal::magnitude_spectrum(reference, rate, 4, c.reference_start, c.length, s.recording);
  c.generated_spectrum = signal::magnitude_spectrum(generated, rate, 4, c.generated_start, c.length, s.recording);
  MatchSettings matching = s.matching;
  c.resolution_hz = std::max(matching.resolution_hz, 2 * rate / static_cast<double>(c.length));
  matching.resolution_hz = c.resolution_hz;
  matching.frequency_scale = 1;
  if (conditioned.noise_length > 0)
    matching.reference_noise_magnitude = signal::noise_magnitude(
        reference, rate, 0, static_cast<std::size_t>(conditioned.noise_length),
        static_cast<std::size_t>(c.length), c.reference_spectrum);
  std::vector<double> model_hz, weights;
  for (const auto& m : modes) model_hz.push_back(m.frequency_hz), weights.push_back(m.weight);
  c.match = match_modes(model_hz, weights, c.generated_spectrum, c.reference_spectrum, c.band_lo_hz,
                        c.band_hi_hz, tol.frequency, matching);
  // A recording (issue 29): one material scale (E/ρ) fitted first, the scale that explains the
  // most recorded partial strength (recording_fit.hpp); frequencies, decays, missing and
  // spurious peaks are judged after it, the raw errors kept beside (raw_frequency_error).
  if (s.recording) {
    // Fitted against what the generated render shows (a program pre-warped to a Newmark
    // recording shows its modes where the recording does, not at the model's frequencies).
    std::vector<double> audible_hz;
    for (const auto& g : c.match.groups)
      if (g.generated_db >= -matching.judge_floor_db) audible_hz.push_back(g.generated_hz > 0 ? g.generated_hz : g.model_hz);
    const auto peaks = reference_peaks(c.reference_spectrum, c.band_lo_hz * 0.5, c.band_hi_hz * 2, matching);
    std::vector<Partial> partials;
    for (const auto& p : peaks) {
      const auto bin = static_cast<std::size_t>(std::lround(p.frequency_hz / c.reference_spectrum.bin_hz));
      const auto& noise = matching.reference_noise_magnitude;
      const double floor_db = bin < noise.size() ? 20 * std::log10(std::max(noise[bin], 1e-300))
                                                 : 20 * std::log10(c.reference_spectrum.max()) - matching.floor_db;
      partials.push_back({p.frequency_hz, p.level_db, p.level_db - floor_db});
    }
    AlignedMatch fit;
    if (!audible_hz.empty() && !partials.empty()) {
      FitSettings fs;
      fs.tolerance = tol.frequency;
      fs.pair_spread = tol.frequency;
      fit.scale = match_scale(group_modes(audible_hz, fs.pair_spread), {cluster_partials(partials, fs.pair_spread)}, fs).scale;
    }
    MatchSettings scaled = matching;
    scaled.frequency_scale = fit.scale;
    // After the fit a partial lies within the tolerance or it is not this mode's: a ±5 % window
    // would take a neighbour's peak (or the room's) for a mode the strike or the microphone
    // did not reach.
    scaled.search = std::min(scaled.search, 3 * tol.frequency);
    fit.match = match_modes(model_hz, weights, c.generated_spectrum, c.reference_spectrum, c.band_lo_hz,
                            c.band_hi_hz, tol.frequency, scaled);
    double sum = 0;
    for (auto& g : fit.match.groups) {
      if (g.reference_hz > 0 && g.generated_hz > 0) g.raw_frequency_error = g.reference_hz / (g.generated_hz / fit.scale) - 1;
      if (g.status == MatchStatus::weak) continue;
      ++fit.judged;
      if (g.status == MatchStatus::matched) ++fit.matched, sum += std::abs(g.frequency_error);
    }
    fit.mean_abs_error = fit.matched ? sum / fit.matched : 0;
    c.material_fit = std::move(fit);
  }
  const MatchResult& judged_match = s.recording ? c.material_fit->match : c.match;
  std::vector<float> noise;
  if (s.recording && conditioned.noise_length > 0)
    noise.assign(reference.begin(), reference.begin() + conditioned.noise_length);
  measure_decays(c, judged_match, s.recording ? c.material_fit->scale : 1.0, reference, generated, modes, rate,
                 s.recording && !noise.empty() ? &noise : nullptr);

  // Level and log-spectral distance on the aligned segments.
  std::vector<float> ref(reference.begin() + c.reference_start, reference.begin() + c.reference_start + c.length);
  std::vector<float> gen(generated.begin() + c.generated_start, generated.begin() + c.generated_start + c.length);
  c.level_ratio_db = 20 * std::log10(std::max(signal::rms(ref), 1e-300) / std::max(signal::rms(gen), 1e-300));
  const std::size_t welch_frame = std::clamp<std::size_t>(signal::power_of_two_at_most(std::min(0.09 * rate, c.length / 2.0)), 256, 16384);
  c.reference_bands = signal::band_levels(signal::welch_power(ref, rate, welch_frame), c.band_lo_hz, c.band_hi_hz, 12);
  c.generated_bands = signal::band_levels(signal::welch_power(gen, rate, welch_frame), c.band_lo_hz, c.band_hi_hz, 12);
  {
    // Each spectrum floored 80 dB below its own maximum (a notch is not a meaningful
    // difference), the overall level difference taken out (it is its own measure).
    auto floored = [](std::vector<double> v) {
      const double top = *std::max_element(v.begin(), v.end());
      for (double& x : v) x = std::max(x, top - 80);
      return v;
    };
    const auto a = floored(c.reference_bands.level_db), b = floored(c.generated_bands.level_db);
    double sum = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double d = a[i] - b[i] - c.level_ratio_db;
      sum += d * d;
    }
    c.lsd_db = a.empty() ? 0 : std::sqrt(sum / static_cast<double>(a.size()));
  }

  // The measures.
  {
    Measure m{"frequency", "%", 0, 100 * tol.frequency};
    int judged = 0;
    std::string worst;
    double raw_worst = 0;
    for (const auto& g : judged_match.groups) {
      if (g.status != MatchStatus::matched && g.status != MatchStatus::shifted) continue;
      // A recording: a weak mode's nearby peak (more than --spurious-db below the strongest in
      // the generated render) is not judged; a strong mode off by more than the tolerance is.
      if (s.recording && g.status == MatchStatus::shifted && g.generated_db < -tol.spurious_db) continue;
      if (std::abs(g.raw_frequency_error) > std::abs(raw_worst)) raw_worst = g.raw_frequency_error;
      ++judged;
      if (std::abs(g.frequency_error) * 100 > std::abs(m.value)) m.value = 100 * g.frequency_error;
      if (g.status == MatchStatus::shifted) {
        m.passed = false;
        if (!worst.empty()) worst += "; ";
        worst += g.integrator_shift != 0
                     ? fmt::format("{} at {:.1f} Hz is at {:.1f} Hz in the reference ({:+.2f} % after taking "
                                   "out the reference integrator's {:+.2f} %)", modes_text(g), g.generated_hz,
                                   g.reference_hz, 100 * g.frequency_error, 100 * g.integrator_shift)
                     : fmt::format("{} at {:.1f} Hz is at {:.1f} Hz in the reference ({:+.2f} %)",
                                   modes_text(g), g.generated_hz, g.reference_hz, 100 * g.frequency_error);
      }
    }
    m.judged = judged > 0;
    m.detail = !m.judged ? "no mode was found in both signals"
               : m.passed ? fmt::format("{} mode groups within ±{:.2f} %, worst {:+.3f} %", judged,
                                        100 * tol.frequency, m.value)
                          : fmt::format("{} (tolerance ±{:.2f} %)", worst, 100 * tol.frequency);
    if (!m.judged) m.passed = false, m.judged = true;  // nothing comparable is a failure
    if (s.recording)
      m.detail += fmt::format(" after one material scale x{:.5f} (E/rho x{:.5f}); raw, before it, worst {:+.3f} %",
                              c.material_fit->scale, c.material_fit->scale * c.material_fit->scale, 100 * raw_worst);
    add_measure(c, m);
  }
  {
    Measure m{"missing modes", "modes", 0, static_cast<double>(tol.missing)};
    std::string list;
    // A recording: only strong model modes (within --spurious-db of the strongest) must show; a
    // weaker one may sit under the room's noise or at a node of the strike.
    for (const auto& g : judged_match.groups)
      if (g.status == MatchStatus::missing && (!s.recording || g.generated_db >= -tol.spurious_db)) {
        m.value += 1;
        if (!list.empty()) list += ", ";
        list += fmt::format("{} ({:.1f} Hz, {:.0f} dB in the generated render)", modes_text(g),
                            g.generated_hz, g.generated_db);
      }
    m.passed = m.value <= tol.missing;
    m.detail = m.value == 0 ? "every audible mode shows as a reference peak"
                            : fmt::format("no reference peak for {}", list);
    add_measure(c, m);
  }
  {
    Measure m{"spurious peaks", "peaks", 0, tol.spurious_db};
    std::string list;
    int loud = 0;
    for (const auto& p : judged_match.spurious) {
      m.value += 1;
      if (p.level_db >= -tol.spurious_db) {
        ++loud;
        if (!list.empty()) list += ", ";
        list += fmt::format("{:.1f} Hz at {:.1f} dB", p.frequency_hz, p.level_db);
      }
    }
    m.passed = loud == 0;
    m.detail = m.value == 0 ? "every reference peak is explained by a mode"
               : loud == 0 ? fmt::format("{} weak peaks no mode explains, all more than {:.0f} dB "
                                         "below the strongest", m.value, tol.spurious_db)
                           : fmt::format("reference peaks no mode explains, within {:.0f} dB of the "
                                         "strongest: {}", tol.spurious_db, list);
    add_measure(c, m);
  }
  {
    Measure m{"t60", "%", 0, 100 * tol.t60};
    int judged = 0;
    std::string worst;
    for (const auto& r : c.rows) {
      if (!r.t60_judged) continue;
      ++judged;
      if (std::abs(r.t60_error) * 100 > std::abs(m.value)) m.value = 100 * r.t60_error;
      if (std::abs(r.t60_error) > tol.t60) {
        m.passed = false;
        if (!worst.empty()) worst += "; ";
        worst += fmt::format("{} at {:.1f} Hz decays in {:.3f} s in the reference, {:.3f} s generated ({:+.1f} %)",
                             modes_text(r.group), r.group.generated_hz, r.reference_decay.t60_s,
                             r.generated_decay.t60_s, 100 * r.t60_error);
      }
    }
    m.judged = judged > 0;
    m.detail = !m.judged ? "no matched, separable mode to measure"
               : m.passed ? fmt::format("{} modes within ±{:.0f} %, worst {:+.2f} %", judged, 100 * tol.t60, m.value)
                          : fmt::format("{} (tolerance ±{:.0f} %)", worst, 100 * tol.t60);
    add_measure(c, m);
  }
  // A recording's spectrum holds the room, the microphone and the noise floor: the distance is
  // reported, not judged.
  add_measure(c, {"log-spectral distance", "dB", c.lsd_db, tol.lsd_db, !s.recording, c.lsd_db <= tol.lsd_db,
                  fmt::format("{:.2f} dB over {} 1/12-octave bands {:.0f}-{:.0f} Hz, level difference "
                              "removed ({})", c.lsd_db, c.reference_bands.level_db.size(),
                              c.band_lo_hz, c.band_hi_hz, s.recording
                                  ? std::string("not judged: a recording holds the room, the microphone and the noise")
                                  : fmt::format("bound {:.1f} dB", tol.lsd_db))});
  add_measure(c, {"level", "dB", c.level_ratio_db, tol.level_db, s.judge_level,
                  std::abs(c.level_ratio_db) <= tol.level_db,
                  s.judge_level
                      ? fmt::format("reference / generated RMS = {:+.2f} dB (tolerance ±{:.1f} dB)",
                                    c.level_ratio_db, tol.level_db)
                      : fmt::format("reference / generated RMS = {:+.2f} dB; not judged: the reference "
                                    "is not in the model's units (a recording)", c.level_ratio_db)});
  {
    const double lag_ms = 1000 * static_cast<double>(c.lag_samples) / rate;
    Measure m{"onset", "ms", lag_ms, tol.onset_ms, s.expected_delay_s.has_value()};
    if (s.expected_delay_s) {
      const double off_ms = lag_ms - 1000 * *s.expected_delay_s;
      m.value = off_ms;
      m.passed = std::abs(off_ms) <= tol.onset_ms;
      m.detail = fmt::format("the reference lags by {:.2f} ms, the acoustic delay is {:.2f} ms: off by "
                             "{:+.2f} ms (tolerance ±{:.1f} ms){}", lag_ms, 1000 * *s.expected_delay_s,
                             off_ms, tol.onset_ms, c.polarity < 0 ? "; polarity inverted" : "");
    } else {
      m.detail = fmt::format("the reference lags by {:.2f} ms{}; not judged (no expected delay for a "
                             "recording)", lag_ms, c.polarity < 0 ? ", polarity inverted" : "");
    }
    add_measure(c, m);
  }

  if (s.recording) {
    // Level alignment for the plots: the generated spectrum at the recording's RMS.
    const double gain = std::pow(10.0, c.level_ratio_db / 20);
    for (double& m : c.generated_spectrum.magnitude) m *= gain;
  }

  // Mesh2Audio's practice (Hiner 2024 §4.1): scale the model so its lowest mode sits on the
  // reference's lowest peak, and match again. Reported beside the raw result, never instead.
  if (s.align_fundamental) {
    const ModeGroup* lowest = nullptr;
    for (const auto& g : c.match.groups)
      if (g.status != MatchStatus::weak) { lowest = &g; break; }
    MatchSettings picking = matching;
    picking.floor_db = matching.judge_floor_db;
    const auto peaks = reference_peaks(c.reference_spectrum, c.band_lo_hz, c.band_hi_hz, picking);
    if (lowest && !peaks.empty()) {
      AlignedMatch a;
      a.reference_fundamental_hz = peaks.front().frequency_hz;
      a.scale = a.reference_fundamental_hz / lowest->generated_hz;
      MatchSettings scaled = matching;
      scaled.frequency_scale = a.scale;
      a.match = match_modes(model_hz, weights, c.generated_spectrum, c.reference_spectrum,
                            c.band_lo_hz, c.band_hi_hz, tol.frequency, scaled);
      double sum = 0;
      for (const auto& g : a.match.groups) {
        if (g.status == MatchStatus::weak) continue;
        ++a.judged;
        if (g.status == MatchStatus::matched) ++a.matched;
        if (g.reference_hz > 0) sum += std::abs(g.frequency_error);
      }
      a.mean_abs_error = a.judged ? sum / a.judged : 0;
      c.aligned = std::move(a);
    }
  }
  return c;
}

}  // namespace mesh2dsp::validate
