#pragma once
// Matching a model's modes to the peaks of two spectra (the generated render and the
// reference), with the traps of Hiner 2024, §4 named rather than hidden:
//   - degenerate modes (closely spaced pairs, Hiner 2024, Fig. 6) show as one peak: modes closer
//     than the analysis can resolve are grouped and matched as one group;
//   - missing peaks (a mode the model predicts that the reference does not show);
//   - spurious peaks (a reference peak no mode explains: noise, or a mode the model lacks);
//   - weak modes (too quiet in the generated render to judge) are listed, not judged.
#include <string>
#include <vector>

#include "validate/signal_analysis.hpp"

namespace mesh2dsp::validate {

struct MatchSettings {
  double resolution_hz = 4;        // modes closer than this form one (degenerate) group
  double search = 0.05;            // relative half-width of the window a peak is looked for in
  double floor_db = 60;            // peaks more than this below the spectrum's maximum are noise
  // "Audible": a group is judged when its peak lies within this of the strongest peak in
  // either render (generated or reference, each re its own maximum); quieter in both, it is
  // "weak": listed with its levels, not judged. 60 dB is the range a T60 is defined over and
  // the dynamic range of a quiet room at a normal listening level.
  double judge_floor_db = 60;
  double min_prominence_db = 6;    // a peak stands this far above its valleys
  double frequency_scale = 1;      // applied to the model's and the generated peaks (--align-fundamental)
  // The time step of the two renders when the reference is a Newmark average-acceleration
  // render and the generated model was pre-warped to it (0: a recording or unknown). That
  // integrator is the bilinear transform of every mode: a mode at f shows at
  // f̃ = atan(πfΔt)/(πΔt) (solver/newmark.hpp). Frequencies are judged after mapping both back
  // exactly, f = tan(πf̃Δt)/(πΔt); the shift is reported.
  double reference_newmark_dt_s = 0;
  // False when the generated program was rendered as given (--dsp), not pre-warped: then only
  // the reference is mapped back, and its peaks are looked for at the warped frequencies.
  bool generated_prewarped = true;
  // A recording's noise floor on the reference spectrum's bins (empty: none): a reference peak
  // counts only when it stands `noise_margin_db` above it.
  std::vector<double> reference_noise_magnitude;
  double noise_margin_db = 10;
};

enum class MatchStatus { matched, shifted, missing, weak };
std::string to_string(MatchStatus status);

struct ModeGroup {
  std::vector<int> modes;          // indices into the model's modes (more than one: degenerate)
  double model_hz = 0;             // amplitude-weighted model frequency (× frequency_scale)
  double generated_hz = -1;        // interpolated peak in the generated spectrum (× scale)
  double generated_db = -300;      // its level re the generated spectrum's maximum
  double reference_hz = -1;        // interpolated peak in the reference spectrum, -1: none
  double reference_db = -300;      // its level re the reference spectrum's maximum
  double frequency_error = 0;      // judged: reference / generated − 1 in continuous time
  double reference_continuous_hz = -1;  // reference_hz mapped back through the integrator's warp
  double raw_frequency_error = 0;  // reference_hz / generated_hz − 1
  double integrator_shift = 0;     // the integrator's frequency shift at this mode (shown / true − 1)
  double lo_hz = 0, hi_hz = 0;     // the search window
  MatchStatus status = MatchStatus::missing;
  std::string note;                // why a weak group is not judged
};

// A model mode the comparison did not look at, and why (outside the compared band).
struct UnjudgedMode {
  int mode = -1;
  double frequency_hz = 0;
  std::string reason;
};

struct SpuriousPeak {
  double frequency_hz = 0, level_db = 0;  // level re the reference spectrum's maximum
};

struct MatchResult {
  std::vector<ModeGroup> groups;        // ascending
  std::vector<SpuriousPeak> spurious;   // reference peaks in [lo, hi] that no group explains
  std::vector<UnjudgedMode> outside;    // model modes outside [lo, hi]
  double band_lo_hz = 0, band_hi_hz = 0;
};

// `model_hz`: the model's mode frequencies (ascending); `weights`: their expected amplitudes
// (for the group centre). Modes outside [band_lo_hz, band_hi_hz] are skipped. `tolerance`
// (relative) separates matched from shifted.
// The reference spectrum's peaks that count: find_peaks with the settings' floor and
// prominence, above the noise floor when one is given.
std::vector<signal::Peak> reference_peaks(const signal::Spectrum& reference, double lo_hz, double hi_hz,
                                          const MatchSettings& settings);

MatchResult match_modes(const std::vector<double>& model_hz, const std::vector<double>& weights,
                        const signal::Spectrum& generated, const signal::Spectrum& reference,
                        double band_lo_hz, double band_hi_hz, double tolerance,
                        const MatchSettings& settings);

}  // namespace mesh2dsp::validate
