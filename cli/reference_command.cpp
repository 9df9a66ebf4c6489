// `mesh2dsp reference MESH … -o ref.wav`: the full time-domain FEM render (issue 5).
#include <CLI/CLI.hpp>

#include <fstream>
#include <iterator>
#include <string>

#include "cli/analysis_flags.hpp"
#include "cli/commands.hpp"
#include "reference_job.hpp"

namespace mesh2dsp {
namespace {

// The exact command line, from the kernel (main's argv is not passed to subcommands).
std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string out;
  std::string arg;
  auto flush = [&] {
    const bool plain = !arg.empty() && arg.find_first_of(" \t\"'\\;<>|&$*?()") == std::string::npos;
    if (!out.empty()) out += ' ';
    out += plain ? arg : "'" + arg + "'";
    arg.clear();
  };
  for (char c : all) {
    if (c == '\0')
      flush();
    else
      arg += c;
  }
  if (!arg.empty()) flush();
  return out;
}

}  // namespace

void register_reference_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "reference", "full time-domain FEM render radiated to listeners (O'Brien et al. 2001) -> WAV");
  auto o = std::make_shared<ReferenceJob>();
  add_analysis_options(*cmd, o->analysis);
  cmd->add_option("-o,--output", o->output, "the WAV to write (float, one channel per listener)")
      ->required();
  cmd->add_option("--sidecar", o->sidecar, "the JSON sidecar (default: the output with .json)");
  cmd->add_option("--strike", o->strike, "where: auto | vertex:I | point:X,Y,Z")->capture_default_str();
  cmd->add_option("--force", o->force,
                  "impulse | cosine:DURATION_S (van den Doel & Pai, Modal Synthesis for Vibrating Objects, eq. 7) | file:PATH (time_s force_N lines)")
      ->capture_default_str();
  cmd->add_option("--force-amplitude", o->force_amplitude,
                  "cosine: F_max of eq. 7 (N, the peak is 2 F_max); impulse: N*s; file: scale")
      ->capture_default_str();
  cmd->add_option("--force-direction", o->force_direction,
                  "X,Y,Z (default: into the surface, along minus the outward normal)");
  cmd->add_option("--duration", o->duration_s, "simulated time (s)")->capture_default_str();
  auto* dt = cmd->add_option("--dt", o->dt_s,
                  "time step (s); default: <= 1e-5 s, >= 8 steps per period of --fmax, period "
                  "error (w dt)^2/12 <= 0.5 % at --fmax/2, whole steps per audio sample");
  cmd->add_option("--oversampling", o->oversampling,
                  "steps per audio sample instead (1: fastest; every mode then sounds at "
                  "atan(pi f dt)/(pi dt), which validate corrects exactly)")
      ->check(CLI::Range(1, 64))
      ->excludes(dt);
  cmd->add_flag("--single-precision,!--double-precision", o->single_precision,
                "the Cholesky factor in float (the default: less memory traffic per step, error in "
                "solver/README.md) or in double");
  cmd->add_option("--sample-rate", o->sample_rate_hz, "audio rate (Hz), e.g. 48000 or 44100")
      ->capture_default_str()
      ->check(CLI::Range(8000, 384000));
  cmd->add_flag("--stereo", o->stereo,
                "two listeners 20 cm apart, perpendicular to the view direction, per --listener");
  cmd->add_option("--dc-alpha", o->dc_alpha, "DC blocker loss constant (eq. 9)")->capture_default_str();
  cmd->add_flag("--nonlinear", o->nonlinear,
                "geometric non-linearity: Green strain, St. Venant-Kirchhoff (large deformations)");
  cmd->add_flag("--no-visibility", o->no_visibility, "radiate from every front-facing triangle (no ray casting)");
  cmd->add_option("--solver", o->solver, "linear solver: auto (= cholmod) | simplicial | cholmod | cg (conjugate gradients)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "simplicial", "cholmod", "cg"}));
  cmd->callback([cmd, o] {
    o->strike_given = cmd->get_option("--strike")->count() > 0;
    o->command = command_line();
    render_reference_files(*o);
  });
}

}  // namespace mesh2dsp
