#include "runtime/dsp/control_layout.hpp"

#include <algorithm>
#include <cmath>

#include <faust/gui/PathBuilder.h>
#include <fmt/format.h>

#include "util/error.hpp"

namespace mesh2dsp::runtime {
namespace {

// Records each call; paths come from Faust's own PathBuilder so they equal the OSC/HTTP ones.
class Recorder final : public UI, public PathBuilder {
 public:
  std::vector<ControlItem> items;

  void openTabBox(const char* label) override { open(ControlKind::open_tab_box, label); }
  void openHorizontalBox(const char* label) override { open(ControlKind::open_horizontal_box, label); }
  void openVerticalBox(const char* label) override { open(ControlKind::open_vertical_box, label); }
  void closeBox() override {
    items.push_back({ControlKind::close_box, {}, {}, {}, nullptr});
    popLabel();
  }
  void addButton(const char* label, FAUSTFLOAT* zone) override {
    add(ControlKind::button, label, zone, 0, 0, 1, 1);
  }
  void addCheckButton(const char* label, FAUSTFLOAT* zone) override {
    add(ControlKind::check_button, label, zone, 0, 0, 1, 1);
  }
  void addVerticalSlider(const char* label, FAUSTFLOAT* zone, FAUSTFLOAT init, FAUSTFLOAT min,
                         FAUSTFLOAT max, FAUSTFLOAT step) override {
    add(ControlKind::vertical_slider, label, zone, init, min, max, step);
  }
  void addHorizontalSlider(const char* label, FAUSTFLOAT* zone, FAUSTFLOAT init, FAUSTFLOAT min,
                           FAUSTFLOAT max, FAUSTFLOAT step) override {
    add(ControlKind::horizontal_slider, label, zone, init, min, max, step);
  }
  void addNumEntry(const char* label, FAUSTFLOAT* zone, FAUSTFLOAT init, FAUSTFLOAT min,
                   FAUSTFLOAT max, FAUSTFLOAT step) override {
    add(ControlKind::num_entry, label, zone, init, min, max, step);
  }
  void addHorizontalBargraph(const char* label, FAUSTFLOAT* zone, FAUSTFLOAT min,
                             FAUSTFLOAT max) override {
    add(ControlKind::horizontal_bargraph, label, zone, 0, min, max, 0);
  }
  void addVerticalBargraph(const char* label, FAUSTFLOAT* zone, FAUSTFLOAT min,
                           FAUSTFLOAT max) override {
    add(ControlKind::vertical_bargraph, label, zone, 0, min, max, 0);
  }
  void addSoundfile(const char*, const char*, Soundfile**) override {}
  void declare(FAUSTFLOAT* zone, const char* key, const char* value) override {
    items.push_back({ControlKind::declare, key, value, {}, zone});
  }

 private:
  void open(ControlKind kind, const char* label) {
    items.push_back({kind, label, {}, {}, nullptr});
    pushLabel(label);
  }
  void add(ControlKind kind, const char* label, FAUSTFLOAT* zone, FAUSTFLOAT init, FAUSTFLOAT min,
           FAUSTFLOAT max, FAUSTFLOAT step) {
    items.push_back({kind, label, {}, buildPath(label), zone, init, min, max, step});
  }
};

const char* kind_name(ControlKind kind) {
  switch (kind) {
    case ControlKind::button: return "button";
    case ControlKind::check_button: return "checkbox";
    case ControlKind::vertical_slider:
    case ControlKind::horizontal_slider: return "slider";
    case ControlKind::num_entry: return "nentry";
    case ControlKind::horizontal_bargraph:
    case ControlKind::vertical_bargraph: return "bargraph";
    default: return "box";
  }
}

}  // namespace

bool ControlItem::is_control() const {
  switch (kind) {
    case ControlKind::button:
    case ControlKind::check_button:
    case ControlKind::vertical_slider:
    case ControlKind::horizontal_slider:
    case ControlKind::num_entry:
    case ControlKind::horizontal_bargraph:
    case ControlKind::vertical_bargraph: return true;
    default: return false;
  }
}

FAUSTFLOAT ControlItem::clamp(FAUSTFLOAT value) const {
  if (std::isnan(value)) return init;
  if (kind == ControlKind::button || kind == ControlKind::check_button)
    return std::isfinite(value) ? value : init;
  const FAUSTFLOAT lo = std::min(min, max), hi = std::max(min, max);
  return std::min(hi, std::max(lo, value));
}

bool ControlItem::is_input() const {
  return is_control() && kind != ControlKind::horizontal_bargraph &&
         kind != ControlKind::vertical_bargraph;
}

ControlLayout ControlLayout::of(dsp& instance) {
  Recorder recorder;
  instance.buildUserInterface(&recorder);
  ControlLayout layout;
  layout.items_ = std::move(recorder.items);
  return layout;
}

std::vector<const ControlItem*> ControlLayout::controls() const {
  std::vector<const ControlItem*> out;
  for (const auto& item : items_)
    if (item.is_control()) out.push_back(&item);
  return out;
}

std::string ControlLayout::describe_controls() const {
  std::string out;
  for (const auto* c : controls()) {
    if (!out.empty()) out += ", ";
    if (c->kind == ControlKind::button || c->kind == ControlKind::check_button ||
        !c->is_input())
      out += fmt::format("{} ({})", c->path, kind_name(c->kind));
    else
      out += fmt::format("{} ({} {}..{})", c->path, kind_name(c->kind), c->min, c->max);
  }
  return out.empty() ? std::string("none") : out;
}

const ControlItem& ControlLayout::find(const std::string& name) const {
  if (name.empty()) throw Error("empty parameter name");
  std::vector<const ControlItem*> matches;
  // Exact path first, then path suffix on a '/' boundary, then label: the most specific wins.
  for (const auto* c : controls())
    if (c->path == name) return *c;
  const std::string suffix = name.front() == '/' ? name : "/" + name;
  for (const auto* c : controls())
    if (c->path.ends_with(suffix)) matches.push_back(c);
  if (matches.empty())
    for (const auto* c : controls())
      if (c->label == name) matches.push_back(c);
  if (matches.size() == 1) return *matches.front();
  if (matches.empty())
    throw Error(fmt::format("unknown parameter '{}'; this DSP has: {}", name, describe_controls()));
  std::string candidates;
  for (const auto* c : matches) candidates += (candidates.empty() ? "" : ", ") + c->path;
  throw Error(fmt::format("parameter '{}' is ambiguous: {}; give the full path", name, candidates));
}

bool ControlLayout::same_controls_as(const ControlLayout& other) const {
  const auto a = controls();
  const auto b = other.controls();
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i]->kind != b[i]->kind || a[i]->path != b[i]->path || a[i]->min != b[i]->min ||
        a[i]->max != b[i]->max || a[i]->step != b[i]->step)
      return false;
  return true;
}

void ControlLayout::replay(UI& ui, const std::vector<FAUSTFLOAT*>& zones) const {
  std::size_t next = 0;
  // A declare() for a control precedes the control's add call (Faust convention), so it gets the
  // zone of the next control.
  auto zone_of_next_control = [&]() -> FAUSTFLOAT* {
    return next < zones.size() ? zones[next] : nullptr;
  };
  for (const auto& item : items_) {
    const char* label = item.label.c_str();
    switch (item.kind) {
      case ControlKind::open_tab_box: ui.openTabBox(label); break;
      case ControlKind::open_horizontal_box: ui.openHorizontalBox(label); break;
      case ControlKind::open_vertical_box: ui.openVerticalBox(label); break;
      case ControlKind::close_box: ui.closeBox(); break;
      case ControlKind::declare:
        ui.declare(item.zone ? zone_of_next_control() : nullptr, label, item.value.c_str());
        break;
      case ControlKind::button: ui.addButton(label, zones.at(next++)); break;
      case ControlKind::check_button: ui.addCheckButton(label, zones.at(next++)); break;
      case ControlKind::vertical_slider:
        ui.addVerticalSlider(label, zones.at(next++), item.init, item.min, item.max, item.step);
        break;
      case ControlKind::horizontal_slider:
        ui.addHorizontalSlider(label, zones.at(next++), item.init, item.min, item.max, item.step);
        break;
      case ControlKind::num_entry:
        ui.addNumEntry(label, zones.at(next++), item.init, item.min, item.max, item.step);
        break;
      case ControlKind::horizontal_bargraph:
        ui.addHorizontalBargraph(label, zones.at(next++), item.min, item.max);
        break;
      case ControlKind::vertical_bargraph:
        ui.addVerticalBargraph(label, zones.at(next++), item.min, item.max);
        break;
    }
  }
}

}  // namespace mesh2dsp::runtime
