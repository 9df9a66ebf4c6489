#pragma once
// The reference for "contact microphone" mode (a model without listeners): the
// surface velocity at the struck point along the strike direction, from the same time-domain
// FEM the reference solver integrates (its Newmark integrator, its low-pass of O'Brien et al.
// eqs. 6-8 and DC blocker of eq. 9), so it is the quantity the generated code outputs without
// listeners. The solver's render_reference() only radiates pressure to listeners; this belongs
// there as an output option and moves when the solver grows one.
#include <vector>

#include "fem/fem_mesh.hpp"
#include "fem/material.hpp"
#include "reference.hpp"

namespace mesh2dsp::validate {

// `settings`: as for render_reference (sample rate, duration, dt, fmax, dc_alpha, force,
// strike); listeners and radiation settings are ignored. Returns one channel (m/s).
std::vector<float> render_contact_velocity(const FemMesh& fem, const Material& material,
                                           const std::vector<bool>& clamped,
                                           const ReferenceSettings& settings, double* dt_s = nullptr);

}  // namespace mesh2dsp::validate
