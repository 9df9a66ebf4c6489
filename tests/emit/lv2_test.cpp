// --target lv2 through faust2lv2, its bundles in a real host, and the plugins' identity.
#include <sndfile.h>

#include <cmath>
#include <cstring>
#include <vector>

#include <map>
#include <sstream>

#include "audio_support.hpp"

namespace emit_test {
namespace {

class TargetTest : public ScratchTest {};

TEST_F(TargetTest, Lv2BundleFromTheEffectRendersAStrikeInALilvHostLikeTheHeader) {
  // An older bundle in the way must be replaced whole, with nothing of it left.
  fs::create_directories(dir / "plugins/testbar.lv2");
  write_text(dir / "plugins/testbar.lv2/stale", "from an older build");
  auto r = generate(kData / "testbar.modal.json", "--target lv2 -o plugins");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(fs::exists(dir / "plugins/testbar.lv2/stale"));
  for (const auto& e : fs::directory_iterator(dir / "plugins"))
    EXPECT_NE(e.path().filename().string()[0], '.') << e.path();
  for (const char* f : {"plugins/testbar.lv2/manifest.ttl", "plugins/testbar.lv2/testbar.ttl",
                        "plugins/testbar.lv2/testbar.so", "plugins/testbar.modal.json"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  // The host feeds a unit impulse into the effect's force input; at 48000 N per unit sample that
  // is a strike of 1 N s.
  r = run("cd '" + dir.string() + "' && '" MESH2DSP_LV2_HOST "' plugins/testbar.lv2 48000 1 strike.wav gain=1 input_gain=48000");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("plugin urn:mesh2dsp:mesh2dsp:steel/testbar revision 1."), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("inputs 1 outputs 1"), std::string::npos) << r.output;
  int rate = 0, channels = 0;
  const auto plugin = read_wav(dir / "strike.wav", rate, channels);
  ASSERT_EQ(rate, 48000);
  ASSERT_EQ(channels, 1);
  ASSERT_EQ(plugin.size(), 48128u);  // whole blocks of 256

  // The same impulse through the emitted header.
  r = run("cd '" + dir.string() + "' && '" MESH2DSP_HARNESS_DIR "/render_testbar' 48000 1 0 impulse -1 header.f32");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string bytes = read_text(dir / "header.f32");
  std::vector<float> header(bytes.size() / sizeof(float));
  std::memcpy(header.data(), bytes.data(), bytes.size());
  double peak = 0, diff = 0;
  for (size_t i = 0; i < header.size(); ++i) {
    peak = std::max(peak, double(std::abs(plugin[i])));
    diff = std::max(diff, double(std::abs(plugin[i] - header[i])));
  }
  EXPECT_GT(peak, 0.05);
  EXPECT_LE(diff, 5e-3 * peak) << "peak " << peak;
}

// "plugin URI revision REV ..." lines of the host: URI -> revision.
std::map<std::string, std::string> plugins_listed(const std::string& output) {
  std::map<std::string, std::string> found;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string plugin, uri, revision, rev;
    if (words >> plugin >> uri >> revision >> rev && plugin == "plugin" && revision == "revision") found[uri] = rev;
  }
  return found;
}

TEST_F(TargetTest, TwoModelsNamedBarLoadSideBySideInOneLilvWorld) {
  // Two users' "bar": the same name, different materials; a third with its own URI and vendor.
  ASSERT_EQ(generate(kData / "testbar.modal.json", "--name bar --target lv2 -o steel").status, 0);
  ASSERT_EQ(generate(kData / "testbar.modal.json", "--name bar --material iron --target lv2 -o iron").status, 0);
  auto r = generate(kData / "testbar.modal.json",
                    "--name bar --vendor 'Jane Doe' --plugin-uri https://example.org/lv2/bar_jane --target lv2 -o jane");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir / "jane/bar_jane.lv2/bar_jane.so"));
  r = run("cd '" + dir.string() + "' && '" MESH2DSP_LV2_HOST "' steel/bar.lv2,iron/bar.lv2,jane/bar_jane.lv2 48000 1 "
          "steel.wav,iron.wav,jane.wav gain=1 input_gain=48000");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto listed = plugins_listed(r.output);
  ASSERT_EQ(listed.size(), 3u) << r.output;
  for (const char* uri : {"urn:mesh2dsp:mesh2dsp:steel/bar", "urn:mesh2dsp:mesh2dsp:iron/bar", "https://example.org/lv2/bar_jane"})
    EXPECT_EQ(listed.count(uri), 1u) << uri << " in\n" << r.output;
  // Each instance is its own model: the iron bar rings 1.5 % above the steel one.
  int rate = 0, channels = 0;
  expect_peaks_at(read_wav(dir / "steel.wav", rate, channels), 1, 0, 48000, ringing_frequencies(dir / "steel/bar.modal.json"),
                  20000, "steel bar");
  expect_peaks_at(read_wav(dir / "iron.wav", rate, channels), 1, 0, 48000, ringing_frequencies(dir / "iron/bar.modal.json"),
                  20000, "iron bar");
  // The vendor is the plugin's maintainer.
  EXPECT_NE(read_text(dir / "jane/bar_jane.lv2/bar_jane.ttl").find("foaf:name \"Jane Doe\""), std::string::npos);

  // The version changes with the model, also under the same URI (the material's values changed).
  const std::string steel_version = listed.at("urn:mesh2dsp:mesh2dsp:steel/bar");
  EXPECT_NE(steel_version, listed.at("urn:mesh2dsp:mesh2dsp:iron/bar"));
  ASSERT_EQ(generate(kData / "testbar.modal.json", "--name bar --rayleigh-mass 3 --target lv2 -o damped").status, 0);
  r = run("cd '" + dir.string() + "' && '" MESH2DSP_LV2_HOST "' damped/bar.lv2 48000 0.01 damped.wav");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto damped = plugins_listed(r.output);
  ASSERT_EQ(damped.count("urn:mesh2dsp:mesh2dsp:steel/bar"), 1u) << r.output;
  EXPECT_NE(damped.begin()->second, steel_version);
}

TEST_F(TargetTest, BadPluginUriFailsBeforeAnything) {
  for (const char* uri : {"'not a uri'", "https://example.org/9lives", "bar"}) {
    const auto r = generate(kData / "testbar.modal.json", std::string("--target lv2 -o out --plugin-uri ") + uri);
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("--plugin-uri"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir / "out")) << uri;
  }
}

TEST_F(TargetTest, Lv2InstrumentVariantRendersAStrikeInTheLilvHost) {
  auto r = generate(kData / "testbar.modal.json", "--target lv2 --variant instrument -o plugins");
  ASSERT_EQ(r.status, 0) << r.output;
  // The gate held at 1 from the first sample is one strike (Faust's rise(gate) at sample 0).
  r = run("cd '" + dir.string() + "' && '" MESH2DSP_LV2_HOST "' plugins/testbar.lv2 48000 1.5 strike.wav gate=1");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("inputs 0 outputs 1"), std::string::npos) << r.output;
  int rate = 0, channels = 0;
  expect_peaks_at(read_wav(dir / "strike.wav", rate, channels), 1, 0, 48000, ringing_frequencies(kData / "testbar.modal.json"),
                  20000, "LV2 instrument");
}

}  // namespace
}  // namespace emit_test
