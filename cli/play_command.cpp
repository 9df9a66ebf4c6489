// `mesh2dsp play X.dsp ...`: JIT-compile a Faust program and play it live, reloading on edits.
#include <CLI/CLI.hpp>

#include <memory>

#include "cli/commands.hpp"
#include "cli/compile_flags.hpp"
#include "runtime/live/player.hpp"

namespace mesh2dsp {
using namespace runtime;

void register_play_command(CLI::App& app) {
  struct Args {
    std::string dsp, audio = "auto", name, alsa_device = "default";
    int osc = 0, http = 0, alsa_rate = 48000, alsa_buffer = 256;
    bool no_midi = false, no_reload = false, no_connect = false;
    double crossfade_ms = 50;
    std::optional<double> duration;
    CompileFlags compile;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(kPlayCommand.name, kPlayCommand.summary);
  cmd->add_option("dsp", args->dsp, "the Faust program")->required();
  cmd->add_option("--osc", args->osc, "control over OSC on this UDP port (e.g. 5510)")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--http", args->http, "serve a control page on this TCP port (e.g. 5511)")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--audio", args->audio, "auto (JACK, else ALSA), jack or alsa")->capture_default_str();
  cmd->add_option("--name", args->name, "JACK client name (default mesh2dsp-<program>)");
  cmd->add_flag("--no-connect", args->no_connect, "JACK: do not connect to the system ports");
  cmd->add_option("--alsa-device", args->alsa_device, "ALSA PCM device")->capture_default_str();
  cmd->add_option("--alsa-rate", args->alsa_rate, "ALSA sample rate, Hz")->capture_default_str();
  cmd->add_option("--alsa-buffer", args->alsa_buffer, "ALSA block size, frames")->capture_default_str();
  cmd->add_flag("--no-midi", args->no_midi, "no MIDI input (JACK MIDI by default)");
  cmd->add_flag("--no-reload", args->no_reload, "do not watch the source files for edits");
  cmd->add_option("--crossfade-ms", args->crossfade_ms, "cross-fade on reload, ms")
      ->check(CLI::Range(0.0, 5000.0))
      ->capture_default_str();
  cmd->add_option("--duration", args->duration, "stop after this many seconds (default: run until q or Ctrl-C)");
  args->compile.add_to(*cmd);
  cmd->callback([args] {
    PlayOptions options;
    options.dsp_path = args->dsp;
    options.compile = args->compile.resolve();
    options.audio.backend = parse_backend(args->audio);
    options.audio.client_name =
        args->name.empty() ? "mesh2dsp-" + std::filesystem::path(args->dsp).stem().string() : args->name;
    options.audio.auto_connect = !args->no_connect;
    options.audio.alsa_device = args->alsa_device;
    options.audio.alsa_sample_rate_hz = args->alsa_rate;
    options.audio.alsa_buffer_frames = args->alsa_buffer;
    options.osc_port = args->osc;
    options.http_port = args->http;
    options.midi = !args->no_midi;
    options.reload = !args->no_reload;
    options.crossfade_s = args->crossfade_ms * 1e-3;
    options.duration_s = args->duration;
    play(options);
  });
}

}  // namespace mesh2dsp
