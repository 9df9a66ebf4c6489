#pragma once
// Stable control zones for live play. OSC, HTTP and MIDI controllers are bound to these zones,
// not to a DSP instance's own, so a hot reload with the same controls keeps every controller
// (and the browser page) working: the audio thread copies bank → instance each block.
#include <faust/dsp/dsp.h>
#include <faust/gui/UI.h>

#include <memory>
#include <vector>

#include "runtime/dsp/control_layout.hpp"

namespace mesh2dsp::runtime {

class ControlBank {
 public:
  // Zones start at the controls' init values.
  explicit ControlBank(ControlLayout layout);

  const ControlLayout& layout() const { return layout_; }
  // One zone per control, in layout().controls() order. Stable for the bank's life.
  const std::vector<FAUSTFLOAT*>& zones() const { return zones_; }

  // Replays the layout onto `ui` with this bank's zones.
  void build_user_interface(UI& ui) const { layout_.replay(ui, zones_); }

  // After a reload: keep each value the user set unless the program changed that control's
  // default (then the new default is what the edit asked for). Matching is by path and kind.
  void carry_over(const ControlBank& previous);
  // Same controls, edited program: adopt the new layout's defaults where they changed.
  void adopt_defaults(const ControlLayout& edited);

  // The zone of the control `name` resolves to (ControlLayout::find), or Error.
  FAUSTFLOAT* zone(const std::string& name) const;
  // Buttons in UI order (the terminal strikes them).
  std::vector<FAUSTFLOAT*> button_zones() const;

 private:
  ControlLayout layout_;
  std::unique_ptr<FAUSTFLOAT[]> storage_;
  std::vector<FAUSTFLOAT*> zones_;
};

}  // namespace mesh2dsp::runtime
