#pragma once
// The analysis options shared by `modes`, `generate`, `reference` and `validate` (DESIGN.md).
#include <optional>
#include <string>
#include <vector>

#include "fem/material.hpp"

namespace CLI {
class App;
}

namespace mesh2dsp {

struct AnalysisOptions {
  std::string input;  // mesh file or .modal.json
  std::string material_name = "steel";
  MaterialOverrides material_overrides;
  double scale = 1.0;  // --scale, or --units as metres per unit
  bool repair = false;
  int modes = 50;
  double fmin_hz = 20, fmax_hz = 20000;
  int element_order = 2;
  std::optional<double> max_tet_volume_m3;
  std::optional<double> surface_edge_m;
  bool keep_surface = false;
  std::string resolution = "modes";  // mesh sized for the modes asked, or "band": for --fmax
  std::vector<std::string> fix;
  std::string excite = "auto:8";
  std::vector<std::string> listeners;
  std::string normalize = "physical";
  std::string name;
  double max_memory_bytes = 0;  // --max-memory; 0: the machine's available memory
  std::string solver = "default";  // --solver default | slepc
};

// Adds the shared options to a subcommand (the positional MESH included).
void add_analysis_options(CLI::App& command, AnalysisOptions& options);

// --solver default|slepc: on `modes`, `generate` and `bench` (`reference` has its own --solver,
// the linear solver of its time stepping).
void add_solver_option(CLI::App& command, std::string& solver);

// The material from --material and the overrides, validated.
Material resolve_material(const AnalysisOptions& options);

}  // namespace mesh2dsp
