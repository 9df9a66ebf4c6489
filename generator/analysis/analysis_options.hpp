#pragma once
// What an analysis is asked for: the options `modes`, `generate`, `reference` and `validate`
// share, as a plain value. The command line fills it (cli/analysis_flags.hpp); a
// program or the Python module fills it directly.
#include <optional>
#include <string>
#include <vector>

#include "fem/material.hpp"
#include "fem/mesh_input.hpp"

namespace mesh2dsp {

struct AnalysisOptions {
  std::string input;  // mesh file or .modal.json
  std::string material_name = "steel";
  // True when the material was named (--material): a model file is then re-tuned to it. Without
  // it, only the overrides apply to a model file's own material.
  bool material_given = false;
  MaterialOverrides material_overrides;
  double scale = 1.0;  // --scale, or --units as metres per unit
  bool repair = false;
  int modes = 50;
  double fmin_hz = 20, fmax_hz = 20000;
  // --element-order; 0: the mesh's (TetMesh::element_order: cubic for a walled body meshed
  // for the physics), else quadratic.
  int element_order = 0;
  std::optional<double> max_tet_volume_m3;
  std::optional<double> surface_edge_m;
  bool keep_surface = false;
  double element_scale = 1.0;
  std::optional<double> boundary_distance_m;  // --boundary-distance
  std::string resolution = "modes";  // mesh sized for the modes asked, or "band": for --fmax
  std::vector<std::string> fix;
  std::string excite = "auto:8";
  std::vector<std::string> listeners;
  std::string normalize = "physical";
  std::string name;
  double max_memory_bytes = 0;  // --max-memory; 0: the machine's available memory
  std::string solver = "default";  // --solver default | slepc
  std::string radiation = "obrien";  // --radiation obrien | bem: how listener gains are computed
};

// The material from --material and the overrides, validated.
Material resolve_material(const AnalysisOptions& options);

// The checks the command line's validators make (element order, --resolution, --normalize,
// --solver): analyze() calls it, so a program that fills the struct gets the CLI's messages.
void check_analysis_options(const AnalysisOptions& options);

// The element order of the analysis of `tets`: the one asked, else the one the mesh was made
// for, else quadratic.
int element_order_for(const AnalysisOptions& o, const TetMesh& tets);

// How the mesh is read and tetrahedralized for these options (scale, repair, sizing, remeshing):
// the analysis, the reference render and validate make the same tet mesh from the same options.
MeshInputOptions mesh_input_options(const AnalysisOptions& options);

}  // namespace mesh2dsp
