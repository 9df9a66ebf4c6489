#pragma once
// What every emitter needs from a modal model, derived once so the Faust, C++, C and .sy
// outputs cannot disagree: frequency ratios, decay rates, and one table of per-mode output
// gains for every (output, excitation point) pair, with a single overall normalisation.
#include <array>
#include <string>
#include <vector>

#include "modal/modal_model.hpp"

namespace mesh2dsp {

// The largest pole radius the generated resonators use, 1 - 2^-20 (exact in float): with it a
// coupled-form pole (r cos theta, r sin theta) rounded to float stays inside the unit circle
// (|r cos|^2 + |r sin|^2 <= (1 - 2^-20)^2 (1 + 2^-22) < 1), where r = 1 (an undamped mode) or a
// long decay at a high rate could round to a pole just outside it, which grows.
inline constexpr double kMaxPoleRadius = 1.0 - 1.0 / 1048576.0;
// Its decay per sample, -ln(kMaxPoleRadius) ≈ 2^-20.
inline constexpr double kMaxPoleDecayPerSample = 1.0 / 1048576.0;

struct EmitModel {
  std::string name;        // identifier-safe model name, e.g. "bowl"
  std::string class_name;  // CamelCase for the C++ class, e.g. "Bowl"
  std::string description; // one line: modes, points, material, source

  double fundamental_hz = 0;            // frequency of the lowest mode
  std::vector<double> frequency_ratio;  // f_n / f_0, ascending
  std::vector<double> decay_per_s;      // σ_n = ξ_n ω_n (1/s); 0 when undamped
  int undamped_modes = 0;               // modes with σ_n = 0 (a notice says so)
  int mode_count = 0;
  int point_count = 0;   // excitation points K
  int output_count = 0;  // listeners L, or 1 for the contact microphone
  bool contact_microphone = true;  // no listeners: output = velocity at the struck point
  // > 0: the outputs are the object's far field as (order + 1)² ambisonic channels (ACN, SN3D;
  // emit/ambisonics.hpp) instead of the listeners; the generated code adds a yaw control.
  int ambisonic_order = 0;

  // gains[(l * K + k) * N + n] = normalisation · e_kn · p_ln, where e_kn = φ_n(x_k)·d_k and the
  // pickup p_ln is the listener gain, or e_kn again for the contact microphone (velocity
  // measured at the struck point along the strike direction).
  std::vector<double> gains;
  // Ambisonic outputs with quadrature (emit/ambisonics.hpp): the gains of each mode's quadrature
  // signal, laid out as gains; empty otherwise. The normalisation then sums |e|·|p + iq|.
  std::vector<double> gains_quadrature;
  // 1 / max over (l, k) of Σ_n |e_kn p_ln|: a unit-momentum strike at any point gives an
  // initial output of at most 1 (the velocity impulse response at t=0+ is Σ_n e_kn p_ln).
  double normalization = 1;
  // The two factors of gains, each carrying √normalisation, for code that interpolates the
  // excitation point (a moving contact): excite[k * N + n] = √norm · e_kn; pickup[l * N + n] =
  // √norm · p_ln for listeners (empty for the contact microphone, whose pickup is the
  // interpolated excitation shape itself).
  std::vector<double> excite;
  std::vector<double> pickup;
  std::vector<double> pickup_quadrature;  // as pickup, for gains_quadrature (else empty)
  // Per output: the listener's propagation delay minus the nearest listener's (s), so stereo
  // listeners keep their interaural delay without a common latency; 0 for the contact microphone.
  std::vector<double> delay_s;
  // From the bank's normalised output to physical units (m/s at the contact, or the listener
  // gains' unit): 1 / normalization.
  double physical_scale = 1;
  // Triangles over the excitation points (the model's excitation_triangles), for a moving
  // contact; may be empty.
  std::vector<std::array<int, 3>> triangles;

  size_t gain_index(int output, int point, int mode) const {
    return (static_cast<size_t>(output) * point_count + point) * mode_count + mode;
  }
  double gain(int output, int point, int mode) const { return gains[gain_index(output, point, mode)]; }
};

// Throws mesh2dsp::Error when the model cannot be emitted (no modes, no excitation points,
// all gains zero, a decay rate that makes a mode overdamped).
// ambisonic_order > 0: the outputs are ambisonic channels (ambisonic_gains) in place of the
// listeners; the model must carry each mode's directivity. quadrature: the resonators give each
// mode's quadrature signal too (the coupled-form reson does, pm.modeFilter does not), so the
// encoding keeps each mode's pattern whole.
EmitModel make_emit_model(const ModalModel& model, const std::string& name_override = {},
                          int ambisonic_order = 0, bool quadrature = true);

// "my-bowl 2" -> "my_bowl_2" (a valid identifier in Faust, C and C++).
std::string identifier_from(const std::string& text);
// "my_bowl_2" -> "MyBowl2".
std::string camel_case(const std::string& identifier);

}  // namespace mesh2dsp
