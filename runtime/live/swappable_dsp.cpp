#include "runtime/live/swappable_dsp.hpp"

#include "runtime/dsp/flush_to_zero.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

namespace mesh2dsp::runtime {
namespace {

std::uint64_t now_ns() {
  // steady_clock is clock_gettime(CLOCK_MONOTONIC): a vDSO read, not a blocking system call.
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace

Voice::Voice(std::unique_ptr<dsp> instance, std::shared_ptr<ControlBank> bank, int sample_rate_hz)
    : instance_(std::move(instance)),
      bank_(std::move(bank)),
      inputs_(instance_->getNumInputs()),
      outputs_(instance_->getNumOutputs()) {
  instance_->init(sample_rate_hz);
  // Bind by position: the bank was made from (or checked equal to) this instance's layout.
  const ControlLayout own = ControlLayout::of(*instance_);
  const auto controls = own.controls();
  const auto& zones = bank_->zones();
  for (std::size_t i = 0; i < controls.size() && i < zones.size(); ++i) {
    if (controls[i]->is_input()) control_in_.push_back({zones[i], *controls[i]});
    else control_out_.emplace_back(controls[i]->zone, zones[i]);
  }
  silence_.assign(kMaxChunkFrames, 0.0f);
  input_pointers_.assign(static_cast<std::size_t>(inputs_) + 1, silence_.data());
  output_storage_.assign(static_cast<std::size_t>(std::max(outputs_, 1)) * kMaxChunkFrames, 0.0f);
  for (int c = 0; c < std::max(outputs_, 1); ++c)
    output_pointers_.push_back(output_storage_.data() + static_cast<std::size_t>(c) * kMaxChunkFrames);
}

void Voice::render(const float* const* driver_inputs, int driver_input_count, int offset,
                   int frames) {
  for (const auto& in : control_in_) in.control.set(*in.bank);
  for (int c = 0; c < inputs_; ++c)
    input_pointers_[c] = c < driver_input_count ? const_cast<float*>(driver_inputs[c]) + offset
                                                : silence_.data();
  instance_->compute(frames, input_pointers_.data(), output_pointers_.data());
  for (const auto& [instance_zone, bank_zone] : control_out_) *bank_zone = *instance_zone;
}

SwappableDsp::SwappableDsp(std::unique_ptr<Voice> first, double crossfade_s)
    : current_(first.release()),
      inputs_(current_->inputs()),
      outputs_(current_->outputs()),
      sample_rate_hz_(current_->instance().getSampleRate()),
      crossfade_s_(crossfade_s) {}

SwappableDsp::~SwappableDsp() {
  delete current_;
  delete previous_;
  delete pending_.load();
  delete retired_.load();
}

void SwappableDsp::init(int sample_rate_hz) {
  // Called by the driver before audio starts, with the device's rate.
  sample_rate_hz_ = sample_rate_hz;
  fade_frames_ = std::max<std::int64_t>(1, std::llround(crossfade_s_ * sample_rate_hz));
  if (current_->instance().getSampleRate() != sample_rate_hz) current_->instance().init(sample_rate_hz);
}

namespace {
thread_local bool t_in_audio_callback = false;
}  // namespace

bool in_audio_callback() { return t_in_audio_callback; }

void SwappableDsp::compute(int count, FAUSTFLOAT** inputs, FAUSTFLOAT** outputs) {
  // REAL-TIME: no allocation, no lock, no system call below this line.
  const ScopedFlushToZero flush_to_zero;  // a register write: decaying tails never go subnormal
  t_in_audio_callback = true;
  const std::uint64_t start_ns = now_ns();
  audio_running_.store(true, std::memory_order_relaxed);

  // Swap only at a block boundary and only when no fade is in progress.
  if (!previous_) {
    if (Voice* next = pending_.exchange(nullptr, std::memory_order_acquire)) {
      previous_ = current_;
      current_ = next;
      fade_position_ = 0;
    }
  }

  for (int offset = 0; offset < count; offset += kMaxChunkFrames) {
    const int frames = std::min(kMaxChunkFrames, count - offset);
    current_->render(inputs, inputs_, offset, frames);
    if (previous_) {
      previous_->render(inputs, inputs_, offset, frames);
      for (int c = 0; c < outputs_; ++c) {
        const float* in_new = current_->output(c);
        const float* in_old = previous_->output(c);
        float* out = outputs[c] + offset;
        for (int i = 0; i < frames; ++i) {
          // Equal-power: the two programs are unrelated signals, so keep their power constant.
          const double x = std::min(1.0, static_cast<double>(fade_position_ + i) / fade_frames_);
          const float gain_new = static_cast<float>(std::sin(0.5 * M_PI * x));
          const float gain_old = static_cast<float>(std::cos(0.5 * M_PI * x));
          out[i] = gain_new * in_new[i] + gain_old * in_old[i];
        }
      }
      fade_position_ += frames;
      if (fade_position_ >= fade_frames_) {
        // The old voice leaves the audio path; the control thread deletes it.
        retired_.store(previous_, std::memory_order_release);
        previous_ = nullptr;
      }
    } else {
      for (int c = 0; c < outputs_; ++c)
        std::copy_n(current_->output(c), frames, outputs[c] + offset);
    }
  }

  // NaN or inf must not reach the sound card or the next JACK client: silence those samples and
  // count them (a program dividing by zero, or an unstable filter).
  std::uint64_t non_finite = 0;
  for (int c = 0; c < outputs_; ++c)
    for (int i = 0; i < count; ++i)
      if (!std::isfinite(outputs[c][i])) {
        outputs[c][i] = 0.0f;
        ++non_finite;
      }
  if (non_finite) non_finite_.fetch_add(non_finite, std::memory_order_relaxed);

  const std::uint64_t busy = now_ns() - start_ns;
  callbacks_.fetch_add(1, std::memory_order_relaxed);
  frames_.fetch_add(static_cast<std::uint64_t>(count), std::memory_order_relaxed);
  busy_ns_.fetch_add(busy, std::memory_order_relaxed);
  if (busy > max_callback_ns_.load(std::memory_order_relaxed))
    max_callback_ns_.store(busy, std::memory_order_relaxed);
  t_in_audio_callback = false;
}

std::unique_ptr<Voice> SwappableDsp::swap(std::unique_ptr<Voice> next,
                                          std::chrono::milliseconds timeout) {
  if (!audio_running_.load()) {
    // No callback has run yet: nobody else touches the voices.
    std::unique_ptr<Voice> old(current_);
    current_ = next.release();
    return old;
  }
  pending_.store(next.release(), std::memory_order_release);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (Voice* old = retired_.exchange(nullptr, std::memory_order_acquire))
      return std::unique_ptr<Voice>(old);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // The driver stopped calling us (server gone): take the voice back if it was never picked up;
  // otherwise leak nothing but keep the old voice referenced by the dsp (deleted with it).
  if (Voice* unclaimed = pending_.exchange(nullptr)) return std::unique_ptr<Voice>(unclaimed);
  return nullptr;
}

SwappableDsp::Stats SwappableDsp::stats() const {
  Stats s;
  s.callbacks = callbacks_.load();
  s.frames = frames_.load();
  s.busy_s = static_cast<double>(busy_ns_.load()) * 1e-9;
  s.max_callback_s = static_cast<double>(max_callback_ns_.load()) * 1e-9;
  s.non_finite_samples = non_finite_.load();
  return s;
}

}  // namespace mesh2dsp::runtime
