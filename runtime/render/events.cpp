#include "runtime/render/events.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "util/error.hpp"

namespace mesh2dsp::runtime {
namespace {

double parse_number(const std::string& text, const std::string& what, const std::string& arg) {
  double value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value))
    throw Error(fmt::format("'{}': {} '{}' is not a number", arg, what, text));
  return value;
}

double parse_time(const std::string& text, const std::string& arg) {
  const double t = parse_number(text, "time", arg);
  if (t < 0) throw Error(fmt::format("'{}': time must be >= 0 s", arg));
  return t;
}

// "--trigger @0.1" strikes whatever the program's first button is called (generated models
// name their excitation button differently).
const ControlItem& first_button(const ControlLayout& layout) {
  for (const auto* c : layout.controls())
    if (c->is_button()) return *c;
  throw Error(fmt::format("--trigger without a name presses the first button, but this DSP has "
                          "none; it has: {}", layout.describe_controls()));
}

}  // namespace

ParameterEvent parse_set(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error(fmt::format("--set '{}': expected NAME=VALUE or NAME=VALUE@TIME_S", text));
  ParameterEvent event;
  event.name = text.substr(0, eq);
  std::string rest = text.substr(eq + 1);
  if (const auto at = rest.find('@'); at != std::string::npos) {
    event.time_s = parse_time(rest.substr(at + 1), "--set " + text);
    rest = rest.substr(0, at);
  }
  // Not a number: the name of a menu entry, resolved against the program's controls.
  const bool numeric = !rest.empty() && (std::isdigit(static_cast<unsigned char>(rest[0])) ||
                                         rest[0] == '-' || rest[0] == '+' || rest[0] == '.');
  if (numeric || rest.empty())
    event.value = parse_number(rest, "value", "--set " + text);
  else
    event.value_label = rest;
  return event;
}

std::vector<ParameterEvent> parse_trigger(const std::string& text) {
  const auto at = text.find('@');
  if (at == std::string::npos)
    throw Error(fmt::format("--trigger '{}': expected NAME@TIME_S or NAME@TIME_S+HOLD_S", text));
  const std::string name = text.substr(0, at);
  std::string when = text.substr(at + 1);
  double hold_s = kDefaultTriggerHold_s;
  if (const auto plus = when.find('+'); plus != std::string::npos) {
    hold_s = parse_number(when.substr(plus + 1), "hold", "--trigger " + text);
    if (hold_s <= 0) throw Error(fmt::format("--trigger '{}': hold must be > 0 s", text));
    when = when.substr(0, plus);
  }
  const double t = parse_time(when, "--trigger " + text);
  return {{t, name, 1.0, {}, true}, {t + hold_s, name, 0.0, {}, true}};
}

// The value of entry `label` in the [style:menu{'a':0;'b':1}] metadata of `control`.
double menu_value(const ControlLayout& layout, const ControlItem& control, const std::string& label,
                  const std::string& arg) {
  std::string menu;
  for (const auto& item : layout.items())
    if (item.kind == ControlKind::declare && item.zone == control.zone && item.label == "style" &&
        item.value.starts_with("menu{"))
      menu = item.value.substr(5);
  if (menu.empty())
    throw Error(fmt::format("--set {}: '{}' is not a number and {} is not a menu", arg, label,
                            control.path));
  std::string names;
  for (size_t pos = 0; (pos = menu.find('\'', pos)) != std::string::npos;) {
    const size_t close = menu.find('\'', pos + 1);
    const size_t colon = menu.find(':', close);
    if (close == std::string::npos || colon == std::string::npos) break;
    const std::string name = menu.substr(pos + 1, close - pos - 1);
    const size_t end = menu.find_first_of(";}", colon);
    if (name == label) return parse_number(menu.substr(colon + 1, end - colon - 1), "menu value", arg);
    names += (names.empty() ? "" : ", ") + name;
    pos = end == std::string::npos ? menu.size() : end;
  }
  throw Error(fmt::format("--set {}: {} has no entry '{}' (entries: {})", arg, control.path, label,
                          names));
}

std::vector<ZoneEvent> bind_events(const std::vector<ParameterEvent>& events,
                                   const ControlLayout& layout, int sample_rate_hz) {
  std::vector<ZoneEvent> bound;
  for (const auto& event : events) {
    const ControlItem& control = event.name.empty() ? first_button(layout) : layout.find(event.name);
    if (!control.is_input())
      throw Error(fmt::format("'{}' is a bargraph (an output); it cannot be set", control.path));
    const bool is_switch =
        control.kind == ControlKind::button || control.kind == ControlKind::check_button;
    if (event.trigger && !is_switch)
      throw Error(fmt::format("--trigger {}: '{}' is not a button or checkbox (use --set)",
                              event.name, control.path));
    double value = event.value;
    if (!event.value_label.empty())
      value = menu_value(layout, control, event.value_label, event.name + "=" + event.value_label);
    if (!is_switch) {
      // Faust clamps slider values itself; a value outside the range is almost always a typo.
      // Compared in FAUSTFLOAT, the type the range was declared in and the zone holds: the bound
      // 0.1 is the float 0.100000001…, and the double 0.1 a user types must not fall below it.
      const FAUSTFLOAT lo = std::min(control.min, control.max), hi = std::max(control.min, control.max);
      const auto as_zone = static_cast<FAUSTFLOAT>(value);
      if (!(as_zone >= lo && as_zone <= hi))
        throw Error(fmt::format("--set {}={}: outside the range of {} [{}, {}]", event.name,
                                value, control.path, lo, hi));
    }
    bound.push_back({static_cast<std::int64_t>(std::llround(event.time_s * sample_rate_hz)),
                     control.zone, static_cast<FAUSTFLOAT>(value)});
  }
  std::stable_sort(bound.begin(), bound.end(),
                   [](const ZoneEvent& a, const ZoneEvent& b) { return a.frame < b.frame; });
  return bound;
}

}  // namespace mesh2dsp::runtime
