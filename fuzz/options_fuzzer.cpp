// libFuzzer harness: the command line's mini-languages. The first byte picks one, the rest is
// the argument text:
//   0 --fix "x<=0.0"            (parse_half_space, then the clamp selection on a small box)
//   1 --excite auto:K|vertex:I,J|point:X,Y,Z;…   (on a 2×2×2-cell box)
//   2 --listener X,Y,Z
//   3 --set NAME=VALUE[@T]      (parsed, then bound to a program with a button, sliders, a menu)
//   4 --trigger NAME@T[+HOLD]   (likewise)
#include <cstdint>
#include <string>

#include "analysis/analysis.hpp"
#include "fem/boundary.hpp"
#include "fem/structured_box.hpp"
#include "fuzz_support.hpp"
#include "modal/excitation.hpp"
#include "runtime/dsp/control_layout.hpp"
#include "runtime/render/events.hpp"

namespace {

// The controls of a generated instrument in miniature, without compiling Faust: a button, a
// slider, a menu (declared as the generated code does) and a bargraph (an output).
class ControlsOnlyDsp : public dsp {
 public:
  int getNumInputs() override { return 0; }
  int getNumOutputs() override { return 1; }
  void buildUserInterface(UI* ui) override {
    ui->openVerticalBox("bowl");
    ui->addButton("gate", &gate_);
    ui->declare(&freq_, "unit", "Hz");
    ui->addHorizontalSlider("freq", &freq_, 440, 50, 2000, 0.1);
    ui->declare(&menu_, "style", "menu{'impact':0;'hammer':1;'scrape':3}");
    ui->addNumEntry("excitation", &menu_, 0, 0, 5, 1);
    ui->addCheckButton("moving contact", &check_);
    ui->addHorizontalBargraph("level", &level_, -60, 0);
    ui->closeBox();
  }
  int getSampleRate() override { return 48000; }
  void init(int) override {}
  void instanceInit(int) override {}
  void instanceConstants(int) override {}
  void instanceResetUserInterface() override {}
  void instanceClear() override {}
  dsp* clone() override { return new ControlsOnlyDsp; }
  void metadata(Meta*) override {}
  void compute(int, FAUSTFLOAT**, FAUSTFLOAT**) override {}

 private:
  FAUSTFLOAT gate_ = 0, freq_ = 440, menu_ = 0, check_ = 0, level_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  static const mesh2dsp::TetMesh box =
      mesh2dsp::structured_box({0, 0, 0}, {0.2, 0.1, 0.05}, 2, 2, 2);
  static ControlsOnlyDsp program;
  static const auto layout = mesh2dsp::runtime::ControlLayout::of(program);
  mesh2dsp::fuzz::expect_clean_outcome([&] {
    switch (data[0] % 5) {
      case 0:
        mesh2dsp::clamped_nodes(box.vertices, {mesh2dsp::parse_half_space(text)});
        break;
      case 1:
        mesh2dsp::select_excitation_vertices(text, box);
        break;
      case 2:
        mesh2dsp::parse_listener_position(text);
        break;
      case 3:
        mesh2dsp::runtime::bind_events({mesh2dsp::runtime::parse_set(text)}, layout, 48000);
        break;
      case 4:
        mesh2dsp::runtime::bind_events(mesh2dsp::runtime::parse_trigger(text), layout, 48000);
        break;
    }
  });
  return 0;
}
