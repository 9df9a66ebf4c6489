// The runtime's entry into the one `mesh2dsp` binary (generator/cli/commands.hpp).
#include <CLI/CLI.hpp>

#include "cli/commands.hpp"

namespace mesh2dsp {
namespace runtime {
void register_render_command(CLI::App& app);
void register_play_command(CLI::App& app);
}  // namespace runtime

void register_runtime_commands(CLI::App& app) {
  runtime::register_render_command(app);
  runtime::register_play_command(app);
}

}  // namespace mesh2dsp
