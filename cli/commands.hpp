#pragma once
// Every subcommand of the one `mesh2dsp` binary. The command files only parse arguments, call
// the library API of their part (generator/analysis, generator/emit, runtime, solver, validate)
// and print; main.cpp registers those whose part was built.
namespace CLI {
class App;
}

namespace mesh2dsp {

void register_modes_command(CLI::App& app);      // generator/analysis
void register_bench_command(CLI::App& app);      // generator/analysis
void register_generate_command(CLI::App& app);   // generator/emit
void register_view_command(CLI::App& app);       // generator/web
void register_render_command(CLI::App& app);     // runtime/render
void register_play_command(CLI::App& app);       // runtime/live
void register_reference_command(CLI::App& app);  // solver
void register_validate_command(CLI::App& app);   // validate
void register_fit_command(CLI::App& app);        // validate (recording_fit)

}  // namespace mesh2dsp
