#include "runtime/live/control_surfaces.hpp"

#include <faust/gui/MidiUI.h>
#include <faust/gui/OSCUI.h>
#include <faust/gui/httpdUI.h>
#include <fmt/format.h>

#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp::runtime {
namespace {

// Faust's UIs take their options as an argv.
struct Argv {
  std::vector<std::string> strings;
  std::vector<char*> pointers;
  explicit Argv(std::vector<std::string> s) : strings(std::move(s)) {
    for (auto& a : strings) pointers.push_back(a.data());
    pointers.push_back(nullptr);
  }
  int argc() const { return static_cast<int>(strings.size()); }
  char** argv() { return pointers.data(); }
};

}  // namespace

ControlSurfaces::ControlSurfaces(const ControlBank& bank, const SurfaceSettings& settings) {
  if (settings.osc_port > 0) {
    // -xmit 0: listen only; the output/error ports are only used when transmitting.
    Argv args({"mesh2dsp", "-port", std::to_string(settings.osc_port), "-xmit", "0"});
    // init=false: the bank already holds the values (possibly carried over from a reload).
    osc_ = std::make_unique<OSCUI>(settings.name.c_str(), args.argc(), args.argv(), nullptr,
                                   nullptr, nullptr, false);
    bank.build_user_interface(*osc_);
    if (!osc_->run()) throw Error(fmt::format("--osc {}: cannot listen on that UDP port", settings.osc_port));
    // Faust moves on to the next free port when the one asked for is taken: say so.
    if (osc_->getUDPPort() != settings.osc_port)
      notice(fmt::format("UDP port {} is busy; OSC listens on {}", settings.osc_port, osc_->getUDPPort()));
  }
  if (settings.http_port > 0) {
    Argv args({"mesh2dsp", "-port", std::to_string(settings.http_port)});
    http_ = std::make_unique<httpdUI>(settings.name.c_str(), settings.inputs, settings.outputs,
                                      args.argc(), args.argv(), false);
    bank.build_user_interface(*http_);
    if (!http_->run()) throw Error(fmt::format("--http {}: cannot serve on that TCP port", settings.http_port));
    if (http_->getTCPPort() != settings.http_port)
      notice(fmt::format("TCP port {} is busy; the control page is on {}", settings.http_port, http_->getTCPPort()));
  }
  if (settings.midi) {
    midi_ = std::make_unique<MidiUI>(settings.midi);
    bank.build_user_interface(*midi_);
    midi_->run();
  }
}

ControlSurfaces::~ControlSurfaces() {
  if (midi_) midi_->stop();
  if (http_) http_->stop();
  if (osc_) osc_->stop();
}

std::string ControlSurfaces::describe() const {
  std::string out;
  if (osc_) out += fmt::format("OSC on UDP port {}", osc_->getUDPPort());
  if (http_)
    out += fmt::format("{}control page on http://localhost:{}/", out.empty() ? "" : ", ",
                       http_->getTCPPort());
  if (midi_) out += fmt::format("{}MIDI in", out.empty() ? "" : ", ");
  return out;
}

}  // namespace mesh2dsp::runtime
