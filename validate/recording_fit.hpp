#pragma once
// Fitting a modal model to recordings of the real object (`mesh2dsp fit`, issue 29): one
// frequency scale (the factor on E/ρ, the only material change that moves every mode alike at
// fixed ν) and the Rayleigh pair α, β, from the partials and decays of one or more recordings.
// Plain functions, one job each:
//   read_recordings    -> every channel of a sound file, checked;
//   prepare_recording  -> clipping found, DC, rumble and mains hum removed, the strike's onset
//                         and the noise floor (pre-roll, else the tail);
//   pick_partials      -> spectral peaks above the noise floor, interpolated (sub-bin);
//   match_scale        -> the scale that explains the most partial strength, then least squares;
//   measure_partial_decay -> T60 of a partial from its band envelope above the noise floor;
//   fit_rayleigh       -> α, β by weighted least squares on the decay rates;
//   fit_model          -> all of the above, and the model re-tuned exactly (no re-solve).
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "modal/modal_model.hpp"
#include "validate/signal_analysis.hpp"

namespace mesh2dsp::validate {

struct Recording {
  std::string name;  // file (and channel) for messages and tables
  std::vector<float> samples;
  double rate_hz = 0;
};

// Every channel of a sound file as one recording (microphones are fitted jointly). Throws
// mesh2dsp::Error with one message: missing file, not a sound file, empty, NaN, shorter than
// 0.1 s, or every channel silent. Silent channels beside a live one are dropped.
std::vector<Recording> read_recordings(const std::filesystem::path& path);

struct PreparedRecording {
  std::string name;
  std::vector<float> samples;  // conditioned: DC, rumble and hum removed (whole recording)
  double rate_hz = 0;
  long long onset = 0;          // the strike
  long long noise_begin = 0, noise_length = 0;  // the noise segment: the pre-roll, else the tail
  bool noise_from_tail = false;
  double noise_rms = 0;
  long long clipped_samples = 0;  // samples in runs of ≥ 3 at the recording's peak (flat tops)
  double hum_hz = 0;              // mains frequency removed (50 or 60), 0: no hum found
  int hum_harmonics = 0;
};

// `highpass_hz`: the rumble cut (an octave below the lowest mode the fit looks for).
PreparedRecording prepare_recording(const Recording& recording, double highpass_hz);

// Clipped samples: runs of at least 3 equal-magnitude samples at the peak magnitude (an
// overloaded converter or a float file normalised after clipping).
long long count_clipped_samples(const std::vector<float>& x);

// Mains hum in a noise segment: 50 or 60 Hz whose first harmonics stand 10 dB above the
// spectrum around them; 0 when neither does. `harmonics` receives how many stand out.
double detect_hum_hz(const std::vector<float>& x, double rate_hz, std::size_t begin, std::size_t length,
                     int* harmonics);
// Notches (2nd-order, bandwidth 1 Hz, bilinear transform) at hum_hz × 1 … harmonics.
void remove_hum(std::vector<float>& x, double rate_hz, double hum_hz, int harmonics);

struct Partial {
  double frequency_hz = 0;   // interpolated spectral peak (undamped ≈ damped: ξ² ≪ the error)
  double level_db = 0;       // re the recording's strongest partial
  double above_noise_db = 0; // re the noise floor at its frequency: the partial's strength
  double width_hz = 0;       // its −3 dB width: how precisely its frequency is known
};

struct FitSettings {
  double scale_lo = 0.5, scale_hi = 2.0;  // scanned frequency scales (E/ρ × 0.25 … 4)
  double tolerance = 0.005;   // a partial is explained within this (relative) of a scaled mode
  double pair_spread = 0.005; // peaks (or modes) closer than this are one pair (split or degenerate)
  // A partial stands this far above the noise floor's (smoothed) spectrum. 15 dB, not 10: a
  // spectrum of 10⁵–10⁶ bins of noise holds bins 10 dB above its mean power by chance
  // (P = e^-10 per bin), 15 dB practically never (e^-31.6).
  double noise_margin_db = 15;
  double dynamic_range_db = 60;  // partials within this of the strongest
  double local_contrast_db = 15; // and this far above the median spectrum within ±3 %
  double min_explained = 0.6;    // the strength share of the partials a fit must explain
  int min_matched = 3;
  double band_lo_hz = 20, band_hi_hz = 20000;
};

// The partials of a prepared recording in [lo_hz, hi_hz], ascending.
std::vector<Partial> pick_partials(const PreparedRecording& recording, double lo_hz, double hi_hz,
                                   const FitSettings& settings);

// A recording prepared for a model whose modes span [lowest_hz, highest_hz], and its partials
// where the scanned scales can put those modes (what `fit` and validate's choice of the strike
// point both look at): rumble cut an octave below the lowest mode at the lowest scale (10-100
// Hz), partials from 0.95 × that to 1.05 × the highest at the highest scale, within the band.
struct ModelBandPartials {
  PreparedRecording prepared;
  std::vector<Partial> partials;
  double lo_hz = 0, hi_hz = 0;
};
ModelBandPartials partials_for_model(const Recording& recording, double lowest_hz, double highest_hz,
                                     const FitSettings& settings);

// A set of model modes closer than pair_spread (degenerate, or split by the mesh), matched as one.
struct ModeCluster {
  std::vector<int> modes;
  double frequency_hz = 0;  // their mean
};
std::vector<ModeCluster> group_modes(const std::vector<double>& frequency_hz, double spread);

// A recorded peak, or two closer than pair_spread (a pair split by the object's imperfection).
struct PartialCluster {
  std::vector<int> partials;  // indices into the recording's partials
  double frequency_hz = 0;    // two: their mean (a split pair); more: the strongest's
  double strength = 0;        // the strongest's height above the noise (dB)
  double width_hz = 0;        // the strongest's −3 dB width
};
std::vector<PartialCluster> cluster_partials(const std::vector<Partial>& partials, double spread);

struct ScaleMatch {
  double scale = 1;                 // fitted frequency scale (E/ρ × scale²)
  double scan_scale = 1;            // the scan's best before least squares
  // Per recording: for each cluster, the group it is explained by (-1: none).
  std::vector<std::vector<int>> group_of_cluster;
  double explained_strength = 0, total_strength = 0;  // within the scaled model's band
  int matched = 0, considered = 0;
  double rms_error = 0;             // of the matched, after the fit (relative)
};

// The one scale in [scale_lo, scale_hi] that explains the most partial strength across every
// recording (each cluster explained by the nearest scaled group within tolerance, weighted by
// strength × (1 − (error / tolerance)²); a group explains one cluster per recording), then the
// least-squares scale of the matched set weighted by precision (strength / line width: a
// slowly decaying partial's narrow line pins its frequency, a fast one's broad line, rippled
// by the room, does not), matched again (three rounds).
ScaleMatch match_scale(const std::vector<ModeCluster>& groups,
                       const std::vector<std::vector<PartialCluster>>& clusters, const FitSettings& settings);

// validate --reference REC without --point: the excitation point (and output) whose strike best
// explains the recording. `level[k][n]`: mode n's expected spectral height at candidate place k
// (linear, any unit); candidate 0 is the default, kept on a tie. The frequency scale is fitted first (match_scale: it does not depend on the point); a
// point then costs one for each strong model group (within `strong_db` of that point's strongest)
// no recorded partial explains, and among the points of least cost the one whose matched groups'
// levels follow the recorded partials' best (Pearson correlation of the dB levels, by more than
// 0.02) is chosen.
struct StrikePointChoice {
  int point = 0;
  double scale = 1;
  std::vector<int> strong_missing;       // per point
  std::vector<double> level_correlation; // per point (0 with fewer than 3 matched groups)
};
StrikePointChoice choose_strike_point(const std::vector<double>& frequency_hz,
                                      const std::vector<std::vector<double>>& level,
                                      const std::vector<Partial>& partials, const FitSettings& settings,
                                      double strong_db);

struct PartialDecay {
  signal::DecayFit fit;  // T60 and the range (dB) it was measured over
  bool measured = false;
  std::string note;      // why not
};

// The decay of the partial (cluster) at [lo_hz, hi_hz] from its band envelope in `sg`, fitted
// down to the noise floor (that band's mean level in `noise_sg`) + margin, over at most 40 dB;
// `neighbour_hz`: other peaks the band must not hold. Also validate's decays of a recording.
PartialDecay measure_partial_decay(const signal::Spectrogram& sg,
                                   const signal::Spectrogram& noise_sg, double lo_hz, double hi_hz,
                                   const std::vector<double>& neighbour_hz, double noise_margin_db);

struct DecaySample {
  double frequency_hz = 0;
  double t60_s = 0;
  double weight = 1;  // confidence
};
struct RayleighFit {
  double alpha_per_s = 0, beta_s = 0;
  int used = 0;
  bool fitted = false;
  double rms_relative_error = 0;  // of the decay rates
};
// σ = ln(1000)/T60 = ξω = α/2 + βω²/2 (Rayleigh damping C = αM + βK, whose modal damping factor is
// ξ = ½(α/ω + βω): Hiner 2024, §2),
// weighted least squares in relative terms; a negative α or β is set to 0 and the other refitted.
RayleighFit fit_rayleigh(const std::vector<DecaySample>& samples);

struct FitRow {
  int recording = 0;
  std::vector<int> modes;       // the model group
  double model_hz = 0;          // as the input model has it
  double fitted_hz = 0;         // × scale
  double recorded_hz = -1;      // -1: not found
  int recorded_peaks = 0;       // 2: a split pair
  double error = 0;             // recorded / fitted − 1
  double model_t60_s = 0;       // the fitted model's (fitted damping)
  PartialDecay decay;
};

struct FitResult {
  ModalModel fitted;
  double frequency_scale = 1;
  double stiffness_scale = 1;  // on E/ρ: scale²
  RayleighFit damping;
  ScaleMatch match;
  std::vector<PreparedRecording> recordings;  // samples dropped (only the findings)
  std::vector<std::vector<Partial>> partials;
  std::vector<FitRow> rows;     // matched groups, then strong unmatched partials are in `unexplained`
  std::vector<std::pair<int, Partial>> unexplained;  // (recording, partial)
  bool same_object = false;     // enough partials explained
  std::string verdict;          // one sentence
  std::vector<std::string> notes;  // clipping, hum, noise segment, damping not fitted, …
};

// Fits `model` to the recordings; the model is never re-solved (retune_material). Throws
// mesh2dsp::Error on input that cannot be analysed (no partial above the noise, no onset).
FitResult fit_model(const ModalModel& model, const std::vector<Recording>& recordings, const FitSettings& settings);

// --fit-poisson: ν by a 1-D search with a handful of re-solves, E/ρ and the damping refitted at
// each (ν changes the modes' ratios; one scale cannot). `model_at(ν)` solves the mesh at ν.
// The search: golden section on [ν0 − 0.15, ν0 + 0.15] ∩ [0.05, 0.49], the cost of a fit being
// its unexplained partials (each costs 1) plus its rms error in tolerances (< 1: the tie-break).
struct PoissonFit {
  double initial_nu = 0, nu = 0;
  FitResult initial, best;
  std::vector<std::pair<double, double>> tried;  // (ν, cost)
};
double fit_cost(const FitResult& result, const FitSettings& settings);
PoissonFit fit_poisson(const std::function<ModalModel(double)>& model_at, double initial_nu,
                       const std::vector<Recording>& recordings, const FitSettings& settings, int solves = 8);

// "--youngs-modulus 2.08e+11 --density 7850 --rayleigh-mass 5.9 --rayleigh-stiffness 9.1e-09"
std::string material_flags(const Material& material);
// The table: partial, model Hz, fitted Hz, recorded Hz, error %, T60 model / recorded.
std::string fit_table(const FitResult& result);

}  // namespace mesh2dsp::validate
