#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analysis/analysis.hpp"
#include "cli/analysis_flags.hpp"
#include "cli/commands.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {

void register_modes_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("modes", "analysis only: mesh (or model) -> modal model file");
  auto options = std::make_shared<AnalysisOptions>();
  auto output = std::make_shared<std::string>();
  auto surface_data = std::make_shared<bool>(false);
  add_analysis_options(*cmd, *options);
  add_solver_option(*cmd, options->solver);
  cmd->add_option("-o,--output", *output, "the modal model to write (.modal.json)")->required();
  cmd->add_flag("--surface-data", *surface_data,
                "also write <name>.surface.bin beside the model: the surface and its per-vertex "
                "mode shapes, for `mesh2dsp view`");
  cmd->callback([options, output, surface_data] {
    AnalysisReport report;
    ModalModel model = analyze(*options, &report);
    if (!*surface_data) model.surface.reset();
    else if (!model.surface)
      throw Error("--surface-data needs the mesh, or a model file whose surface data is beside it");
    write_modal_model(*output, model);
    if (!is_quiet()) fmt::print(stderr, "{} -> {}\n", summary_line(model, report), *output);
  });
}

}  // namespace mesh2dsp
