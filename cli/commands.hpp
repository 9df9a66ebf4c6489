#pragma once
// Every subcommand of `mesh2dsp`. The command files only parse arguments, call the library API
// of their part (generator/analysis, generator/emit, runtime, solver, validate) and print;
// main.cpp registers those whose part was built.
namespace CLI {
class App;
}

namespace mesh2dsp {

// The commands that need the Faust runtime (libfaust, LLVM, JACK). They live in `mesh2dsp-full`;
// `mesh2dsp` lists them and hands them over to it (cli/forward_to_full.hpp), so the analysis
// commands load none of those libraries (`mesh2dsp --version`: 90 -> 36 MB resident, 0.3 -> 0.13 s).
struct CommandSummary {
  const char* name;
  const char* summary;
};
inline constexpr CommandSummary kRenderCommand{"render",
    "JIT-compile a Faust .dsp and render it to a sound file"};
inline constexpr CommandSummary kPlayCommand{"play",
    "JIT-compile a Faust .dsp and play it live; edits reload it"};
inline constexpr CommandSummary kValidateCommand{"validate",
    "compare a generated model or Faust program with a reference render or a recording -> "
    "report.html + report.json; exit 0 pass, 1 error, 2 validation failed"};
inline constexpr CommandSummary kFitCommand{"fit",
    "fit a model to recordings of the real object: one E/rho scale from its partials, Rayleigh "
    "alpha, beta from their decays -> the model re-tuned exactly (no re-solve)"};
inline constexpr CommandSummary kRuntimeCommands[] = {kRenderCommand, kPlayCommand, kValidateCommand,
                                                     kFitCommand};

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
