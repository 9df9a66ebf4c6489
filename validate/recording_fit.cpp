#include "validate/recording_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "runtime/render/sound_files.hpp"
#include "util/error.hpp"

namespace mesh2dsp::validate {
namespace {

namespace fs = std::filesystem;

double to_db(double magnitude) { return 20 * std::log10(std::max(magnitude, 1e-300)); }

// A spectrogram band's mean power (a noise segment's level there) and its loudest frame, dB.
double band_level_db(const signal::Spectrogram& sg, double lo_hz, double hi_hz) {
  const auto levels = signal::band_energy_db(sg, lo_hz, hi_hz);
  double e = 0;
  for (double l : levels) e += std::pow(10.0, l / 10);
  return levels.empty() ? -300 : 10 * std::log10(std::max(e / static_cast<double>(levels.size()), 1e-300));
}

double max_band_level_db(const signal::Spectrogram& sg, double lo_hz, double hi_hz) {
  const auto levels = signal::band_energy_db(sg, lo_hz, hi_hz);
  return levels.empty() ? -300 : *std::max_element(levels.begin(), levels.end());
}

}  // namespace

std::vector<Recording> read_recordings(const fs::path& path) {
  if (!fs::exists(path)) throw Error(fmt::format("{}: no such file", path.string()));
  if (fs::is_directory(path)) throw Error(fmt::format("{} is a directory, not a recording", path.string()));
  std::vector<std::vector<float>> channels;
  int rate = 0;
  {
    std::unique_ptr<runtime::SoundFileReader> reader;
    try {
      reader = std::make_unique<runtime::SoundFileReader>(path);
    } catch (const Error& e) {
      throw Error(fmt::format("{} is not a sound file libsndfile can read (WAV, FLAC, AIFF …): {}", path.string(),
                              e.what()));
    }
    if (reader->frames() < 1) throw Error(fmt::format("{} holds no samples", path.string()));
    rate = reader->sample_rate_hz();
    channels.assign(reader->channels(), std::vector<float>(reader->frames()));
    std::vector<float*> pointers;
    for (auto& c : channels) pointers.push_back(c.data());
    reader->read(pointers.data(), static_cast<int>(reader->frames()));
  }
  const double seconds = static_cast<double>(channels.front().size()) / rate;
  if (seconds < 0.1)
    throw Error(fmt::format("{} is {:.3f} s long: too short to fit (a strike and its decay need at least 0.1 s; "
                            "a few seconds are better)", path.string(), seconds));
  std::vector<Recording> out;
  for (std::size_t c = 0; c < channels.size(); ++c) {
    for (float v : channels[c])
      if (!std::isfinite(v)) throw Error(fmt::format("{} holds NaN or infinite samples", path.string()));
    if (signal::peak_abs(channels[c]) < 1e-9) continue;  // a dead channel beside live ones
    const std::string name = channels.size() == 1 ? path.filename().string()
                                                  : fmt::format("{} ch{}", path.filename().string(), c);
    out.push_back({name, std::move(channels[c]), static_cast<double>(rate)});
  }
  if (out.empty()) throw Error(fmt::format("{} is silent", path.string()));
  return out;
}

long long count_clipped_samples(const std::vector<float>& x) {
  const double top = signal::peak_abs(x);
  if (top <= 0) return 0;
  long long clipped = 0, run = 0;
  for (float v : x) {
    if (std::abs(v) >= 0.999 * top) {
      ++run;
    } else {
      if (run >= 3) clipped += run;
      run = 0;
    }
  }
  if (run >= 3) clipped += run;
  return clipped;
}

double detect_hum_hz(const std::vector<float>& x, double rate_hz, std::size_t begin, std::size_t length,
                     int* harmonics) {
  *harmonics = 0;
  if (length < static_cast<std::size_t>(0.1 * rate_hz)) return 0;
  // ~2 Hz bins (or what the segment allows): the mains line stands out of the noise around it.
  const std::vector<float> segment(x.begin() + static_cast<long>(begin), x.begin() + static_cast<long>(begin + length));
  const auto power = signal::welch_power(segment, rate_hz, signal::power_of_two_at_most(std::min(0.5 * rate_hz, length / 2.0)));
  auto excess_db = [&](double f) {
    const auto bin = static_cast<long>(std::lround(f / power.bin_hz));
    const long n = static_cast<long>(power.magnitude.size());
    if (bin + 2 >= n) return 0.0;
    double line = 0;
    for (long k = std::max(0L, bin - 1); k <= bin + 1; ++k) line = std::max(line, power.magnitude[k]);
    std::vector<double> around;
    for (long k = std::max(0L, bin - 12); k < std::min(n, bin + 13); ++k)
      if (std::abs(k - bin) > 3) around.push_back(power.magnitude[k]);
    if (around.empty()) return 0.0;
    std::nth_element(around.begin(), around.begin() + around.size() / 2, around.end());
    return 10 * std::log10(std::max(line, 1e-300) / std::max(around[around.size() / 2], 1e-300));
  };
  double best_hz = 0;
  int best_count = 0;
  double best_sum = 0;
  for (double base : {50.0, 60.0}) {
    int count = 0, last = 0;
    double sum = 0;
    for (int k = 1; k <= 20 && k * base < 0.45 * rate_hz; ++k) {
      const double e = excess_db(k * base);
      if (e >= 10) ++count, sum += e, last = k;
    }
    if (count >= 2 && (count > best_count || (count == best_count && sum > best_sum)))
      best_hz = base, best_count = count, best_sum = sum, *harmonics = last;
  }
  return best_hz;
}

void remove_hum(std::vector<float>& x, double rate_hz, double hum_hz, int harmonics) {
  for (int k = 1; k <= harmonics; ++k) {
    const double f = k * hum_hz;
    if (f >= 0.45 * rate_hz) break;
    // RBJ notch (bilinear transform), bandwidth 1 Hz: Q = f / 1 Hz.
    const double w0 = 2 * M_PI * f / rate_hz, alpha = std::sin(w0) / (2 * f / 1.0);
    const double a0 = 1 + alpha, c = -2 * std::cos(w0);
    const double b0 = 1 / a0, b1 = c / a0, b2 = 1 / a0, a1 = c / a0, a2 = (1 - alpha) / a0;
    double x1 = 0, x2 = 0, y1 = 0, y2 = 0;
    for (float& v : x) {
      const double in = v, out = b0 * in + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
      x2 = x1, x1 = in, y2 = y1, y1 = out;
      v = static_cast<float>(out);
    }
  }
}

PreparedRecording prepare_recording(const Recording& r, double highpass_hz) {
  PreparedRecording p;
  p.name = r.name;
  p.rate_hz = r.rate_hz;
  p.clipped_samples = count_clipped_samples(r.samples);
  signal::ConditionedRecording c = signal::condition_recording(r.samples, r.rate_hz, highpass_hz);
  p.samples = std::move(c.samples);
  p.onset = c.onset;
  const auto n = static_cast<long long>(p.samples.size());
  if (n - p.onset < static_cast<long long>(0.1 * r.rate_hz))
    throw Error(fmt::format("{}: the strike is found {:.3f} s in, {:.3f} s before the end: too little of the decay "
                            "to fit", r.name, p.onset / r.rate_hz, (n - p.onset) / r.rate_hz));
  if (c.noise_length > 0) {
    p.noise_begin = 0;
    p.noise_length = c.noise_length;
  } else {
    // No pre-roll: the last tenth (at least 0.1 s), after the strike. Where the object still
    // rings there, the floor is overestimated: fewer partials, never noise taken for one.
    p.noise_length = std::min(n - p.onset, std::max(n / 10, static_cast<long long>(0.1 * r.rate_hz)));
    p.noise_begin = n - p.noise_length;
    p.noise_from_tail = true;
  }
  p.hum_hz = detect_hum_hz(p.samples, r.rate_hz, static_cast<std::size_t>(p.noise_begin),
                           static_cast<std::size_t>(p.noise_length), &p.hum_harmonics);
  if (p.hum_hz > 0) remove_hum(p.samples, r.rate_hz, p.hum_hz, p.hum_harmonics);
  p.noise_rms = signal::rms(p.samples, static_cast<std::size_t>(p.noise_begin), static_cast<std::size_t>(p.noise_length));
  return p;
}

namespace {

// The analysed segment: from the strike, at most 8 s.
std::size_t analysed_length(const PreparedRecording& r) {
  return static_cast<std::size_t>(std::min<double>(static_cast<double>(r.samples.size() - r.onset), 8 * r.rate_hz));
}

}  // namespace

std::vector<Partial> pick_partials(const PreparedRecording& r, double lo_hz, double hi_hz, const FitSettings& s) {
  const std::size_t length = analysed_length(r);
  const signal::Spectrum spectrum = signal::magnitude_spectrum(r.samples, r.rate_hz, 4, static_cast<std::size_t>(r.onset), length, true);
  const std::vector<double> noise = signal::noise_magnitude(r.samples, r.rate_hz, static_cast<std::size_t>(r.noise_begin),
                                                            static_cast<std::size_t>(r.noise_length), length, spectrum);
  // 3 dB prominence: the weaker peak of a split pair stands only a few dB above the dip between.
  // 6 dB prominence: a fast-decaying partial's broad line, multiplied by a room's ripple, shows
  // several lesser maxima; a split pair resolved by seconds of ringing dips far deeper.
  const auto peaks = signal::find_peaks(spectrum, lo_hz, hi_hz, s.dynamic_range_db, 6);
  std::vector<Partial> out;
  for (const auto& p : peaks) {
    const auto bin = static_cast<std::size_t>(std::lround(p.frequency_hz / spectrum.bin_hz));
    if (bin >= noise.size()) continue;
    const double above = p.level_db - to_db(noise[bin]);
    if (above < s.noise_margin_db) continue;
    // Standing out of its surroundings, not only of the noise: the skirt of a strong partial
    // (a decaying line falls off as 1/Δf) rippled by the room holds maxima far above the
    // pre-roll's noise. The median magnitude over ±3 % is that skirt's level.
    {
      const auto span = static_cast<std::size_t>(0.03 * p.frequency_hz / spectrum.bin_hz);
      const std::size_t a = bin > span ? bin - span : 0, b = std::min(spectrum.magnitude.size() - 1, bin + span);
      std::vector<double> around;
      for (std::size_t k = a; k <= b; k += 4) around.push_back(spectrum.magnitude[k]);  // 4: the zero-padding
      std::nth_element(around.begin(), around.begin() + around.size() / 2, around.end());
      if (p.level_db - to_db(around[around.size() / 2]) < s.local_contrast_db) continue;
    }
    if (r.hum_hz > 0) {
      const double k = std::round(p.frequency_hz / r.hum_hz);
      if (k >= 1 && k <= r.hum_harmonics + 2 && std::abs(p.frequency_hz - k * r.hum_hz) < 2) continue;  // residual hum
    }
    // The −3 dB width: walk down both sides of the peak's bin.
    const double half_power = spectrum.magnitude[bin] / M_SQRT2;
    std::size_t a = bin, b = bin;
    while (a > 0 && spectrum.magnitude[a - 1] >= half_power) --a;
    while (b + 1 < spectrum.magnitude.size() && spectrum.magnitude[b + 1] >= half_power) ++b;
    out.push_back({p.frequency_hz, p.level_db, above, static_cast<double>(b - a + 1) * spectrum.bin_hz});
  }
  if (!out.empty()) {
    double top = -INFINITY;
    for (const auto& p : out) top = std::max(top, p.level_db);
    for (auto& p : out) p.level_db -= top;
  }
  return out;
}

ModelBandPartials partials_for_model(const Recording& recording, double lowest_hz, double highest_hz,
                                     const FitSettings& s) {
  ModelBandPartials out;
  // Rumble: an octave below the lowest mode at the lowest scale scanned, at most 100 Hz.
  out.prepared = prepare_recording(recording, std::clamp(0.5 * lowest_hz * s.scale_lo, 10.0, 100.0));
  out.lo_hz = std::max(s.band_lo_hz, lowest_hz * s.scale_lo * 0.95);
  out.hi_hz = std::min({s.band_hi_hz, 0.49 * recording.rate_hz, highest_hz * s.scale_hi * 1.05});
  out.partials = pick_partials(out.prepared, out.lo_hz, out.hi_hz, s);
  return out;
}

std::vector<ModeCluster> group_modes(const std::vector<double>& frequency_hz, double spread) {
  std::vector<int> order(frequency_hz.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return frequency_hz[a] < frequency_hz[b]; });
  std::vector<ModeCluster> groups;
  for (int i : order) {
    if (!groups.empty() && frequency_hz[i] <= frequency_hz[groups.back().modes.back()] * (1 + spread))
      groups.back().modes.push_back(i);
    else
      groups.push_back({{i}, 0});
  }
  for (auto& g : groups) {
    double sum = 0;
    for (int m : g.modes) sum += frequency_hz[m];
    g.frequency_hz = sum / static_cast<double>(g.modes.size());
  }
  return groups;
}

std::vector<PartialCluster> cluster_partials(const std::vector<Partial>& partials, double spread) {
  std::vector<PartialCluster> clusters;
  // Measured from a cluster's first peak, not chained: a run of ripple maxima never grows
  // into one cluster wider than `spread`.
  for (std::size_t i = 0; i < partials.size(); ++i) {
    if (!clusters.empty() &&
        partials[i].frequency_hz <= partials[clusters.back().partials.front()].frequency_hz * (1 + spread))
      clusters.back().partials.push_back(static_cast<int>(i));
    else
      clusters.push_back({{static_cast<int>(i)}, 0, 0, 0});
  }
  for (auto& c : clusters) {
    int strongest = c.partials.front();
    for (int p : c.partials)
      if (partials[p].above_noise_db > partials[strongest].above_noise_db) strongest = p;
    c.strength = partials[strongest].above_noise_db;
    c.width_hz = partials[strongest].width_hz;
    c.frequency_hz = c.partials.size() == 2
        ? 0.5 * (partials[c.partials[0]].frequency_hz + partials[c.partials[1]].frequency_hz)
        : partials[strongest].frequency_hz;
  }
  return clusters;
}

namespace {

struct Assignment {
  double score = 0, explained = 0, total = 0;
  int matched = 0, considered = 0;
  std::vector<std::vector<int>> group_of_cluster;
};

// Every recording's clusters explained at scale s: each by the nearest scaled group within the
// tolerance; a group explains the strongest of the clusters that chose it.
Assignment assign(const std::vector<ModeCluster>& groups, const std::vector<std::vector<PartialCluster>>& clusters,
                  double s, double tolerance) {
  Assignment a;
  std::vector<double> log_group(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) log_group[g] = std::log(s * groups[g].frequency_hz);
  const double lo = std::log(s * groups.front().frequency_hz) - 2 * tolerance;
  const double hi = std::log(s * groups.back().frequency_hz) + 2 * tolerance;
  for (const auto& rc : clusters) {
    std::vector<int> chosen(rc.size(), -1);
    std::vector<std::pair<double, int>> best(groups.size(), {0.0, -1});
    for (std::size_t c = 0; c < rc.size(); ++c) {
      const double lf = std::log(rc[c].frequency_hz);
      if (lf < lo || lf > hi) continue;
      ++a.considered;
      a.total += rc[c].strength;
      const auto it = std::lower_bound(log_group.begin(), log_group.end(), lf);
      int g = -1;
      double e = INFINITY;
      for (auto j : {it - log_group.begin() - 1, it - log_group.begin()})
        if (j >= 0 && j < static_cast<long>(log_group.size()) && std::abs(lf - log_group[j]) < std::abs(e))
          e = lf - log_group[j], g = static_cast<int>(j);
      if (g < 0 || std::abs(e) > tolerance) continue;
      const double w = rc[c].strength * (1 - (e / tolerance) * (e / tolerance));
      if (w > best[g].first) best[g] = {w, static_cast<int>(c)};
    }
    for (std::size_t g = 0; g < groups.size(); ++g)
      if (best[g].second >= 0) {
        chosen[best[g].second] = static_cast<int>(g);
        a.score += best[g].first;
        a.explained += rc[best[g].second].strength;
        ++a.matched;
      }
    a.group_of_cluster.push_back(std::move(chosen));
  }
  return a;
}

}  // namespace

ScaleMatch match_scale(const std::vector<ModeCluster>& groups, const std::vector<std::vector<PartialCluster>>& clusters,
                       const FitSettings& s) {
  ScaleMatch m;
  if (groups.empty()) return m;
  // The scan: steps of an eighth of the tolerance, so no scale between two steps is missed.
  double best_scale = 1, best_score = -1;
  for (double scale = s.scale_lo; scale <= s.scale_hi; scale *= 1 + s.tolerance / 8) {
    const double score = assign(groups, clusters, scale, s.tolerance).score;
    if (score > best_score) best_score = score, best_scale = scale;
  }
  m.scan_scale = best_scale;
  // Least squares on the matched set (log frequency, weighted by strength), matched again.
  double scale = best_scale;
  Assignment a = assign(groups, clusters, scale, s.tolerance);
  for (int round = 0; round < 3 && a.matched > 0; ++round) {
    double sum = 0, weight = 0;
    for (std::size_t r = 0; r < clusters.size(); ++r)
      for (std::size_t c = 0; c < clusters[r].size(); ++c)
        if (const int g = a.group_of_cluster[r][c]; g >= 0) {
          const double w = clusters[r][c].strength / std::max(clusters[r][c].width_hz, 1e-3);
          sum += w * std::log(clusters[r][c].frequency_hz / groups[g].frequency_hz);
          weight += w;
        }
    scale = std::exp(sum / weight);
    a = assign(groups, clusters, scale, s.tolerance);
  }
  m.scale = scale;
  m.group_of_cluster = a.group_of_cluster;
  m.explained_strength = a.explained;
  m.total_strength = a.total;
  m.matched = a.matched;
  m.considered = a.considered;
  double sq = 0;
  for (std::size_t r = 0; r < clusters.size(); ++r)
    for (std::size_t c = 0; c < clusters[r].size(); ++c)
      if (const int g = a.group_of_cluster[r][c]; g >= 0) {
        const double e = clusters[r][c].frequency_hz / (scale * groups[g].frequency_hz) - 1;
        sq += e * e;
      }
  m.rms_error = a.matched ? std::sqrt(sq / a.matched) : 0;
  return m;
}

PartialDecay measure_partial_decay(const signal::Spectrogram& sg,
                                   const signal::Spectrogram& noise_sg, double lo_hz, double hi_hz,
                                   const std::vector<double>& neighbour_hz, double noise_margin_db) {
  PartialDecay d;
  // The band: the partial (or pair) ± the Hann main lobe (2 bins), at least ±0.2 %.
  const double half = std::max(2 * sg.bin_hz, 0.002 * hi_hz);
  const double a = lo_hz - half, b = hi_hz + half;
  for (double f : neighbour_hz)
    if (f > a && f < b && (f < lo_hz * 0.9999 || f > hi_hz * 1.0001)) {
      d.note = fmt::format("a peak at {:.1f} Hz shares its band", f);
      return d;
    }
  const double top_db = max_band_level_db(sg, a, b);
  const double noise_db = band_level_db(noise_sg, a, b);
  const double range_db = std::min(40.0, top_db - noise_db - noise_margin_db);
  if (range_db < 10) {
    d.note = fmt::format("only {:.0f} dB above the noise floor", top_db - noise_db);
    return d;
  }
  d.fit = signal::band_decay(sg, a, b, range_db);
  if (d.fit.frames_used < 4) {
    d.note = fmt::format("decays below the noise within {} frames", d.fit.frames_used);
    return d;
  }
  if (!(d.fit.slope_db_per_s < 0)) {
    d.note = "does not decay in the recording";
    return d;
  }
  d.measured = true;
  return d;
}

RayleighFit fit_rayleigh(const std::vector<DecaySample>& samples) {
  RayleighFit f;
  // σ = a + b x with x = ω², a = α/2, b = β/2; weights w/σ² (relative errors).
  double s0 = 0, s1 = 0, s2 = 0, t0 = 0, t1 = 0;
  for (const auto& d : samples) {
    if (!(d.t60_s > 0) || !std::isfinite(d.t60_s) || !(d.weight > 0)) continue;
    const double sigma = std::log(1000.0) / d.t60_s, omega = 2 * M_PI * d.frequency_hz, x = omega * omega;
    const double w = d.weight / (sigma * sigma);
    s0 += w, s1 += w * x, s2 += w * x * x, t0 += w * sigma, t1 += w * x * sigma;
    ++f.used;
  }
  if (f.used < 1) return f;
  double a = 0, b = 0;
  const double det = s0 * s2 - s1 * s1;
  if (f.used >= 2 && det > 1e-12 * s0 * s2) {
    a = (s2 * t0 - s1 * t1) / det;
    b = (s0 * t1 - s1 * t0) / det;
  }
  if (f.used < 2 || det <= 1e-12 * s0 * s2 || a < 0 || b < 0) {
    // One parameter: the one whose fit leaves the smaller weighted residual.
    const double a_only = t0 / s0, b_only = t1 / s2;
    double ra = 0, rb = 0;
    for (const auto& d : samples) {
      if (!(d.t60_s > 0) || !std::isfinite(d.t60_s) || !(d.weight > 0)) continue;
      const double sigma = std::log(1000.0) / d.t60_s, omega = 2 * M_PI * d.frequency_hz;
      ra += d.weight * std::pow((a_only - sigma) / sigma, 2);
      rb += d.weight * std::pow((b_only * omega * omega - sigma) / sigma, 2);
    }
    if (ra <= rb) a = a_only, b = 0;
    else a = 0, b = b_only;
  }
  f.alpha_per_s = 2 * a;
  f.beta_s = 2 * b;
  f.fitted = true;
  double sq = 0;
  int n = 0;
  for (const auto& d : samples) {
    if (!(d.t60_s > 0) || !std::isfinite(d.t60_s) || !(d.weight > 0)) continue;
    const double sigma = std::log(1000.0) / d.t60_s, omega = 2 * M_PI * d.frequency_hz;
    sq += std::pow((a + b * omega * omega) / sigma - 1, 2), ++n;
  }
  f.rms_relative_error = std::sqrt(sq / n);
  return f;
}

namespace {

// T60 of a mode at frequency f under Rayleigh damping: ξ = α/(2ω) + βω/2, T60 = ln(1000)/(ξω).
double rayleigh_t60_s(double frequency_hz, double alpha_per_s, double beta_s) {
  const double omega = 2 * M_PI * frequency_hz;
  const double sigma = alpha_per_s / 2 + beta_s * omega * omega / 2;
  return sigma > 0 ? std::log(1000.0) / sigma : INFINITY;
}

}  // namespace

FitResult fit_model(const ModalModel& model, const std::vector<Recording>& recordings, const FitSettings& s) {
  if (model.modes.empty()) throw Error("the model has no modes to fit");
  if (recordings.empty()) throw Error("no recording to fit");
  FitResult result;
  std::vector<double> model_hz;
  for (const auto& m : model.modes) model_hz.push_back(m.frequency_hz);
  const double lowest_hz = *std::min_element(model_hz.begin(), model_hz.end());
  const double highest_hz = *std::max_element(model_hz.begin(), model_hz.end());
  const std::vector<ModeCluster> groups = group_modes(model_hz, s.pair_spread);

  std::vector<std::vector<PartialCluster>> clusters;
  for (const auto& rec : recordings) {
    ModelBandPartials found = partials_for_model(rec, lowest_hz, highest_hz, s);
    PreparedRecording& p = found.prepared;
    auto& partials = found.partials;
    if (partials.empty())
      throw Error(fmt::format("{}: no partial stands {:.0f} dB above the noise floor between {:.0f} and {:.0f} Hz "
                              "(is it a recording of the struck object, and loud enough?)", rec.name,
                              s.noise_margin_db, found.lo_hz, found.hi_hz));
    if (p.clipped_samples > 0)
      result.notes.push_back(fmt::format("{}: clipped: {} samples sit flat at the peak; the strike's first "
                                         "milliseconds are distorted (partials stay usable, levels do not)",
                                         p.name, p.clipped_samples));
    if (p.hum_hz > 0)
      result.notes.push_back(fmt::format("{}: mains hum at {:.0f} Hz removed (notches at its first {} harmonics)",
                                         p.name, p.hum_hz, p.hum_harmonics));
    result.notes.push_back(fmt::format("{}: strike at {:.3f} s; noise floor {:.1f} dBFS RMS from the {} ({:.2f} s)",
                                       p.name, p.onset / p.rate_hz, to_db(p.noise_rms),
                                       p.noise_from_tail ? "tail (no pre-roll)" : "pre-roll", p.noise_length / p.rate_hz));
    clusters.push_back(cluster_partials(partials, s.pair_spread));
    result.partials.push_back(std::move(partials));
    result.recordings.push_back(std::move(p));
  }

  result.match = match_scale(groups, clusters, s);
  result.frequency_scale = result.match.scale;
  result.stiffness_scale = result.frequency_scale * result.frequency_scale;
  const double share = result.match.total_strength > 0 ? result.match.explained_strength / result.match.total_strength : 0;
  result.same_object = result.match.matched >= s.min_matched && share >= s.min_explained;

  // Decays of the matched partials, each recording's own spectrogram.
  std::vector<DecaySample> decays;
  for (std::size_t r = 0; r < result.recordings.size(); ++r) {
    const auto& p = result.recordings[r];
    const std::size_t length = analysed_length(p);
    const std::size_t frame = signal::decay_frame(p.rate_hz, length);
    const auto sg = signal::spectrogram(std::vector<float>(p.samples.begin() + p.onset, p.samples.begin() + p.onset + static_cast<long>(length)),
                                        p.rate_hz, frame, frame / 4);
    std::vector<float> noise(p.samples.begin() + p.noise_begin, p.samples.begin() + p.noise_begin + p.noise_length);
    // A pre-roll shorter than one frame: the recording's last frame stands for the floor.
    if (noise.size() < frame) noise.assign(p.samples.end() - static_cast<long>(frame), p.samples.end());
    const auto noise_sg = signal::spectrogram(noise, p.rate_hz, frame, frame / 4);
    const auto& parts = result.partials[r];
    for (std::size_t c = 0; c < clusters[r].size(); ++c) {
      const int g = result.match.group_of_cluster[r][c];
      if (g < 0) {
        const auto& cl = clusters[r][c];
        if (cl.frequency_hz >= result.frequency_scale * groups.front().frequency_hz * 0.98 &&
            cl.frequency_hz <= result.frequency_scale * groups.back().frequency_hz * 1.02)
          for (int i : cl.partials) result.unexplained.push_back({static_cast<int>(r), parts[i]});
        continue;
      }
      FitRow row;
      row.recording = static_cast<int>(r);
      row.modes = groups[g].modes;
      row.model_hz = groups[g].frequency_hz;
      row.fitted_hz = result.frequency_scale * row.model_hz;
      row.recorded_hz = clusters[r][c].frequency_hz;
      row.recorded_peaks = static_cast<int>(clusters[r][c].partials.size());
      row.error = row.recorded_hz / row.fitted_hz - 1;
      const double lo = parts[clusters[r][c].partials.front()].frequency_hz;
      const double hi = parts[clusters[r][c].partials.back()].frequency_hz;
      const double level = parts[clusters[r][c].partials.front()].level_db;
      std::vector<double> neighbours;
      for (const auto& q : parts)
        if (q.level_db > level - 30) neighbours.push_back(q.frequency_hz);
      row.decay = measure_partial_decay(sg, noise_sg, lo, hi, neighbours, s.noise_margin_db);
      if (row.decay.measured)
        decays.push_back({row.recorded_hz, row.decay.fit.t60_s,
                          std::max(row.decay.fit.r_squared, 0.0) * row.decay.fit.fit_range_db / 40 /
                              static_cast<double>(row.recorded_peaks)});
      result.rows.push_back(std::move(row));
    }
  }
  std::sort(result.unexplained.begin(), result.unexplained.end(),
            [](const auto& a, const auto& b) { return a.second.above_noise_db > b.second.above_noise_db; });

  Material material = model.material;
  material.youngs_modulus_pa *= result.stiffness_scale;
  result.damping = fit_rayleigh(decays);
  if (result.damping.fitted && result.damping.used >= 2) {
    material.rayleigh_mass_per_s = result.damping.alpha_per_s;
    material.rayleigh_stiffness_s = result.damping.beta_s;
  } else {
    result.damping.fitted = false;
    result.notes.push_back(fmt::format("the damping was not fitted: {} partial decay(s) measurable, 2 needed; the "
                                       "model's Rayleigh pair is kept", decays.size()));
  }
  material.name = model.material.name + " (fitted)";
  material.source = "mesh2dsp fit to " + std::accumulate(recordings.begin(), recordings.end(), std::string(),
      [](std::string a, const Recording& r) { return a.empty() ? r.name : a + ", " + r.name; });
  result.fitted = model;
  if (result.same_object) retune_material(result.fitted, material);
  for (auto& row : result.rows)
    row.model_t60_s = rayleigh_t60_s(row.fitted_hz, material.rayleigh_mass_per_s, material.rayleigh_stiffness_s);

  result.verdict = result.same_object
      ? fmt::format("one frequency scale x{:.5f} (E/rho x{:.5f}) explains {} of {} partials ({:.0f} % of their "
                    "strength), rms error {:.3f} %", result.frequency_scale, result.stiffness_scale,
                    result.match.matched, result.match.considered, 100 * share, 100 * result.match.rms_error)
      : fmt::format("the recording does not look like this object: the best frequency scale (x{:.4f}) explains "
                    "only {} of {} partials ({:.0f} % of their strength; {:.0f} % and {} needed). Is it a "
                    "recording of another object, the model of another mesh, or is its Poisson ratio off (`fit MESH "
                    "--fit-poisson`)?",
                    result.frequency_scale, result.match.matched, result.match.considered, 100 * share,
                    100 * s.min_explained, s.min_matched);
  return result;
}

StrikePointChoice choose_strike_point(const std::vector<double>& frequency_hz,
                                      const std::vector<std::vector<double>>& level,
                                      const std::vector<Partial>& partials, const FitSettings& s, double strong_db) {
  StrikePointChoice choice;
  if (level.empty() || frequency_hz.empty()) return choice;
  const std::vector<ModeCluster> groups = group_modes(frequency_hz, s.pair_spread);
  const std::vector<PartialCluster> clusters = cluster_partials(partials, s.pair_spread);
  const ScaleMatch match = match_scale(groups, {clusters}, s);
  choice.scale = match.scale;
  std::vector<int> cluster_of_group(groups.size(), -1);
  for (std::size_t c = 0; c < match.group_of_cluster.front().size(); ++c)
    if (match.group_of_cluster.front()[c] >= 0) cluster_of_group[match.group_of_cluster.front()[c]] = static_cast<int>(c);
  for (const auto& point_level : level) {
    // A group's level: its modes' powers summed (a degenerate pair rings as one peak).
    std::vector<double> group_db(groups.size(), -INFINITY);
    double strongest_db = -INFINITY;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const double hz = match.scale * groups[g].frequency_hz;
      if (hz < s.band_lo_hz || hz > s.band_hi_hz) continue;
      double power = 0;
      for (int m : groups[g].modes) power += point_level[m] * point_level[m];
      group_db[g] = 10 * std::log10(std::max(power, 1e-300));
      strongest_db = std::max(strongest_db, group_db[g]);
    }
    int missing = 0;
    std::vector<double> model_db, recorded_db;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (!std::isfinite(group_db[g])) continue;
      const int c = cluster_of_group[g];
      if (c < 0) {
        if (group_db[g] >= strongest_db - strong_db) ++missing;
        continue;
      }
      model_db.push_back(group_db[g]);
      recorded_db.push_back(partials[clusters[c].partials.front()].level_db);
    }
    double correlation = 0;
    if (model_db.size() >= 3) {
      const auto n = static_cast<double>(model_db.size());
      const double ma = std::accumulate(model_db.begin(), model_db.end(), 0.0) / n;
      const double mb = std::accumulate(recorded_db.begin(), recorded_db.end(), 0.0) / n;
      double ab = 0, aa = 0, bb = 0;
      for (std::size_t i = 0; i < model_db.size(); ++i) {
        ab += (model_db[i] - ma) * (recorded_db[i] - mb);
        aa += (model_db[i] - ma) * (model_db[i] - ma);
        bb += (recorded_db[i] - mb) * (recorded_db[i] - mb);
      }
      correlation = aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 0;
    }
    choice.strong_missing.push_back(missing);
    choice.level_correlation.push_back(correlation);
  }
  // Points whose correlations differ by 0.02 or less (mirror twins) keep the lower index.
  for (std::size_t k = 1; k < level.size(); ++k) {
    const auto best = static_cast<std::size_t>(choice.point);
    if (choice.strong_missing[k] < choice.strong_missing[best] ||
        (choice.strong_missing[k] == choice.strong_missing[best] &&
         choice.level_correlation[k] > choice.level_correlation[best] + 0.02))
      choice.point = static_cast<int>(k);
  }
  return choice;
}

double fit_cost(const FitResult& r, const FitSettings& s) {
  return static_cast<double>(r.match.considered - r.match.matched) + r.match.rms_error / s.tolerance;
}

PoissonFit fit_poisson(const std::function<ModalModel(double)>& model_at, double initial_nu,
                       const std::vector<Recording>& recordings, const FitSettings& s, int solves) {
  PoissonFit p;
  p.initial_nu = p.nu = initial_nu;
  p.initial = p.best = fit_model(model_at(initial_nu), recordings, s);
  double best_cost = fit_cost(p.best, s);
  p.tried.push_back({initial_nu, best_cost});
  auto cost_at = [&](double nu) {
    FitResult r = fit_model(model_at(nu), recordings, s);
    const double c = fit_cost(r, s);
    p.tried.push_back({nu, c});
    if (c < best_cost) best_cost = c, p.best = std::move(r), p.nu = nu;
    return c;
  };
  // Golden section: each step keeps the bracket's better part, one solve per step.
  const double g = (std::sqrt(5.0) - 1) / 2;
  double a = std::max(0.05, initial_nu - 0.15), b = std::min(0.49, initial_nu + 0.15);
  double x1 = b - g * (b - a), x2 = a + g * (b - a);
  double f1 = cost_at(x1), f2 = cost_at(x2);
  for (int i = 2; i < solves - 1; ++i) {
    if (f1 <= f2) b = x2, x2 = x1, f2 = f1, x1 = b - g * (b - a), f1 = cost_at(x1);
    else a = x1, x1 = x2, f1 = f2, x2 = a + g * (b - a), f2 = cost_at(x2);
  }
  return p;
}

std::string material_flags(const Material& m) {
  return fmt::format("--youngs-modulus {:.6g} --density {:.6g} --poisson-ratio {:.6g} --rayleigh-mass {:.6g} "
                     "--rayleigh-stiffness {:.6g}", m.youngs_modulus_pa, m.density_kg_m3, m.poisson_ratio,
                     m.rayleigh_mass_per_s, m.rayleigh_stiffness_s);
}

std::string fit_table(const FitResult& r) {
  const bool several = r.recordings.size() > 1;
  std::string t = fmt::format("{}{:<12} {:>10} {:>10} {:>11} {:>8} {:>11} {:>16}\n", several ? "rec " : "", "partial",
                              "model Hz", "fitted Hz", "recorded Hz", "error %", "T60 model s", "T60 recorded s");
  for (const auto& row : r.rows) {
    std::string modes;
    for (int m : row.modes) modes += (modes.empty() ? "" : "+") + std::to_string(m);
    if (row.recorded_peaks > 1) modes += " (split)";
    const std::string t60 = row.decay.measured
        ? fmt::format("{:.3f} ({:.0f} dB)", row.decay.fit.t60_s, row.decay.fit.fit_range_db)
        : "-";
    t += fmt::format("{}{:<12} {:>10.2f} {:>10.2f} {:>11.2f} {:>+8.3f} {:>11.3f} {:>16}\n",
                     several ? fmt::format("{:<4}", row.recording) : "", modes, row.model_hz, row.fitted_hz,
                     row.recorded_hz, 100 * row.error, row.model_t60_s, t60);
  }
  if (!r.unexplained.empty()) {
    t += "strong recorded partials no mode explains:";
    const std::size_t shown = std::min<std::size_t>(r.unexplained.size(), 8);
    for (std::size_t i = 0; i < shown; ++i)
      t += fmt::format("{} {:.1f} Hz ({:.0f} dB above noise)", i ? "," : "", r.unexplained[i].second.frequency_hz,
                       r.unexplained[i].second.above_noise_db);
    if (r.unexplained.size() > shown) t += fmt::format(" and {} more", r.unexplained.size() - shown);
    t += "\n";
  }
  return t;
}

}  // namespace mesh2dsp::validate
