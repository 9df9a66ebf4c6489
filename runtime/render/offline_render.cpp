#include "runtime/render/offline_render.hpp"

#include "runtime/dsp/flush_to_zero.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>

#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp::runtime {
namespace {

constexpr int kDefaultSampleRate_hz = 48000;

// Ctrl-C during a long render: stop at the next block and unwind, so the temporary is removed
// instead of being left next to the target.
std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) { g_interrupted.store(true); }

struct InterruptGuard {
  using Handler = void (*)(int);
  Handler old_int, old_term;
  InterruptGuard() {
    g_interrupted.store(false);
    old_int = std::signal(SIGINT, on_interrupt);
    old_term = std::signal(SIGTERM, on_interrupt);
  }
  ~InterruptGuard() {
    std::signal(SIGINT, old_int);
    std::signal(SIGTERM, old_term);
  }
};
constexpr double kDefaultDuration_s = 3.0;

struct ChannelBuffers {
  std::vector<std::vector<float>> storage;
  std::vector<float*> pointers;
  ChannelBuffers(int channels, int frames)
      : storage(static_cast<std::size_t>(std::max(channels, 0)), std::vector<float>(frames, 0.0f)) {
    for (auto& s : storage) pointers.push_back(s.data());
  }
  float** data() { return pointers.empty() ? nullptr : pointers.data(); }
};

}  // namespace

void run_offline(dsp& instance, std::int64_t frames, const std::vector<ZoneEvent>& events,
                 const OfflineIO& io) {
  const ScopedFlushToZero flush_to_zero;  // as an audio thread runs: no subnormal slow paths
  ChannelBuffers inputs(instance.getNumInputs(), kOfflineBlockFrames);
  ChannelBuffers outputs(instance.getNumOutputs(), kOfflineBlockFrames);
  std::size_t next_event = 0;
  std::int64_t done = 0;
  while (done < frames) {
    while (next_event < events.size() && events[next_event].frame <= done) {
      *events[next_event].zone = events[next_event].value;
      ++next_event;
    }
    std::int64_t block = std::min<std::int64_t>(kOfflineBlockFrames, frames - done);
    if (next_event < events.size()) block = std::min(block, events[next_event].frame - done);
    const int n = static_cast<int>(block);
    if (io.read_input) io.read_input(inputs.data(), n);
    instance.compute(n, inputs.data(), outputs.data());
    if (io.write_output) io.write_output(outputs.data(), n);
    done += block;
    if (io.progress) io.progress(static_cast<double>(done) / static_cast<double>(frames));
  }
}

namespace {

// Where rendered blocks go: a sound file, or memory. `begin` gets the shape before any block.
struct RenderSink {
  std::function<void(int channels, int rate_hz, std::int64_t frames)> begin;
  std::function<void(const float* const* channels, int frames)> write;
  std::function<void()> commit;
};

// Everything render and render_to_file share: checks, compile, bind events, run.
RenderReport render_into(const RenderJob& job, const RenderSink& sink) {
  // Check everything that can be checked before compiling (seconds) and before writing.
  std::optional<SoundFileReader> input;
  if (job.input_path) input.emplace(*job.input_path);
  if (job.sample_rate_hz && (*job.sample_rate_hz < 1000 || *job.sample_rate_hz > 768000))
    throw Error(fmt::format("--sample-rate {}: expected 1000..768000 Hz", *job.sample_rate_hz));
  if (job.duration_s && !(*job.duration_s > 0))
    throw Error("--duration must be > 0 s");
  const int rate_hz = job.sample_rate_hz  ? *job.sample_rate_hz
                      : input             ? input->sample_rate_hz()
                                          : kDefaultSampleRate_hz;
  if (input && input->sample_rate_hz() != rate_hz)
    throw Error(fmt::format("{} is at {} Hz but the render is at {} Hz (no resampling: convert "
                            "the input or drop --sample-rate)",
                            job.input_path->string(), input->sample_rate_hz(), rate_hz));

  FaustCompiler compiler(job.compile);
  std::optional<Progress> compiling;
  compiling.emplace("compiling");
  const CompiledProgram program =
      job.dsp_source.empty()
          ? compiler.compile_file(job.dsp_path)
          : compiler.compile_string(job.dsp_path.empty() ? "program" : job.dsp_path.stem().string(), job.dsp_source);
  compiling->finish(program.from_cache() ? "(from cache)" : "");
  compiling.reset();
  auto instance = program.instantiate();
  instance->init(rate_hz);

  const int dsp_outputs = instance->getNumOutputs();
  const int dsp_inputs = instance->getNumInputs();
  if (dsp_outputs == 0)
    throw Error(fmt::format("{}: the DSP has no outputs, nothing to render", job.dsp_path.string()));
  const int channels = job.channels.value_or(dsp_outputs);
  if (channels < 1) throw Error("--channels must be >= 1");
  if (channels != dsp_outputs && dsp_outputs != 1)
    throw Error(fmt::format("--channels {}: the DSP has {} outputs; ask for {} (or write a mono DSP "
                            "to have it copied to every channel)",
                            channels, dsp_outputs, dsp_outputs));
  if (input && dsp_inputs == 0)
    throw Error(fmt::format("{}: the DSP has no inputs to feed {} to", job.dsp_path.string(),
                            job.input_path->string()));
  if (input && input->channels() != dsp_inputs && input->channels() != 1)
    throw Error(fmt::format("{} has {} channels but the DSP has {} inputs (a mono file feeds "
                            "every input)",
                            job.input_path->string(), input->channels(), dsp_inputs));
  if (!input && dsp_inputs > 0)
    notice(fmt::format("the DSP has {} inputs and no -i file: they get silence", dsp_inputs));

  const ControlLayout layout = ControlLayout::of(*instance);
  const auto events = bind_events(job.events, layout, rate_hz);
  const double duration_s = job.duration_s ? *job.duration_s
                            : input ? static_cast<double>(input->frames()) / rate_hz
                                    : kDefaultDuration_s;
  const auto frames = static_cast<std::int64_t>(std::llround(duration_s * rate_hz));
  if (frames < 1) throw Error("the render would be empty (duration shorter than one sample)");

  sink.begin(channels, rate_hz, frames);
  RenderReport report;
  report.frames = frames;
  report.channels = channels;
  report.sample_rate_hz = rate_hz;
  report.compile_s = program.compile_s();
  report.compiled_from_cache = program.from_cache();

  // Input: a mono file feeds every DSP input.
  std::vector<float> mono(kOfflineBlockFrames);
  std::vector<float*> fanned(static_cast<std::size_t>(channels));
  Progress rendering("rendering");
  OfflineIO io;
  if (input) {
    io.read_input = [&](float* const* in, int n) {
      if (input->channels() == dsp_inputs) return input->read(in, n);
      float* one = mono.data();
      input->read(&one, n);
      for (int c = 0; c < dsp_inputs; ++c) std::copy_n(mono.data(), n, in[c]);
    };
  }
  std::int64_t frames_written = 0;
  io.write_output = [&](const float* const* out, int n) {
    for (int c = 0; c < channels; ++c) fanned[c] = const_cast<float*>(out[dsp_outputs == 1 ? 0 : c]);
    for (int c = 0; c < dsp_outputs; ++c)
      for (int i = 0; i < n; ++i) {
        const float magnitude = std::fabs(out[c][i]);
        if (!std::isfinite(magnitude)) {
          // A sound file of NaN is useless and dangerous downstream: stop, say where, write nothing.
          const auto frame = frames_written + i;
          throw Error(fmt::format(
              "{}: output {} is {} at {:.4f} s (frame {}); nothing written. The DSP divides by zero "
              "or a filter is unstable (check the controls' values at that time)",
              job.dsp_path.string(), c, std::isnan(magnitude) ? "NaN" : "infinite",
              static_cast<double>(frame) / rate_hz, frame));
        }
        report.peak = std::max(report.peak, magnitude);
      }
    sink.write(fanned.data(), n);
    frames_written += n;
  };
  InterruptGuard interrupt_guard;
  io.progress = [&](double fraction) {
    if (g_interrupted.load()) throw Error("interrupted; nothing written");
    rendering.update(fraction, fmt::format("{:.1f}/{:.1f} s", fraction * duration_s, duration_s));
  };
  run_offline(*instance, frames, events, io);
  sink.commit();
  rendering.finish();
  return report;
}

}  // namespace

RenderReport render_to_file(const RenderJob& job) {
  std::optional<SoundFileWriter> writer;
  RenderSink sink;
  sink.begin = [&](int channels, int rate_hz, std::int64_t) {
    writer.emplace(job.output_path, channels, rate_hz, job.format);
  };
  sink.write = [&](const float* const* channels, int frames) { writer->write(channels, frames); };
  sink.commit = [&] { writer->commit(); };
  RenderReport report = render_into(job, sink);
  report.clipped_samples = writer->clipped_samples();
  return report;
}

RenderedAudio render(const RenderJob& job) {
  RenderedAudio audio;
  RenderSink sink;
  sink.begin = [&](int channels, int rate_hz, std::int64_t frames) {
    audio.channels.assign(static_cast<std::size_t>(channels), {});
    for (auto& c : audio.channels) c.reserve(static_cast<std::size_t>(frames));
    audio.sample_rate_hz = rate_hz;
  };
  sink.write = [&](const float* const* channels, int frames) {
    for (std::size_t c = 0; c < audio.channels.size(); ++c)
      audio.channels[c].insert(audio.channels[c].end(), channels[c], channels[c] + frames);
  };
  sink.commit = [] {};
  audio.report = render_into(job, sink);
  return audio;
}

}  // namespace mesh2dsp::runtime
