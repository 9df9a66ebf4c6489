#pragma once
// The command-line flags of the shared analysis options (every command that analyses a mesh): they
// fill an AnalysisOptions (analysis/analysis_options.hpp), which is all the library sees.
#include <string>

#include "analysis/analysis_options.hpp"

namespace CLI {
class App;
}

namespace mesh2dsp {

// --scale and --units (the mesh file's length unit), which fill one scale factor: on every
// command that analyses a mesh, and on `bench`.
void add_scale_options(CLI::App& command, double& scale);

// Adds the shared options to a subcommand (the positional MESH included).
void add_analysis_options(CLI::App& command, AnalysisOptions& options);

// --solver default|slepc: on `modes`, `generate` and `bench` (`reference` has its own --solver,
// the linear solver of its time stepping).
void add_solver_option(CLI::App& command, std::string& solver);

}  // namespace mesh2dsp
