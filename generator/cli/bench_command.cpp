#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "util/error.hpp"

namespace mesh2dsp {

void register_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "benchmarks: per-stage wall time and peak memory");
  cmd->callback([] { throw Error("bench: the FEM pipeline is being built"); });
}

}  // namespace mesh2dsp
