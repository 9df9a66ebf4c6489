#pragma once
// A modal model's far-field directivity as ambisonic channel gains: per mode, the gain of its
// velocity in each of the (order + 1)² channels, ACN order, SN3D normalisation (the ambiX /
// IEM convention), so that evaluating the channels' SN3D basis at a direction d,
// Σ_lm B_lm·SN3D_lm(d), gives the mode's far-field pattern F(d) (p ≈ F(d)·e^{ikr}/r) there.
//
// Normalisations (real harmonics without the Condon–Shortley phase, ACN index l² + l + m):
// the model stores F in orthonormal harmonics Y_lm (∫Y² dΩ = 1), Y_lm = N3D_lm / √(4π), and
// N3D_lm = √(2l + 1)·SN3D_lm, so F = Σ c_lm·Y_lm = Σ c_lm·√((2l + 1)/4π)·SN3D_lm.
//
// Axes: ambiX's x front, y left, z up are the mesh's own x, y, z (the bundled meshes are z-up:
// the bowl and the bell stand on +z), so the model's coefficients need no rotation.
#include <vector>

#include "modal/modal_model.hpp"

namespace mesh2dsp {

inline int ambisonic_channel_count(int order) { return (order + 1) * (order + 1); }

// SN3D channel weight of an orthonormal coefficient of degree l: √((2l + 1)/4π).
double sn3d_from_orthonormal(int degree);

// The highest directivity order every mode of the model stores (-1: some mode stores none).
int stored_directivity_order(const ModalModel& model);

// Throws mesh2dsp::Error when `order` is outside 1..kMaxDirectivityOrder (no model needed).
void check_ambisonic_order(int order);

struct AmbisonicGains {
  int order = 0;
  // gains[channel][mode]: the channel gain of the mode's velocity (per unit modal velocity, Pa·m);
  // quadrature[channel][mode]: of its quadrature signal (the velocity a quarter period later in
  // phase), empty when the resonators give none.
  std::vector<std::vector<double>> gains, quadrature;
  // Per mode: the common phase α taken out (rad; 0 with quadrature) and the share of the
  // truncated pattern's energy Σ|c|² the gains keep (1 with quadrature, or when the pattern has
  // one phase everywhere).
  std::vector<double> phase_rad, kept_energy;
};

// Throws mesh2dsp::Error for an order outside 1..kMaxDirectivityOrder, a model without
// directivity, or an order above what it stores (what ambisonic_gains needs, checked alone).
void check_ambisonic_model(const ModalModel& model, int order);

// The channel gains of every mode. With `quadrature` (the resonator gives each mode's velocity
// v and its quadrature q, as the coupled-form one does: the complex state z, v = Re z − k Im z,
// q = Im z + k Re z, so that v − iq is the e^{−iωt} phasor's signal) the encoding is exact:
// p = Re(c)·v + Im(c)·q, gains Re(c), quadrature Im(c). Without, each mode's complex
// coefficients c are made real by one common phase: B = Re(c·e^{−iα}) with α = ½·arg Σ c² in
// (−π/2, π/2], the real pattern closest to c (it maximises Σ Re(c e^{−iα})²) and, where the
// pattern has one phase, the listener gains' rule (the magnitude signed by the in-phase part).
// Harmonics above `order` are dropped; a mode stored to a lower order gets 0 in the higher
// channels. Throws mesh2dsp::Error for a model without directivity or an order above what it
// stores.
AmbisonicGains ambisonic_gains(const ModalModel& model, int order, bool quadrature = true);

}  // namespace mesh2dsp
