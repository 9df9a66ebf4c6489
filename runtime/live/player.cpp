#include "runtime/live/player.hpp"

#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <chrono>
#include <mutex>
#include <thread>

#include "runtime/live/control_surfaces.hpp"
#include "runtime/live/file_watcher.hpp"
#include "runtime/live/swappable_dsp.hpp"
#include "runtime/live/terminal_keys.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp::runtime {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void request_stop(int) { g_stop.store(true); }

constexpr auto kStrikeHold = std::chrono::milliseconds(40);  // > one block at any usual size
constexpr auto kSwapTimeout = std::chrono::milliseconds(3000);

void print_line(const std::string& text) {
  if (!is_quiet()) fmt::print(stderr, "mesh2dsp: {}\n", text);
}

// The state the reload thread and the key loop share. Never touched by the audio thread.
struct Session {
  std::mutex mutex;
  std::shared_ptr<ControlBank> bank;
  std::unique_ptr<ControlSurfaces> surfaces;
};

}  // namespace

PlayReport play(const PlayOptions& options) {
  const FaustCompiler compiler(options.compile);
  CompiledProgram program = compiler.compile_file(options.dsp_path);
  auto first = program.instantiate();
  if (first->getNumOutputs() == 0)
    throw Error(fmt::format("{}: the DSP has no outputs, nothing to play", options.dsp_path.string()));

  Session session;
  session.bank = std::make_shared<ControlBank>(ControlLayout::of(*first));
  // The audio rate is known only once the backend is open; Voice inits at 48 kHz and the
  // driver's init() call re-inits at the real rate before the first callback.
  SwappableDsp live(std::make_unique<Voice>(std::move(first), session.bank, 48000),
                    options.crossfade_s);

  AudioSettings audio_settings = options.audio;
  auto audio = open_audio(audio_settings, live);

  SurfaceSettings surface_settings;
  surface_settings.osc_port = options.osc_port;
  surface_settings.http_port = options.http_port;
  surface_settings.midi = options.midi ? audio->midi() : nullptr;
  surface_settings.name = program.name();
  surface_settings.inputs = live.getNumInputs();
  surface_settings.outputs = live.getNumOutputs();
  session.surfaces = std::make_unique<ControlSurfaces>(*session.bank, surface_settings);

  g_stop.store(false);
  auto old_int = std::signal(SIGINT, request_stop);
  auto old_term = std::signal(SIGTERM, request_stop);
  if (!audio->start()) throw Error("the audio backend did not start");
  const auto started = std::chrono::steady_clock::now();

  TerminalKeys keys;
  print_line(fmt::format("playing {} ({} controls: {}) through {}{}{}",
                         options.dsp_path.string(), session.bank->layout().controls().size(),
                         session.bank->layout().describe_controls(), audio->describe(),
                         session.surfaces->describe().empty() ? "" : "; ",
                         session.surfaces->describe()));
  if (keys.active()) print_line("keys: space/enter strikes, 1-9 presses button N, q quits");
  if (options.reload) print_line("editing the .dsp reloads it");

  PlayReport report;
  std::atomic<int> reloads{0}, failed{0};

  // Hot reload, off the audio thread: watch, compile, prepare the new voice, hand it over.
  std::thread reloader;
  if (options.reload) {
    reloader = std::thread([&] {
      FileWatcher watcher;
      watcher.watch(program.sources());
      const auto interval = std::chrono::duration<double>(options.poll_interval_s);
      while (!g_stop.load()) {
        std::this_thread::sleep_for(interval);
        if (!watcher.changed()) continue;
        try {
          const auto t0 = std::chrono::steady_clock::now();
          CompiledProgram edited = compiler.compile_file(options.dsp_path);
          auto instance = edited.instantiate();
          if (instance->getNumOutputs() == 0)
            throw Error(fmt::format("{}: the edited DSP has no outputs", options.dsp_path.string()));
          if (instance->getNumOutputs() != live.getNumOutputs() ||
              instance->getNumInputs() != live.getNumInputs())
            notice(fmt::format("the edit has {} in / {} out; the audio ports stay {} in / {} out "
                               "(restart to change them)",
                               instance->getNumInputs(), instance->getNumOutputs(),
                               live.getNumInputs(), live.getNumOutputs()));
          ControlLayout layout = ControlLayout::of(*instance);
          std::shared_ptr<ControlBank> bank;
          bool same_controls = false;
          {
            std::lock_guard lock(session.mutex);
            same_controls = layout.same_controls_as(session.bank->layout());
            if (same_controls) {
              session.bank->adopt_defaults(layout);
              bank = session.bank;
            } else {
              bank = std::make_shared<ControlBank>(layout);
              bank->carry_over(*session.bank);
            }
          }
          auto voice = std::make_unique<Voice>(std::move(instance), bank, live.getSampleRate());
          auto old = live.swap(std::move(voice), kSwapTimeout);
          if (!same_controls) {
            // New controls: controllers move to the new bank before the old one can go.
            std::lock_guard lock(session.mutex);
            session.surfaces.reset();
            session.bank = bank;
            session.surfaces = std::make_unique<ControlSurfaces>(*bank, surface_settings);
          }
          old.reset();  // the previous instance, deleted here, off the audio thread
          program = std::move(edited);
          watcher.watch(program.sources());
          ++reloads;
          const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          print_line(fmt::format("reloaded {} in {:.2f} s{}{}", options.dsp_path.string(), took,
                                 program.from_cache() ? " (from cache)" : "",
                                 same_controls ? "" : "; controls changed: " + bank->layout().describe_controls()));
        } catch (const std::exception& e) {
          // Whatever went wrong with the edit (Faust error, unreadable file, out of memory),
          // the running program is untouched: report and keep playing.
          ++failed;
          watcher.watch(program.sources());  // re-arm: the next save is tried again
          fmt::print(stderr, "mesh2dsp: error: {}\nmesh2dsp: the edit did not compile; still playing the previous version\n",
                     e.what());
        }
      }
    });
  }

  // Key loop on this thread; also the clock for --duration.
  bool told_non_finite = false;
  while (!g_stop.load()) {
    if (!told_non_finite && live.stats().non_finite_samples > 0) {
      told_non_finite = true;
      fmt::print(stderr, "mesh2dsp: warning: the program outputs NaN or infinite samples (division by "
                         "zero or an unstable filter?); they are played as silence\n");
    }
    if (options.duration_s &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() >= *options.duration_s)
      break;
    const auto key = keys.poll(100);
    if (!key) continue;
    if (*key == 'q' || *key == 'Q' || *key == 27) break;
    std::vector<FAUSTFLOAT*> buttons;
    {
      std::lock_guard lock(session.mutex);
      buttons = session.bank->button_zones();
    }
    std::size_t which = 0;
    if (*key >= '1' && *key <= '9') which = static_cast<std::size_t>(*key - '1');
    else if (*key != ' ' && *key != '\n' && *key != '\r') continue;
    if (which >= buttons.size()) {
      notice(buttons.empty() ? "this DSP has no button to strike" : "no such button");
      continue;
    }
    // Press, hold long enough for the audio thread to see it, release. The bank outlives this:
    // a rebuild that replaces it happens under the mutex, and we hold a copy of the shared_ptr.
    std::shared_ptr<ControlBank> keep;
    {
      std::lock_guard lock(session.mutex);
      keep = session.bank;
      buttons = keep->button_zones();
    }
    if (which < buttons.size()) {
      *buttons[which] = 1;
      std::this_thread::sleep_for(kStrikeHold);
      *buttons[which] = 0;
    }
  }
  g_stop.store(true);
  if (reloader.joinable()) reloader.join();

  const auto stats = live.stats();
  report.played_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  report.xruns = audio->xruns();
  report.server_cpu_load_percent = audio->server_cpu_load_percent();
  audio->stop();
  session.surfaces.reset();
  std::signal(SIGINT, old_int);
  std::signal(SIGTERM, old_term);

  const double audio_s = stats.frames > 0 ? static_cast<double>(stats.frames) / live.getSampleRate() : 0;
  report.reloads = reloads.load();
  report.failed_reloads = failed.load();
  report.mean_dsp_load_percent = audio_s > 0 ? 100.0 * stats.busy_s / audio_s : 0;
  const double block_s = static_cast<double>(audio->buffer_frames()) / live.getSampleRate();
  report.max_dsp_load_percent = block_s > 0 ? 100.0 * stats.max_callback_s / block_s : 0;
  print_line(fmt::format("played {:.1f} s: {} reloads ({} failed), {} xruns, DSP load mean {:.2f} % "
                         "max {:.2f} % of the {}-frame block{}",
                         report.played_s, report.reloads, report.failed_reloads, report.xruns,
                         report.mean_dsp_load_percent, report.max_dsp_load_percent,
                         audio->buffer_frames(),
                         stats.non_finite_samples
                             ? fmt::format(", {} NaN/inf samples silenced", stats.non_finite_samples)
                             : std::string()));
  return report;
}

}  // namespace mesh2dsp::runtime
