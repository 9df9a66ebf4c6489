#pragma once
// `mesh2dsp play`: compile, open audio, bind controllers, then until stopped: strike on a key,
// and when a source file changes recompile in the background and cross-fade to the new program
// (a broken edit prints Faust's error and keeps the old program sounding).
#include <filesystem>
#include <optional>
#include <string>

#include "runtime/jit/faust_compiler.hpp"
#include "runtime/live/audio_backend.hpp"

namespace mesh2dsp::runtime {

struct PlayOptions {
  std::filesystem::path dsp_path;
  CompileOptions compile;
  AudioSettings audio;
  int osc_port = 0;    // 0: off
  int http_port = 0;   // 0: off
  bool midi = true;
  bool reload = true;
  double crossfade_s = 0.05;
  double poll_interval_s = 0.2;           // how often sources are checked for edits
  std::optional<double> duration_s;       // stop after this long (tests, benchmarks)
};

struct PlayReport {
  double played_s = 0;
  int reloads = 0, failed_reloads = 0;
  std::uint64_t xruns = 0;
  double mean_dsp_load_percent = 0;  // time in the callback / real time
  double max_dsp_load_percent = 0;   // worst callback / block period
  double server_cpu_load_percent = -1;
};

// Returns when stopped by SIGINT/SIGTERM, 'q', or after duration_s. Throws mesh2dsp::Error if
// the first compile or the audio fails.
PlayReport play(const PlayOptions& options);

}  // namespace mesh2dsp::runtime
