// --target lv2 / jackconsole through Faust's own scripts, and the LV2 bundle in a real host.
#include <sndfile.h>

#include <cmath>
#include <cstring>
#include <vector>

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

TEST_F(TargetTest, JackconsoleTargetBuildsAnExecutable) {
  const auto r = generate(kData / "testbar.modal.json", "--target jackconsole -o apps");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto perms = fs::status(dir / "apps/testbar").permissions();
  EXPECT_NE(perms & fs::perms::owner_exec, fs::perms::none);
}

}  // namespace
}  // namespace emit_test
