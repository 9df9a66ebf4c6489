// The user examples in examples/ build and run as their comments say, with the generated code.
#include "modal/modal_model.hpp"
#include "audio_support.hpp"

namespace emit_test {
namespace {

class ExamplesTest : public ScratchTest {
 protected:
  static std::vector<double> frequencies(const fs::path& model) {
    std::vector<double> hz;
    for (const auto& m : mesh2dsp::read_modal_model(model).modes) hz.push_back(m.frequency_hz);
    return hz;
  }
};

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
  expect_peaks_at(wav, 1, 0, rate, frequencies(kData / "testbar.modal.json"), 20000, "header-only example");

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
    expect_peaks_at(stereo, 2, c, rate, frequencies(kData / "testbar_stereo.modal.json"), 20000,
                    "stereo channel " + std::to_string(c));
  // A bad output path: a message and a failure, not a crash.
  r = run("cd '" + dir.string() + "' && ./render_strike no/such/dir/x.wav");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("cannot write"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace emit_test
