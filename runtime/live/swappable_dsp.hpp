#pragma once
// The dsp the audio driver runs during live play: it forwards to the current program instance
// and swaps to a new one at a block boundary with a short equal-power cross-fade (hot reload).
//
// Real-time contract of compute() (the audio callback): it allocates nothing, takes no lock and
// makes no system call. The control thread hands a prepared Voice over through one atomic
// pointer and gets the replaced one back through another; it deletes it, never the audio thread.
#include <faust/dsp/dsp.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/live/control_bank.hpp"

namespace mesh2dsp::runtime {

// Frames computed per instance call; longer driver blocks are processed in chunks of this size,
// so every buffer can be allocated before the audio starts.
inline constexpr int kMaxChunkFrames = 512;

// One program instance bound to a control bank, with its scratch buffers. Prepared (allocated,
// initialised) on a control thread; used by the audio thread; deleted on a control thread.
class Voice {
 public:
  Voice(std::unique_ptr<dsp> instance, std::shared_ptr<ControlBank> bank, int sample_rate_hz);

  int inputs() const { return inputs_; }
  int outputs() const { return outputs_; }
  const std::shared_ptr<ControlBank>& bank() const { return bank_; }
  dsp& instance() { return *instance_; }

  // Audio thread: copy the bank's control values in, compute `frames` (≤ kMaxChunkFrames) from
  // the driver's inputs (missing channels read silence), copy bargraphs out.
  void render(const float* const* driver_inputs, int driver_input_count, int offset, int frames);
  const float* output(int channel) const { return output_pointers_[channel % outputs_]; }

 private:
  std::unique_ptr<dsp> instance_;
  std::shared_ptr<ControlBank> bank_;
  int inputs_, outputs_;
  // bank zone → instance zone, through the control's clamp (OSC, HTTP and MIDI write any value)
  struct ControlIn {
    FAUSTFLOAT* bank;
    ControlItem control;  // its zone is the instance's
  };
  std::vector<ControlIn> control_in_;
  std::vector<std::pair<FAUSTFLOAT*, FAUSTFLOAT*>> control_out_;  // instance bargraph → bank
  std::vector<float> silence_, output_storage_;
  std::vector<float*> input_pointers_, output_pointers_;
};

// True on a thread while it runs SwappableDsp::compute (the audio callback of live play): a
// test's replacement operator new or mutex lock counts what the audio path does (issue 15's
// soak test; the real-time contract above).
bool in_audio_callback();

class SwappableDsp final : public dsp {
 public:
  SwappableDsp(std::unique_ptr<Voice> first, double crossfade_s);
  ~SwappableDsp() override;

  // Control thread. Hands `next` to the audio thread and waits until it has faded in and the
  // previous voice is out of the audio path, then returns the previous voice for the caller to
  // delete (after re-pointing controllers away from its bank). If audio is not running within
  // `timeout`, swaps directly (nothing can be using the voices).
  std::unique_ptr<Voice> swap(std::unique_ptr<Voice> next, std::chrono::milliseconds timeout);

  // The voice the audio thread plays; control threads may read it between swaps only.
  Voice& current() { return *current_; }

  // Audio thread statistics, read from any thread.
  struct Stats {
    std::uint64_t callbacks = 0;
    double busy_s = 0;         // time inside compute()
    double max_callback_s = 0;
    std::uint64_t frames = 0;
    std::uint64_t non_finite_samples = 0;  // NaN/inf from the program, replaced by silence
  };
  Stats stats() const;

  // dsp interface, called by the audio driver (jackaudio / alsaaudio).
  int getNumInputs() override { return inputs_; }
  int getNumOutputs() override { return outputs_; }
  void buildUserInterface(UI* ui) override { current_->bank()->build_user_interface(*ui); }
  int getSampleRate() override { return sample_rate_hz_; }
  void init(int sample_rate_hz) override;
  void instanceInit(int sample_rate_hz) override { init(sample_rate_hz); }
  void instanceConstants(int) override {}
  void instanceResetUserInterface() override {}
  void instanceClear() override {}
  dsp* clone() override { return nullptr; }  // one live instance; the driver never clones
  void metadata(Meta* m) override { current_->instance().metadata(m); }
  void compute(int count, FAUSTFLOAT** inputs, FAUSTFLOAT** outputs) override;

 private:
  Voice* current_;                          // owned; audio thread only while running
  Voice* previous_ = nullptr;               // owned; fading out
  std::atomic<Voice*> pending_{nullptr};    // control → audio
  std::atomic<Voice*> retired_{nullptr};    // audio → control
  std::atomic<bool> audio_running_{false};  // set by the first callback
  int inputs_, outputs_;
  int sample_rate_hz_ = 0;
  double crossfade_s_;
  std::int64_t fade_frames_ = 1, fade_position_ = 0;

  std::atomic<std::uint64_t> callbacks_{0}, frames_{0}, busy_ns_{0}, max_callback_ns_{0};
  std::atomic<std::uint64_t> non_finite_{0};
};

}  // namespace mesh2dsp::runtime
