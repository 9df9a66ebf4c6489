#pragma once
// From the shared analysis options to a modal model: either run the whole analysis on a mesh,
// or read a `.modal.json` and re-tune it exactly to the requested material (no re-solve).
#include "cli/analysis_options.hpp"
#include "modal/modal_model.hpp"
#include "util/stage_timer.hpp"

namespace mesh2dsp {

struct AnalysisReport {
  StageTimer timer;
  int tet_vertices = 0, tetrahedra = 0, dof = 0, rigid_modes = 0;
  bool solved = false;  // false when a model file was re-tuned
};

// True when `path` names a modal model file rather than a mesh.
bool is_modal_model_path(const std::string& path);

// Mesh → tetrahedra → FEM → modes → modal model, or model file → re-tuned model.
// Throws mesh2dsp::Error with one clear message on bad input.
ModalModel load_or_analyze(const AnalysisOptions& options, bool material_given_explicitly,
                           AnalysisReport* report = nullptr);

// The whole analysis of a mesh file.
ModalModel analyze_mesh(const AnalysisOptions& options, AnalysisReport* report = nullptr);

// "bowl: 1570 vertices, 5160 tetrahedra (P2), 31 842 DOF, 40 modes 412.1–9 833.0 Hz, 2.31 s"
std::string summary_line(const ModalModel& model, const AnalysisReport& report);

}  // namespace mesh2dsp
