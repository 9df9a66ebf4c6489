#pragma once
// The comparison of a generated render with a reference: every measure, its tolerance and the
// verdict. Pure computation on sample vectors and the model's modes; no files.
#include <optional>
#include <string>
#include <vector>

#include "validate/mode_matching.hpp"
#include "validate/signal_analysis.hpp"

namespace mesh2dsp::validate {

// Defaults: frequencies within 0.5 % and T60 within 10 % (issue 6); the log-spectral distance
// bound and the level tolerance are what the bundled bar and plate meet with margin in both
// contact and listener mode (see tests/validate and the README).
struct Tolerances {
  double frequency = 0.005;       // |f_ref / f_gen − 1|
  double t60 = 0.10;              // |T60_ref / T60_gen − 1|
  double lsd_db = 6;              // log-spectral distance over the band (1/12-octave bands)
  double level_db = 3;            // |20 log10(rms_ref / rms_gen)|
  double onset_ms = 2;            // |lag − the expected acoustic delay|
  int missing = 0;                // modes the reference lacks
  double spurious_db = 20;        // a peak no mode explains within this of the strongest fails
};

struct ExpectedMode {
  double frequency_hz = 0;
  double t60_s = 0;
  double weight = 1;  // |output gain| of the mode: the group centre and the "weak" test
};

struct CompareSettings {
  double sample_rate_hz = 48000;
  double band_lo_hz = 20, band_hi_hz = 20000;  // the audible band, clipped to the model and fs/2
  bool judge_level = true;   // the two signals share physical units
  std::optional<double> expected_delay_s;  // listener distance / c; none: onset not judged
  bool align_fundamental = false;
  // The reference is a recording (issue 12, item 7): DC and rumble removed, the onset found
  // against the pre-roll's noise floor, peaks picked above that floor, the generated level
  // aligned for the plots, and one material scale (E/ρ) fitted beside the raw comparison.
  bool recording = false;
  MatchSettings matching;
};

struct ModeRow {
  ModeGroup group;
  double model_t60_s = 0;
  signal::DecayFit generated_decay, reference_decay;
  double t60_error = 0;     // T60_ref / T60_gen − 1
  bool t60_judged = false;  // a matched, separable group with enough frames
  std::string t60_note;     // why not judged
};

struct Measure {
  std::string name;        // "frequency", "t60", …
  std::string unit;        // "%", "dB", "ms", "peaks", "modes"
  double value = 0;        // worst case (frequency, t60) or the measure itself
  double tolerance = 0;
  bool judged = true;
  bool passed = true;
  std::string detail;      // one line: what failed and by how much, or why not judged
};

struct AlignedMatch {
  double scale = 1;          // applied to the model's frequencies
  double reference_fundamental_hz = 0;
  MatchResult match;
  int matched = 0, judged = 0;
  double mean_abs_error = 0;
};

struct Comparison {
  double sample_rate_hz = 0;
  long long reference_start = 0, generated_start = 0, length = 0;  // the aligned segments
  long long lag_samples = 0;    // reference ≈ polarity × generated delayed by lag
  int polarity = 1;
  double onset_reference_s = 0, onset_generated_s = 0;
  double level_ratio_db = 0;    // 20 log10(rms_ref / rms_gen)
  double lsd_db = 0;
  double band_lo_hz = 0, band_hi_hz = 0;
  double resolution_hz = 0;     // degenerate-group threshold used
  std::size_t decay_frame = 0;
  MatchResult match;
  std::vector<ModeRow> rows;
  std::optional<AlignedMatch> aligned;
  std::optional<AlignedMatch> material_fit;  // scale² = the factor on E/ρ
  double reference_noise_rms = 0;            // a recording's pre-roll (0: none)
  double reference_noise_s = 0;              // its length
  std::vector<Measure> measures;
  bool passed = true;
  std::vector<std::string> failures;  // one sentence per failed measure

  // Kept for the plots.
  signal::Spectrum reference_spectrum, generated_spectrum;  // magnitude, aligned segments
  signal::BandLevels reference_bands, generated_bands;
};

// Throws mesh2dsp::Error when a signal is silent or too short to analyse.
Comparison compare(const std::vector<float>& reference, const std::vector<float>& generated,
                   const std::vector<ExpectedMode>& modes, const CompareSettings& settings,
                   const Tolerances& tolerances);

}  // namespace mesh2dsp::validate
