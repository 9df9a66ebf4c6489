#pragma once
// What `validate` needs of the analysis, from a tet mesh it already has: the reference and the
// model share one tetrahedralization (issue 12, item 4; it was tetrahedralized twice), and the
// model's modes are shown at the reference integrator's exact warp.
#include "cli/analysis_options.hpp"
#include "fem/fem_mesh.hpp"
#include "fem/tet_mesh.hpp"
#include "modal/modal_model.hpp"
#include "util/stage_timer.hpp"

namespace mesh2dsp::validate {

// The modal model of `tets` (already read and tetrahedralized with `options`' mesh options,
// `fem` made from it at options.element_order) for options.excite and options.listeners, as
// analyze_mesh (generator/cli/analysis.cpp) makes it from the mesh file.
ModalModel analyze_tet_mesh(const AnalysisOptions& options, const Material& material, const TetMesh& tets,
                            const FemMesh& fem, StageTimer* timer = nullptr);

// The model as a Newmark (trapezoidal) render at time step dt_s shows it: every mode's
// frequency and decay mapped by the bilinear transform (solver/newmark.hpp) and its output
// gain scaled by the integrator's amplitude ratio. Rendering this model at the audio rate
// pre-warps the generated side, so both signals can be compared bin for bin.
ModalModel newmark_warped_model(const ModalModel& model, double dt_s);

}  // namespace mesh2dsp::validate
