#pragma once
// From the shared analysis options to a modal model: either run the whole analysis on a mesh,
// or read a `.modal.json` and re-tune it exactly to the requested material (no re-solve).
#include "cli/analysis_options.hpp"
#include "fem/tet_mesh.hpp"
#include "modal/modal_model.hpp"
#include "util/stage_timer.hpp"

namespace mesh2dsp {

struct AnalysisReport {
  StageTimer timer;
  int tet_vertices = 0, tetrahedra = 0, dof = 0, rigid_modes = 0;
  bool solved = false;  // false when a model file was re-tuned
  double estimated_eigen_s = 0;  // factorization + iterations, estimated before factorizing
};

// True when `path` names a modal model file rather than a mesh.
bool is_modal_model_path(const std::string& path);

// Mesh → tetrahedra → FEM → modes → modal model, or model file → re-tuned model.
// Throws mesh2dsp::Error with one clear message on bad input.
ModalModel load_or_analyze(const AnalysisOptions& options, bool material_given_explicitly,
                           AnalysisReport* report = nullptr);

// "X,Y,Z" in metres.
Eigen::Vector3d parse_listener_position(const std::string& text);

// Per-mode listener gains by the reference solver's radiation model (seed 000 eqs. 10-11);
// `eigenvalues` are the modes' ω², for the phase of each triangle's delay.
ModalListener listener_gains(const TetMesh& tets, const Eigen::MatrixXd& shapes,
                             const Eigen::VectorXd& eigenvalues, const Eigen::Vector3d& position);

// The whole analysis of a mesh file.
ModalModel analyze_mesh(const AnalysisOptions& options, AnalysisReport* report = nullptr);

// "bowl: 1570 vertices, 5160 tetrahedra (P2), 31 842 DOF, 40 modes 412.1–9 833.0 Hz, 2.31 s"
std::string summary_line(const ModalModel& model, const AnalysisReport& report);

}  // namespace mesh2dsp
