#include "runtime/live/audio_backend.hpp"

#include <alsa/asoundlib.h>
#include <faust/misc.h>  // isopt/lopt, used by alsa-dsp.h without including them

#include <iostream>
#include <faust/audio/alsa-dsp.h>
#include <faust/audio/jack-dsp.h>
#include <fmt/format.h>

#include <atomic>
#include <cstdlib>

#include "util/error.hpp"

namespace mesh2dsp::runtime {
namespace {

void silent_jack_error(const char*) {}

class JackBackend final : public AudioBackend {
 public:
  explicit JackBackend(bool auto_connect) : audio_(auto_connect) {}

  bool open(const std::string& name, dsp& program) {
    // Connect to a running server only: starting one from here would guess a device, and the
    // ALSA fallback exists for machines without a server.
    setenv("JACK_NO_START_SERVER", "1", 1);
    // Probe first: jack-dsp.h prints its own "JACK server not running ?" on failure, and a
    // missing server is not an error here (ALSA may follow), so it must not be printed.
    jack_set_error_function(silent_jack_error);
    jack_status_t status;
    jack_client_t* probe = jack_client_open("mesh2dsp-probe", JackNoStartServer, &status);
    jack_set_error_function(nullptr);
    if (!probe) return false;
    jack_client_close(probe);
    if (!audio_.init(name.c_str(), &program)) return false;
    jack_set_xrun_callback(audio_.getClient(), &JackBackend::on_xrun, this);
    return true;
  }

  bool start() override { return audio_.start(); }
  void stop() override { audio_.stop(); }
  std::string describe() const override {
    auto* client = const_cast<jackaudio_midi&>(audio_).getClient();
    return fmt::format("JACK client '{}', {} Hz, {} frames", jack_get_client_name(client),
                       sample_rate_hz(), buffer_frames());
  }
  int sample_rate_hz() const override { return const_cast<jackaudio_midi&>(audio_).getSampleRate(); }
  int buffer_frames() const override { return const_cast<jackaudio_midi&>(audio_).getBufferSize(); }
  std::uint64_t xruns() const override { return xruns_.load(); }
  double server_cpu_load_percent() const override {
    return jack_cpu_load(const_cast<jackaudio_midi&>(audio_).getClient());
  }
  midi_handler* midi() override { return &audio_; }
  std::string port_prefix() const override {
    return std::string(jack_get_client_name(const_cast<jackaudio_midi&>(audio_).getClient())) + ":";
  }

 private:
  static int on_xrun(void* self) {
    static_cast<JackBackend*>(self)->xruns_.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  jackaudio_midi audio_;
  std::atomic<std::uint64_t> xruns_{0};
};

class AlsaBackend final : public AudioBackend {
 public:
  AlsaBackend(const AudioSettings& s, dsp& program)
      : args_{"mesh2dsp", "--device", s.alsa_device, "--frequency",
              std::to_string(s.alsa_sample_rate_hz), "--buffer", std::to_string(s.alsa_buffer_frames)} {
    std::vector<char*> argv;
    for (auto& a : args_) argv.push_back(a.data());
    argv.push_back(nullptr);
    audio_ = std::make_unique<alsaaudio>(static_cast<int>(args_.size()), argv.data(), &program);
    audio_->init("mesh2dsp", &program);
  }
  bool start() override { return audio_->start(); }
  void stop() override { audio_->stop(); }
  std::string describe() const override {
    return fmt::format("ALSA device '{}', {} Hz, {} frames", args_[2], sample_rate_hz(), buffer_frames());
  }
  int sample_rate_hz() const override { return audio_->getSampleRate(); }
  int buffer_frames() const override { return audio_->getBufferSize(); }

 private:
  std::vector<std::string> args_;
  std::unique_ptr<alsaaudio> audio_;
};

// alsa-dsp.h exit()s on any ALSA error; probe the device first so a missing one is a clear
// error instead of an abrupt exit.
std::string alsa_probe(const std::string& device, bool capture) {
  for (auto stream : {SND_PCM_STREAM_PLAYBACK, SND_PCM_STREAM_CAPTURE}) {
    if (stream == SND_PCM_STREAM_CAPTURE && !capture) continue;
    snd_pcm_t* pcm = nullptr;
    const int err = snd_pcm_open(&pcm, device.c_str(), stream, SND_PCM_NONBLOCK);
    if (err < 0)
      return fmt::format("ALSA device '{}' ({}): {}", device,
                         stream == SND_PCM_STREAM_PLAYBACK ? "playback" : "capture", snd_strerror(err));
    snd_pcm_close(pcm);
  }
  return {};
}

void silent_alsa_error(const char*, int, const char*, int, const char*, ...) {}

}  // namespace

BackendChoice parse_backend(const std::string& text) {
  if (text == "auto") return BackendChoice::automatic;
  if (text == "jack") return BackendChoice::jack;
  if (text == "alsa") return BackendChoice::alsa;
  throw Error(fmt::format("--audio '{}': expected auto, jack or alsa", text));
}

std::unique_ptr<AudioBackend> open_audio(const AudioSettings& settings, dsp& program) {
  std::string jack_problem;
  if (settings.backend != BackendChoice::alsa) {
    auto jack = std::make_unique<JackBackend>(settings.auto_connect);
    if (jack->open(settings.client_name, program)) return jack;
    const char* server = std::getenv("JACK_DEFAULT_SERVER");
    jack_problem = fmt::format("no JACK server '{}' is running", server ? server : "default");
    if (settings.backend == BackendChoice::jack)
      throw Error(jack_problem + " (start one, e.g. `jackd -d alsa` or `jackd -d dummy`)");
  }
  snd_lib_error_set_handler(silent_alsa_error);
  const std::string alsa_problem = alsa_probe(settings.alsa_device, program.getNumInputs() > 0);
  snd_lib_error_set_handler(nullptr);
  if (!alsa_problem.empty()) {
    if (jack_problem.empty()) throw Error(alsa_problem);
    throw Error(fmt::format("no audio output: {}; {}", jack_problem, alsa_problem));
  }
  return std::make_unique<AlsaBackend>(settings, program);
}

}  // namespace mesh2dsp::runtime
