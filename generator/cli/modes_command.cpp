#include <CLI/CLI.hpp>

#include "cli/analysis_options.hpp"
#include "cli/commands.hpp"
#include "util/error.hpp"

namespace mesh2dsp {

void register_modes_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("modes", "analysis only: mesh -> modal model file");
  auto options = std::make_shared<AnalysisOptions>();
  add_analysis_options(*cmd, *options);
  cmd->callback([options] { throw Error("modes: the FEM pipeline is being built"); });
}

}  // namespace mesh2dsp
