#include "runtime/live/control_bank.hpp"

namespace mesh2dsp::runtime {

ControlBank::ControlBank(ControlLayout layout) : layout_(std::move(layout)) {
  const auto controls = layout_.controls();
  storage_ = std::make_unique<FAUSTFLOAT[]>(controls.size() + 1);
  for (std::size_t i = 0; i < controls.size(); ++i) {
    storage_[i] = controls[i]->init;
    zones_.push_back(&storage_[i]);
  }
}

void ControlBank::carry_over(const ControlBank& previous) {
  const auto mine = layout_.controls();
  const auto theirs = previous.layout_.controls();
  for (std::size_t i = 0; i < mine.size(); ++i)
    for (std::size_t j = 0; j < theirs.size(); ++j)
      if (mine[i]->path == theirs[j]->path && mine[i]->kind == theirs[j]->kind &&
          mine[i]->init == theirs[j]->init && mine[i]->is_input() &&
          mine[i]->kind != ControlKind::button) {  // a held button does not stay held
        *zones_[i] = *previous.zones_[j];
        break;
      }
}

void ControlBank::adopt_defaults(const ControlLayout& edited) {
  const auto old_controls = layout_.controls();
  const auto new_controls = edited.controls();
  for (std::size_t i = 0; i < old_controls.size() && i < new_controls.size(); ++i)
    if (old_controls[i]->init != new_controls[i]->init) *zones_[i] = new_controls[i]->init;
  layout_ = edited;
}

FAUSTFLOAT* ControlBank::zone(const std::string& name) const {
  const ControlItem& item = layout_.find(name);
  const auto controls = layout_.controls();
  for (std::size_t i = 0; i < controls.size(); ++i)
    if (controls[i] == &item) return zones_[i];
  return nullptr;
}

std::vector<FAUSTFLOAT*> ControlBank::button_zones() const {
  std::vector<FAUSTFLOAT*> out;
  const auto controls = layout_.controls();
  for (std::size_t i = 0; i < controls.size(); ++i)
    if (controls[i]->is_button()) out.push_back(zones_[i]);
  return out;
}

}  // namespace mesh2dsp::runtime
