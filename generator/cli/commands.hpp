#pragma once
// Every subcommand of the one `mesh2dsp` binary registers itself through one of these.
// Each part of the project (generator, emit, runtime, solver, validate) defines its own in its
// own library; main.cpp calls those that were built.
namespace CLI {
class App;
}

namespace mesh2dsp {

void register_modes_command(CLI::App& app);       // generator/cli
void register_bench_command(CLI::App& app);       // generator/cli
void register_generate_command(CLI::App& app);    // generator/emit
void register_view_command(CLI::App& app);        // generator/web (in the emit library)
void register_runtime_commands(CLI::App& app);    // runtime/: render, play
void register_reference_command(CLI::App& app);   // solver/
void register_validate_command(CLI::App& app);    // validate (later)

}  // namespace mesh2dsp
