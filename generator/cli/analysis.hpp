#pragma once
// From the shared analysis options to a modal model: either run the whole analysis on a mesh,
// or read a `.modal.json` and re-tune it exactly to the requested material (no re-solve).
#include "cli/analysis_options.hpp"
#include "modal/modal_model.hpp"

namespace mesh2dsp {

// True when `path` names a modal model file rather than a mesh.
bool is_modal_model_path(const std::string& path);

// Mesh → tetrahedra → FEM → modes → modal model, or model file → re-tuned model.
// Throws mesh2dsp::Error with one clear message on bad input.
ModalModel load_or_analyze(const AnalysisOptions& options, bool material_given_explicitly);

}  // namespace mesh2dsp
