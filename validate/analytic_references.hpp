#pragma once
// Reference frequencies from the continuum theories of bars and plates, for `validate --analytic`
// (issue 12, item 6): a check of the model against physics (material, mesh, element order), where
// the render comparison checks the modal model and its code against the same discretization.
//
// Each theory is solved to convergence here (a fine 1-D finite-element model with Richardson
// extrapolation for the Timoshenko beam, a Rayleigh–Ritz Legendre series for the Mindlin plate)
// rather than read from tables, so any bar or plate dimensions and any material are covered.
#include <string>
#include <vector>

#include "fem/material.hpp"

namespace mesh2dsp::validate {

struct AnalyticMode {
  double frequency_hz = 0;
  std::string label;  // e.g. "bending z2", "longitudinal 1", "plate 3"
};

// Free-free Timoshenko beam of length L and rectangular section width × height, bending in the
// plane of `height`: the first `count` flexural frequencies (Hz). Shear coefficient
// κ = 10(1+ν)/(12+11ν) (Cowper's, for rectangles).
std::vector<double> timoshenko_free_free_hz(double length_m, double width_m, double height_m,
                                            const Material& material, int count);

// Free-free longitudinal modes of a rod of length L and section width × height, with the
// Rayleigh–Love lateral-inertia correction: the first `count` frequencies (Hz).
std::vector<double> longitudinal_free_free_hz(double length_m, double width_m, double height_m,
                                              const Material& material, int count);

// Completely free rectangular Mindlin plate a × b × h (shear coefficient 5/6, rotary inertia):
// the first `count` flexural frequencies (Hz), rigid-body modes excluded.
std::vector<double> mindlin_free_plate_hz(double a_m, double b_m, double h_m, const Material& material,
                                          int count);

// What --analytic knows about a shape: an axis-aligned box whose extents classify it as a bar
// (longest ≥ 4 × middle) or a thin plate (thinnest ≤ 1/10 of the middle). Empty when neither.
struct BoxShape {
  double extent_m[3] = {0, 0, 0};  // sorted: [0] smallest .. [2] largest
  std::string kind;                // "bar", "plate" or ""
};
BoxShape classify_box(double ex_m, double ey_m, double ez_m);

// The analytic modes of a classified box below fmax_hz, ascending.
std::vector<AnalyticMode> analytic_modes(const BoxShape& box, const Material& material, double fmax_hz);

}  // namespace mesh2dsp::validate
