// `mesh2dsp render X.dsp -o out.wav ...`: JIT-compile a Faust program and render it offline.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>

#include "cli/commands.hpp"
#include "cli/compile_flags.hpp"
#include "runtime/jit/factory_cache.hpp"
#include "runtime/render/offline_render.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {
using namespace runtime;

void register_render_command(CLI::App& app) {
  struct Args {
    std::string dsp, output, input, format = "float";
    std::optional<int> sample_rate, channels;
    std::optional<double> duration;
    std::vector<std::string> sets, triggers;
    CompileFlags compile;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(kRenderCommand.name, kRenderCommand.summary);
  cmd->add_option("dsp", args->dsp, "the Faust program")->required();
  cmd->add_option("-o,--output", args->output, "output file: .wav, .flac or .aiff")->required();
  cmd->add_option("-i,--input", args->input,
                  "sound file fed to the DSP's inputs (a mono file feeds every input)");
  cmd->add_option("-r,--sample-rate", args->sample_rate, "Hz (default: the input's, else 48000)");
  cmd->add_option("-c,--channels", args->channels,
                  "output channels (default: the DSP's outputs; a mono DSP is copied)");
  cmd->add_option("-d,--duration", args->duration, "seconds (default: the input's length, else 3)");
  cmd->add_option("--set", args->sets,
                  "NAME=VALUE or NAME=VALUE@TIME_S: set a control by label or path (may repeat)")
      ->allow_extra_args(false);  // one value per flag: a later positional is not swallowed
  cmd->add_option("--trigger", args->triggers,
                  "NAME@TIME_S or NAME@TIME_S+HOLD_S: press a button (default hold 0.01 s; an empty NAME is the first button; may repeat)")
      ->allow_extra_args(false);
  cmd->add_option("--format", args->format, "sample format: float, pcm24 or pcm16")
      ->capture_default_str();
  args->compile.add_to(*cmd);
  cmd->callback([args] {
    RenderJob job;
    job.dsp_path = args->dsp;
    job.output_path = args->output;
    if (!args->input.empty()) job.input_path = args->input;
    job.sample_rate_hz = args->sample_rate;
    job.channels = args->channels;
    job.duration_s = args->duration;
    for (const auto& s : args->sets) job.events.push_back(parse_set(s));
    for (const auto& t : args->triggers)
      for (auto& e : parse_trigger(t)) job.events.push_back(std::move(e));
    job.format = parse_sample_format(args->format);
    job.compile = args->compile.resolve();
    const auto report = render_to_file(job);
    if (report.clipped_samples > 0)
      notice(fmt::format("{} samples exceeded full scale and were clipped (peak {:.2f}); use "
                         "--format float or lower the level",
                         report.clipped_samples, report.peak));
    if (report.peak == 0.0f) notice("the render is silent (no trigger or input?)");
    if (!is_quiet())
      fmt::print(stderr, "mesh2dsp: wrote {} ({:.2f} s, {} ch, {} Hz, peak {:.3f}; compile {:.2f} s{})\n",
                 job.output_path.string(), static_cast<double>(report.frames) / report.sample_rate_hz,
                 report.channels, report.sample_rate_hz, report.peak, report.compile_s,
                 report.compiled_from_cache ? " from cache" : "");
  });
}

}  // namespace mesh2dsp
