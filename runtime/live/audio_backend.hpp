#pragma once
// Live audio through Faust's own architecture classes: jackaudio_midi (faust/audio/jack-dsp.h,
// with JACK MIDI in/out) when a JACK server runs, else alsaaudio (faust/audio/alsa-dsp.h).
#include <faust/dsp/dsp.h>

#include <cstdint>
#include <memory>
#include <string>

class midi_handler;

namespace mesh2dsp::runtime {

enum class BackendChoice { automatic, jack, alsa };
BackendChoice parse_backend(const std::string& text);  // "auto", "jack", "alsa"

struct AudioSettings {
  BackendChoice backend = BackendChoice::automatic;
  std::string client_name = "mesh2dsp";  // JACK client name
  bool auto_connect = true;              // JACK: connect to the physical ports
  std::string alsa_device = "default";
  int alsa_sample_rate_hz = 48000;
  int alsa_buffer_frames = 256;
};

class AudioBackend {
 public:
  virtual ~AudioBackend() = default;
  virtual bool start() = 0;
  virtual void stop() = 0;
  virtual std::string describe() const = 0;  // "JACK client 'x' on server 'y', 48000 Hz, 256 frames"
  virtual int sample_rate_hz() const = 0;
  virtual int buffer_frames() const = 0;
  virtual std::uint64_t xruns() const { return 0; }
  virtual double server_cpu_load_percent() const { return -1; }  // JACK's DSP load, -1 if unknown
  virtual midi_handler* midi() { return nullptr; }                 // for Faust's MidiUI
  virtual std::string port_prefix() const { return {}; }          // "client:" for JACK
};

// Opens the backend and calls dsp.init(rate) on it. Error naming both failures when neither
// JACK nor ALSA is available.
std::unique_ptr<AudioBackend> open_audio(const AudioSettings& settings, dsp& program);

}  // namespace mesh2dsp::runtime
