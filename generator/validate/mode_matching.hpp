#pragma once
// Matching a model's modes to the peaks of two spectra (the generated render and the
// reference), with the traps of seed 004 §4 named rather than hidden:
//   - degenerate modes (closely spaced pairs, seed 004 Fig. 6) show as one peak: modes closer
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
  double judge_floor_db = 40;      // groups quieter than this (generated, re its strongest) are "weak"
  double min_prominence_db = 6;    // a peak stands this far above its valleys
  double frequency_scale = 1;      // applied to the model's and the generated peaks (--align-fundamental)
  // The reference's time step when it is a Newmark average-acceleration render (0: a recording
  // or unknown). That integrator lengthens every period: tan(ω̃Δt/2) = ωΔt/2, so a mode of the
  // true system at f appears at f·atan(πfΔt)/(πfΔt), ≈ −(2πfΔt)²/12 (solver/newmark.hpp):
  // 0.63 % at 8.4 kHz for Δt = 1/192 000 s. That known shift of the reference is taken out
  // before judging, and reported.
  double reference_newmark_dt_s = 0;
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
  double frequency_error = 0;      // reference_hz / (generated_hz · integrator ratio) − 1: judged
  double raw_frequency_error = 0;  // reference_hz / generated_hz − 1
  double integrator_shift = 0;     // the reference integrator's expected period shift (ratio − 1)
  double lo_hz = 0, hi_hz = 0;     // the search window
  MatchStatus status = MatchStatus::missing;
};

struct SpuriousPeak {
  double frequency_hz = 0, level_db = 0;  // level re the reference spectrum's maximum
};

struct MatchResult {
  std::vector<ModeGroup> groups;        // ascending
  std::vector<SpuriousPeak> spurious;   // reference peaks in [lo, hi] that no group explains
  double band_lo_hz = 0, band_hi_hz = 0;
};

// `model_hz`: the model's mode frequencies (ascending); `weights`: their expected amplitudes
// (for the group centre). Modes outside [band_lo_hz, band_hi_hz] are skipped. `tolerance`
// (relative) separates matched from shifted.
MatchResult match_modes(const std::vector<double>& model_hz, const std::vector<double>& weights,
                        const signal::Spectrum& generated, const signal::Spectrum& reference,
                        double band_lo_hz, double band_hi_hz, double tolerance,
                        const MatchSettings& settings);

}  // namespace mesh2dsp::validate
