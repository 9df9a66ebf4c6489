#pragma once
// From the shared analysis options to a modal model: either run the whole analysis on a mesh,
// or read a `.modal.json` and re-tune it exactly to the requested material (no re-solve).
#include <optional>

#include "cli/analysis_options.hpp"
#include "fem/fem_mesh.hpp"
#include "fem/mesh_input.hpp"
#include "fem/tet_mesh.hpp"
#include "modal/modal_analysis.hpp"
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
// The band, mode count and clamps of the analysis options (--fix parsed).
ModalAnalysisRequest analysis_request(const AnalysisOptions& options);

// The modal model of `tets` (read and tetrahedralized with `options`' mesh options, `fem` made
// from it at options.element_order) for options.excite and options.listeners. `solved`, when
// given, receives the eigen solution (shapes included). Used by analyze_mesh, and by validate,
// whose reference shares the tetrahedralization.
ModalModel analyze_tet_mesh(const AnalysisOptions& options, const Material& material,
                            const TetMesh& tets, const FemMesh& fem, StageTimer* timer = nullptr,
                            ModalAnalysisResult* solved = nullptr);

// When the mesh was sized for less than --fmax and the solve's N-th mode lies above what it was
// sized for (or fewer modes than asked came out in the band), the frequency to mesh for again.
std::optional<double> refinement_frequency_hz(const ModalAnalysisResult& modes,
                                              const TetMesh& tets,
                                              const ModalAnalysisRequest& request);

// The frequency to size the mesh for, from a coarse pass that solves the N modes on a coarse
// interior — when the mesh sized by Weyl's law would be large and the pass shows it can be
// coarser. None: keep Weyl's sizing; then `sized_mesh` (when given) receives the Weyl-sized
// mesh the pass made, when it made one, so it is not meshed twice.
std::optional<double> coarse_pass_sizing_hz(const AnalysisOptions& options,
                                            const Material& material,
                                            const ModalAnalysisRequest& request,
                                            const MeshInputOptions& mesh_options,
                                            AnalysisReport& report,
                                            std::optional<TetMesh>* sized_mesh = nullptr);

ModalModel analyze_mesh(const AnalysisOptions& options, AnalysisReport* report = nullptr);

// "bowl: 1570 vertices, 5160 tetrahedra (P2), 31 842 DOF, 40 modes 412.1–9 833.0 Hz, 2.31 s"
std::string summary_line(const ModalModel& model, const AnalysisReport& report);

}  // namespace mesh2dsp
