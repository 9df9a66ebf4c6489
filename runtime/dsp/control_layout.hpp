#pragma once
// The controls of a Faust program as data: every UI call buildUserInterface makes (boxes,
// buttons, sliders, nentries, bargraphs, metadata), in order, with full OSC-style paths.
// Offline render uses it to find a parameter by label or path; live play replays it onto
// stable zones so OSC/HTTP/MIDI controllers survive a hot reload (see live/control_bank.hpp).
#include <faust/dsp/dsp.h>
#include <faust/gui/UI.h>

#include <string>
#include <utility>
#include <vector>

namespace mesh2dsp::runtime {

enum class ControlKind {
  open_tab_box, open_horizontal_box, open_vertical_box, close_box,
  button, check_button, vertical_slider, horizontal_slider, num_entry,
  horizontal_bargraph, vertical_bargraph, declare
};

struct ControlItem {
  ControlKind kind;
  std::string label;        // the label as written (for declare: the key)
  std::string value;        // declare only: the metadata value
  std::string path;         // full path ("/bowl/gate") for controls, empty otherwise
  FAUSTFLOAT* zone = nullptr;  // the instance's zone (null for boxes and global declares)
  FAUSTFLOAT init = 0, min = 0, max = 0, step = 0;

  bool is_control() const;   // has a zone
  bool is_input() const;     // button, checkbox, slider, nentry (not a bargraph)
  bool is_button() const { return kind == ControlKind::button; }
  // `value` as this control may take it: a slider's or nentry's clamped to [min, max], a NaN
  // (or, for a button or checkbox, any non-finite value) gives init. What a host writes into a
  // zone goes through this before the program reads it (live play, set()).
  FAUSTFLOAT clamp(FAUSTFLOAT value) const;
  // Writes clamp(value) into the zone.
  void set(FAUSTFLOAT value) const { *zone = clamp(value); }
};

class ControlLayout {
 public:
  // Records `instance`'s UI. The zones point into `instance`, which must outlive their use.
  static ControlLayout of(dsp& instance);

  const std::vector<ControlItem>& items() const { return items_; }

  // The control named by `name`: its full path ("/bowl/gate"), a path suffix ("bowl/gate",
  // "gate"), or its label. Throws mesh2dsp::Error naming the known controls when there is no
  // match and the candidates when several match.
  const ControlItem& find(const std::string& name) const;

  std::vector<const ControlItem*> controls() const;  // items with a zone, in UI order
  std::string describe_controls() const;             // "/bowl/gate (button), /bowl/freq [50..2000]"

  // Same controls (paths, kinds, ranges; not values): UIs bound to one can serve the other.
  bool same_controls_as(const ControlLayout& other) const;

  // Calls `ui` as `instance.buildUserInterface(ui)` would, but with zone i replaced by zones[i]
  // (one per control, in controls() order).
  void replay(UI& ui, const std::vector<FAUSTFLOAT*>& zones) const;

 private:
  std::vector<ControlItem> items_;
};

}  // namespace mesh2dsp::runtime
