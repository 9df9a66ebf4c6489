#pragma once
// Timed control changes for an offline render, parsed from the command line:
//   --set NAME=VALUE            at t = 0
//   --set NAME=VALUE@T          at t = T seconds
//   --trigger NAME@T            press button NAME at T for the default hold, then release
//   --trigger NAME@T+HOLD       ... hold it HOLD seconds
//   --trigger @T                press the program's first button
//   --set NAME=LABEL            a menu control ([style:menu{'impact':0;'scrape':3}]) by entry name
// NAME is a label, a path or a path suffix (ControlLayout::find).
#include <faust/dsp/dsp.h>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/dsp/control_layout.hpp"

namespace mesh2dsp::runtime {

inline constexpr double kDefaultTriggerHold_s = 0.010;

struct ParameterEvent {
  double time_s = 0;
  std::string name;
  double value = 0;
  std::string value_label;  // a menu entry's name ("scrape") instead of a number, when given
  bool trigger = false;     // from --trigger: only buttons and checkboxes accept it
};

// Throws mesh2dsp::Error naming the bad argument.
ParameterEvent parse_set(const std::string& text);
// A trigger gives two events: press (value 1) and release (value 0).
std::vector<ParameterEvent> parse_trigger(const std::string& text);

// An event bound to a zone of one instance, at a frame.
struct ZoneEvent {
  std::int64_t frame = 0;
  FAUSTFLOAT* zone = nullptr;
  FAUSTFLOAT value = 0;
};

// Looks every name up in `layout` (Error for unknown/ambiguous names, out-of-range values and
// triggers of non-buttons) and sorts by frame; equal frames keep command-line order.
std::vector<ZoneEvent> bind_events(const std::vector<ParameterEvent>& events,
                                   const ControlLayout& layout, int sample_rate_hz);

}  // namespace mesh2dsp::runtime
