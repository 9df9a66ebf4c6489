#include <CLI/CLI.hpp>

#include "util/error.hpp"

namespace mesh2dsp::runtime {
void register_play_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("play", "JIT-compile a Faust .dsp and play it live");
  cmd->callback([] { throw Error("play: not built yet"); });
}
}  // namespace mesh2dsp::runtime
