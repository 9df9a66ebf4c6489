#pragma once
// The analysis stage of the library API: surface or tet mesh (or a model file) + material +
// AnalysisOptions -> ModalModel. Either the whole analysis (surface -> remesh -> tetrahedra ->
// FEM -> modes -> gains -> listener gains), or a `.modal.json` read and re-tuned exactly to the
// requested material (no re-solve). The CLI's `modes`, `generate`, `view`, `bench`, `validate`
// and the Python module all come through here.
#include <functional>
#include <optional>

#include "analysis/analysis_options.hpp"
#include "fem/surface_mesh.hpp"
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
  SolveEstimate eigen_estimate;    // factorization + iterations, estimated before factorizing
  int solved_vectors = 0;          // Lanczos vectors (right-hand sides solved with the factor)
  double triangular_solve_s = 0;   // the time those solves took
  int mass_products = 0;           // M times a block of the basis
  double mass_product_s = 0;       // the time those products took
};

// True when `path` names a modal model file rather than a mesh.
bool is_modal_model_path(const std::string& path);

// options.input is a mesh file -> the whole analysis; a model file -> read, re-tuned to the
// material when options.material_given (or overrides are set), renamed by options.name.
// Throws mesh2dsp::Error with one clear message (the CLI's) on bad input.
ModalModel analyze(const AnalysisOptions& options, AnalysisReport* report = nullptr);
// A surface already in memory (vertices in options.scale units, faces outward or orientable):
// the same analysis as for a file; options.input only names the model (its stem).
ModalModel analyze(const SurfaceMesh& surface, const AnalysisOptions& options,
                   AnalysisReport* report = nullptr);
// A tet mesh as it is (no remeshing, no sizing): FEM at options.element_order, then the modes.
ModalModel analyze(const TetMesh& tets, const AnalysisOptions& options, AnalysisReport* report = nullptr);

// Re-tunes a model exactly to the material `options` asks for (no re-solve): the preset
// options.material_name when options.material_given, then the overrides, on the model's own
// material otherwise; nothing when neither. A preset of another Poisson ratio keeps the model's
// (said in a notice and in the material's name): re-tuning is exact only at fixed ν.
void retune(ModalModel& model, const AnalysisOptions& options);

// "X,Y,Z" in metres.
Eigen::Vector3d parse_listener_position(const std::string& text);

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
// mesh the pass made, when it made one, so it is not meshed twice. With the input `surface`
// the Weyl-sized mesh's size is estimated from it, and the mesh is made only when small;
// `cache` is the surface's meshing cache (its wall thickness tells a walled body).
// Where the analysis gets its tet mesh for given mesh options: a file read and meshed, or a
// surface in memory meshed.
using TetMeshSource = std::function<TetMesh(const MeshInputOptions&, StageTimer*)>;

std::optional<double> coarse_pass_sizing_hz(const TetMeshSource& source,
                                            const AnalysisOptions& options,
                                            const Material& material,
                                            const ModalAnalysisRequest& request,
                                            const MeshInputOptions& mesh_options,
                                            AnalysisReport& report,
                                            std::optional<TetMesh>* sized_mesh = nullptr,
                                            const SurfaceMesh* surface = nullptr,
                                            SurfaceMeshingCache* cache = nullptr);

// The whole analysis of a mesh file (options.input), always solved (a model file is an error).
ModalModel analyze_mesh(const AnalysisOptions& options, AnalysisReport* report = nullptr);

// "bowl: 1570 vertices, 5160 tetrahedra (P2), 31 842 DOF, 40 modes 412.1–9 833.0 Hz, 2.31 s"
std::string summary_line(const ModalModel& model, const AnalysisReport& report);

}  // namespace mesh2dsp
