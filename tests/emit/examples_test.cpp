// The user examples in examples/ build and run as their comments say, with the generated code.
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "audio_support.hpp"

namespace emit_test {
namespace {

class ExamplesTest : public ScratchTest {};

TEST_F(ExamplesTest, HeaderOnlyExampleRendersAStrikeToWavAtTheModelFrequencies) {
  // The three lines of the example's comment, with the test model under the name "bar".
  auto r = generate(kData / "testbar.modal.json", "--cpp bar.hpp --name bar --no-model-json");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string example = (kSource / "examples/header-only/render_strike.cpp").string();
  r = run("cd '" + dir.string() + "' && " MESH2DSP_CXX " -std=c++17 -O2 -Wall -Wextra -Werror -I. '" + example +
          "' $(pkg-config --cflags --libs sndfile) -o render_strike && ./render_strike strike.wav 1.5 48000");
  ASSERT_EQ(r.status, 0) << r.output;
  int rate = 0, channels = 0;
  const auto wav = read_wav(dir / "strike.wav", rate, channels);
  ASSERT_EQ(rate, 48000);
  ASSERT_EQ(channels, 1);
  EXPECT_GE(wav.size(), 72000u);
  expect_peaks_at(wav, 1, 0, rate, ringing_frequencies(kData / "testbar.modal.json"), 20000, "header-only example");

  // Another model through the two macros: two listeners, two channels.
  r = generate(kData / "testbar_stereo.modal.json", "--cpp stereo.hpp --no-model-json");
  ASSERT_EQ(r.status, 0) << r.output;
  r = run("cd '" + dir.string() + "' && " MESH2DSP_CXX " -std=c++17 -O2 -I. -DMODEL_HEADER='\"stereo.hpp\"' "
          "-DMODEL_CLASS=TestbarStereo '" + example +
          "' $(pkg-config --cflags --libs sndfile) -o render_stereo && ./render_stereo stereo.wav 1 44100 1");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto stereo = read_wav(dir / "stereo.wav", rate, channels);
  ASSERT_EQ(rate, 44100);
  ASSERT_EQ(channels, 2);
  for (int c = 0; c < 2; ++c)
    expect_peaks_at(stereo, 2, c, rate, ringing_frequencies(kData / "testbar_stereo.modal.json"), 20000,
                    "stereo channel " + std::to_string(c));
  // A bad output path: a message and a failure, not a crash.
  r = run("cd '" + dir.string() + "' && ./render_strike no/such/dir/x.wav");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("cannot write"), std::string::npos) << r.output;
}

// "name value" lines of a program's output.
std::map<std::string, double> parse_counters(const std::string& text) {
  std::map<std::string, double> values;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string name;
    double value;
    if (words >> name >> value && words.eof()) values[name] = value;
  }
  return values;
}

// examples/cortex-m4 for one header: the firmware in QEMU's mps2-an386 and the same program on
// the host; returns the firmware's counters and leaves firmware.f32 and host.f32 in `dir`.
std::map<std::string, double> run_cortex_m4(const fs::path& dir, const std::string& model, const fs::path& model_dir) {
  fs::create_directories(dir);
  const std::string make = "cd '" + dir.string() + "' && make -f '" + (kSource / "examples/cortex-m4/Makefile").string() +
                           "' MODEL=" + model + " MODEL_DIR='" + model_dir.string() + "' ";
  auto r = run(make + "firmware.elf");
  EXPECT_EQ(r.status, 0) << r.output;
  if (r.output.find("filename") == std::string::npos) return {};
  std::istringstream size(r.output.substr(r.output.rfind("filename")));
  std::string header;
  double text = 0, data = 0, bss = 0;
  std::getline(size, header);
  size >> text >> data >> bss;
  r = run(make + "run && mv samples.f32 firmware.f32");
  EXPECT_EQ(r.status, 0) << r.output;
  auto counters = parse_counters(r.output);
  counters["text_bytes"] = text;
  counters["ram_bytes"] = data + bss;  // with the 8 KiB stack the linker script reserves
  r = run(make + "host && ./host && mv samples.f32 host.f32");
  EXPECT_EQ(r.status, 0) << r.output;
  return counters;
}

// A model with many modes for the cost per mode: 40 modes from 300 Hz to 12 kHz, one point.
// Fixed here, not a generated/ model that a re-analysis may change.
mesh2dsp::ModalModel forty_mode_model() {
  mesh2dsp::ModalModel m;
  m.name = "forty";
  m.mesh.source = "examples_test.cpp (synthetic)";
  m.material = {"steel", 7850, 2.0e11, 0.29, 0, 0};
  for (int n = 0; n < 40; ++n) {
    mesh2dsp::ModalMode mode;
    mode.frequency_hz = 300 * std::pow(1.1, n);
    mode.t60_s = 2.0 / (1 + n / 10.0);
    const double omega = 2 * M_PI * mode.frequency_hz;
    mode.damping_ratio = std::log(1000.0) / (mode.t60_s * omega);
    mode.eigenvalue = omega * omega;
    m.modes.push_back(mode);
  }
  mesh2dsp::ModalExcitation point;
  point.vertex = 0;
  point.direction = Eigen::Vector3d::UnitY();
  for (int n = 0; n < 40; ++n) point.gains.push_back(0.01 * std::sin(0.7 * n + 0.3));
  m.excitations.push_back(point);
  return m;
}

TEST_F(ExamplesTest, CortexM4ExampleRunsInQemuAndMatchesTheHostBuild) {
  auto r = generate(kData / "testbar.modal.json", "--cpp testbar.hpp");
  ASSERT_EQ(r.status, 0) << r.output;
  mesh2dsp::write_modal_model(dir / "forty.modal.json", forty_mode_model());
  r = generate(dir / "forty.modal.json", "--cpp forty.hpp --no-model-json");
  ASSERT_EQ(r.status, 0) << r.output;
  // The instructions per sample of two mode counts give the cost of one mode.
  struct Case {
    std::string model;
  };
  std::map<std::string, double> per_sample;
  std::map<std::string, int> modes;
  for (const Case& c : {Case{"testbar"}, Case{"forty"}}) {
    SCOPED_TRACE(c.model);
    const fs::path build = dir / ("m4-" + c.model);
    const auto counters = run_cortex_m4(build, c.model, dir);
    for (const char* key : {"modes", "samples", "process_ticks", "calibration_ticks", "calibration_instructions",
                            "model_state_bytes"})
      ASSERT_EQ(counters.count(key), 1u) << key;
    const auto target = read_f32(build / "firmware.f32"), host = read_f32(build / "host.f32");
    ASSERT_EQ(target.size(), 48000u);
    ASSERT_EQ(host.size(), target.size());
    double peak = 0, diff = 0;
    for (size_t i = 0; i < host.size(); ++i) {
      peak = std::max(peak, double(std::abs(host[i])));
      diff = std::max(diff, double(std::abs(target[i] - host[i])));
    }
    EXPECT_GT(peak, 1e-3);
    // The same header, two libms and two compilers: newlib's sinf/cosf/expf can differ from glibc's
    // by an ulp, and GCC fuses multiply-adds on the M4 (vfma) but not on x86-64; a pole
    // coefficient one ulp apart drifts the phase over the second (3.3e-5 of peak for the 40
    // modes). The example routes the header's maths through double precision on both and turns
    // fusing off (examples/cortex-m4/same_maths.h, Makefile), so the two builds agree.
    RecordProperty(c.model + "_max_diff_of_peak", std::to_string(diff / peak));
    std::printf("%s: target vs host, max difference %.3g of peak\n", c.model.c_str(), diff / peak);
    EXPECT_LE(diff, 1e-5 * peak) << "peak " << peak;
    expect_peaks_at(target, 1, 0, 48000, ringing_frequencies(dir / (c.model + ".modal.json")), 20000,
                    "Cortex-M4 firmware");
    // QEMU -icount shift=0 counts instructions; the calibration loop says how many per tick.
    const double instructions_per_tick = counters.at("calibration_instructions") / counters.at("calibration_ticks");
    EXPECT_NEAR(instructions_per_tick, 40, 0.1);  // 1 ns per instruction, SysTick at 25 MHz
    per_sample[c.model] = counters.at("process_ticks") * instructions_per_tick / counters.at("samples");
    modes[c.model] = static_cast<int>(counters.at("modes"));
    RecordProperty(c.model + "_instructions_per_sample", std::to_string(per_sample[c.model]));
    RecordProperty(c.model + "_text_bytes", std::to_string(counters.at("text_bytes")));
    RecordProperty(c.model + "_ram_bytes", std::to_string(counters.at("ram_bytes")));
    RecordProperty(c.model + "_state_bytes", std::to_string(counters.at("model_state_bytes")));
    EXPECT_GT(counters.at("text_bytes"), 1000);
    EXPECT_LT(counters.at("ram_bytes"), 64 * 1024) << "fits a small M4's RAM";
  }
  const double per_mode = (per_sample["forty"] - per_sample["testbar"]) / (modes["forty"] - modes["testbar"]);
  RecordProperty("instructions_per_mode_per_sample", std::to_string(per_mode));
  std::printf("Cortex-M4F: %.0f instructions/sample (%d modes), %.0f (%d modes): %.1f per mode\n",
              per_sample["testbar"], modes["testbar"], per_sample["forty"], modes["forty"], per_mode);
  // A coupled-form resonator is a handful of multiply-adds: more than 4, far less than 100.
  EXPECT_GT(per_mode, 4);
  EXPECT_LT(per_mode, 100);
}

}  // namespace
}  // namespace emit_test
