// `mesh2dsp validate`: the command line of validate/validate.hpp. Three ways in:
//   validate MESH [analysis options] --strike S [--listener X,Y,Z] --report DIR
//   validate MESH --model M.modal.json ...
//   validate --model M.modal.json [--dsp X.dsp] --reference ref.wav
// Exit: 0 pass, 1 error (one message, no report), 2 report written but a measure failed.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>

#include "cli/analysis_flags.hpp"
#include "cli/commands.hpp"
#include "cli/compile_flags.hpp"
#include "validate/report.hpp"
#include "validate/validate.hpp"

namespace mesh2dsp {

void register_validate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(kValidateCommand.name, kValidateCommand.summary);
  auto o = std::make_shared<ValidateOptions>();
  auto compile = std::make_shared<runtime::CompileFlags>();
  add_analysis_options(*cmd, o->analysis);
  cmd->get_option("input")->required(false)->description(
      "surface mesh: the reference is rendered from it (omit with --reference)");
  cmd->add_option("--model", o->model, "an existing .modal.json to validate (default: analyse MESH)");
  cmd->add_option("--dsp", o->dsp, "an existing Faust program of --model (default: emitted from the model)");
  cmd->add_option("--reference", o->reference,
                  "reference WAV: a `mesh2dsp reference` render (its .json sidecar is read) or any recording (its partials "
                  "judged after one fitted E/rho scale, as `mesh2dsp fit` fits it)");
  cmd->add_option("--reference-channel", o->reference_channel, "channel of --reference")->capture_default_str();
  cmd->add_option("--report", o->report, "report directory (report.html, report.json, the renders)")
      ->capture_default_str();
  cmd->add_option("--strike", o->strike,
                  "where the reference is struck: auto | vertex:I | point:X,Y,Z (default: --excite, or the "
                  "model's excitation point)");
  cmd->add_option("--force", o->force, "impulse | cosine:DURATION_S | file:PATH, as for reference")
      ->capture_default_str();
  cmd->add_option("--force-amplitude", o->force_amplitude, "cosine: F_max (N); impulse: N*s")->capture_default_str();
  cmd->add_option("--duration", o->duration_s, "rendered time (s)")->capture_default_str();
  cmd->add_option("--dt", o->dt_s, "reference time step (s); default one audio sample / --oversampling")
      ->excludes(cmd->add_option("--oversampling", o->oversampling,
                                 "reference steps per audio sample (the integrator's warp is corrected exactly "
                                 "at any step)")->capture_default_str()->check(CLI::Range(1, 64)));
  cmd->add_flag("--single-precision,!--double-precision", o->single_precision,
                "reference: the Cholesky factor in float (the default: faster, error measured in "
                "solver/README.md) or in double");
  cmd->add_option("--sample-rate", o->sample_rate_hz, "audio rate (Hz; default 48000, or the --reference file's)")
      ->check(CLI::Range(8000, 384000));
  cmd->add_option("--dc-alpha", o->dc_alpha,
                  "the DC blocker (eq. 9) the reference went through, applied to the generated render too "
                  "(a recording: none unless given)")->capture_default_str();
  cmd->add_option("--point", o->point, "the model's excitation point to strike (a recording: by default the point whose strike explains it "
                  "best)")->capture_default_str();
  cmd->add_option("--output", o->output, "the model's output (listener) to compare (a recording: by default the one that explains it best)")->capture_default_str();
  cmd->add_flag("--align-fundamental", o->align_fundamental,
                "also match with the model scaled so its lowest mode sits on the reference's lowest peak "
                "(Mesh2Audio's practice; reported beside the raw comparison)");
  cmd->add_option("--frequency-tolerance", o->frequency_tolerance_percent, "per-mode frequency (%)")->capture_default_str();
  cmd->add_option("--t60-tolerance", o->t60_tolerance_percent, "per-mode T60 (%)")->capture_default_str();
  cmd->add_option("--lsd-bound", o->lsd_bound_db, "log-spectral distance bound (dB)")->capture_default_str();
  cmd->add_option("--level-tolerance", o->level_tolerance_db, "RMS level ratio (dB)")->capture_default_str();
  cmd->add_option("--onset-tolerance", o->onset_tolerance_ms, "onset against the acoustic delay (ms)")->capture_default_str();
  cmd->add_option("--max-missing", o->max_missing, "audible modes the reference may lack")->capture_default_str();
  cmd->add_option("--spurious-db", o->spurious_db,
                  "a reference peak no mode explains fails when within this of the strongest (dB)")->capture_default_str();
  cmd->add_option("--judge-floor", o->judge_floor_db,
                  "audible: a mode is judged when its peak is within this of the strongest in either render (dB); "
                  "quieter in both, it is listed with its levels, not judged")->capture_default_str();
  cmd->add_flag("--analytic", o->analytic,
                "instead of a render: the model's frequencies against the theory of MESH's shape (free-free "
                "Timoshenko bar, free Mindlin plate) -> REPORT/analytic.json");
  cmd->add_option("--analytic-tolerance", o->analytic_tolerance_percent,
                  "--analytic: per-mode frequency against theory (%)")->capture_default_str();
  compile->add_to(*cmd);
  cmd->callback([cmd, o, compile] {
    o->dc_alpha_given = cmd->get_option("--dc-alpha")->count() > 0;
    o->point_given = cmd->get_option("--point")->count() > 0;
    o->output_given = cmd->get_option("--output")->count() > 0;
    o->compile = compile->resolve();
    const ValidationVerdict verdict = validate_model(*o);
    // The verdict is the command's result: printed even with --quiet (which silences progress).
    fmt::print("{}", verdict.text);
    std::fflush(stdout);
    if (!verdict.passed) throw CLI::RuntimeError(validate::kExitValidationFailed);
  });
}

}  // namespace mesh2dsp
