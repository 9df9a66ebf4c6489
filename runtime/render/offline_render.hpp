#pragma once
// Offline rendering: run a dsp instance for a number of frames, applying timed control changes
// at their exact frame, reading inputs from and writing outputs to callbacks.
#include <faust/dsp/dsp.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/jit/faust_compiler.hpp"
#include "runtime/render/events.hpp"
#include "runtime/render/sound_files.hpp"

namespace mesh2dsp::runtime {

// Frames per compute() call. Faust reads controls once per call, so blocks are also split at
// event frames: a change lands on its exact sample whatever the block size.
inline constexpr int kOfflineBlockFrames = 256;

struct OfflineIO {
  // Fills the instance's inputs for the next `frames` frames; empty: silence.
  std::function<void(float* const* inputs, int frames)> read_input;
  // Receives the instance's outputs.
  std::function<void(const float* const* outputs, int frames)> write_output;
  std::function<void(double fraction_done)> progress;
};

// `instance` must be initialised. Events are applied (zone = value) before their frame.
void run_offline(dsp& instance, std::int64_t frames, const std::vector<ZoneEvent>& events,
                 const OfflineIO& io);

// Everything `mesh2dsp render` does, as data.
struct RenderJob {
  std::filesystem::path dsp_path;     // the program's file; with dsp_source, only its name
  std::string dsp_source;             // the program's text (compiled instead of reading dsp_path)
  std::filesystem::path output_path;
  std::optional<std::filesystem::path> input_path;  // fed to the DSP's inputs
  std::optional<int> sample_rate_hz;                // default: the input's, else 48000
  std::optional<int> channels;                      // default: the DSP's outputs
  std::optional<double> duration_s;                 // default: the input's length, else 3 s
  std::vector<ParameterEvent> events;
  SampleFormat format = SampleFormat::float32;
  CompileOptions compile;
};

struct RenderReport {
  std::int64_t frames = 0;
  int channels = 0;
  int sample_rate_hz = 0;
  double compile_s = 0;
  bool compiled_from_cache = false;
  std::int64_t clipped_samples = 0;
  float peak = 0;  // largest |sample| written
};

// Compiles, checks the request against the DSP, renders, and commits the file.
// Throws mesh2dsp::Error (CompileError for Faust errors) before anything is written.
RenderReport render_to_file(const RenderJob& job);

// The same render kept in memory (job.output_path and job.format unused): the render stage of
// the library API.
struct RenderedAudio {
  std::vector<std::vector<float>> channels;  // channels × frames
  int sample_rate_hz = 0;
  RenderReport report;  // clipped_samples stays 0: nothing is quantised
};
RenderedAudio render(const RenderJob& job);

}  // namespace mesh2dsp::runtime
