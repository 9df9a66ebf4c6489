#pragma once
// The remote controls of a live program, all Faust's own: OSCUI (libOSCFaust), httpdUI
// (libHTTPDFaust, which serves a control page to a browser) and MidiUI on the audio backend's
// MIDI handler. They are bound to a ControlBank's stable zones, so they outlive hot reloads that
// keep the same controls; a reload that changes the controls rebuilds them.
#include <memory>
#include <string>

#include "runtime/live/control_bank.hpp"

class OSCUI;
class httpdUI;
class MidiUI;
class midi_handler;

namespace mesh2dsp::runtime {

struct SurfaceSettings {
  int osc_port = 0;   // UDP; 0: no OSC
  int http_port = 0;  // TCP; 0: no HTTP page
  midi_handler* midi = nullptr;  // null: no MIDI
  std::string name;   // application name shown on the HTTP page
  int inputs = 0, outputs = 0;
};

class ControlSurfaces {
 public:
  ControlSurfaces(const ControlBank& bank, const SurfaceSettings& settings);
  ~ControlSurfaces();  // stops the servers
  ControlSurfaces(const ControlSurfaces&) = delete;
  ControlSurfaces& operator=(const ControlSurfaces&) = delete;

  std::string describe() const;  // "OSC on UDP 5510, HTTP on http://localhost:5511/, MIDI"

 private:
  std::unique_ptr<OSCUI> osc_;
  std::unique_ptr<httpdUI> http_;
  std::unique_ptr<MidiUI> midi_;
};

}  // namespace mesh2dsp::runtime
