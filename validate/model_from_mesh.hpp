#pragma once
// The model's modes shown at the reference integrator's exact warp (validate compares a
// one-step-per-sample reference with the generated program bin for bin).
#include "modal/modal_model.hpp"

namespace mesh2dsp::validate {

// The model as a Newmark (trapezoidal) render at time step dt_s shows it: every mode's
// frequency and decay mapped by the bilinear transform (solver/newmark.hpp) and its output
// gain scaled by the integrator's amplitude ratio. Rendering this model at the audio rate
// pre-warps the generated side, so both signals can be compared bin for bin.
ModalModel newmark_warped_model(const ModalModel& model, double dt_s);

}  // namespace mesh2dsp::validate
