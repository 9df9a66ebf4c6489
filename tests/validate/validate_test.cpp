// `mesh2dsp validate` end to end on the bundled bar and plate (CI-sized: P1 tetrahedra, 20
// modes, 0.4 s): generated vs reference in contact-microphone and listener mode pass with the
// issue's tolerances; a wrong material and a 3 % shift fail and say why; recordings; the
// report renders in headless Chromium with its plots; bad input gives one message, exit 1 and
// no report.
#include <gtest/gtest.h>

#include "support/command.hpp"
#include <sndfile.h>
#include <sys/wait.h>
#include <zlib.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "modal/modal_model.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using CliRun = mesh2dsp::test::CommandRun;
using mesh2dsp::test::run_command;
CliRun run(const std::string& command) { return run_command(command); }

// The reference solver's OpenMP threads spin while waiting; on a shared 2-core CI machine they
// make a render 10x slower (measured: 6.8 s vs 60 s), so the tests run it single-threaded.
CliRun cli(const std::string& args) {
  return run("OMP_NUM_THREADS=1 " + std::string(MESH2DSP_BIN) + " -q " + args);
}

std::string source(const std::string& rel) { return std::string(MESH2DSP_SOURCE_DIR) + "/" + rel; }

// CI-sized analysis and reference: P1 on a surface remeshed to 20 mm (381 DOF for the bar,
// ~1000 for the plate), 0.3 s / 0.2 s: seconds per validate, not minutes.
const std::string kBarMesh = source("meshes/bar.obj") + " --element-order 1 --modes 20 --surface-edge 0.02";
const std::string kBar = kBarMesh + " --material steel";
const std::string kPlate = source("meshes/plate.obj") +
                           " --material aluminium --element-order 1 --modes 16 --surface-edge 0.02 --fmax 10000";
const std::string kShort = " --duration 0.3";

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

fs::path scratch_root() {
  static const fs::path root = [] {
    const fs::path p = fs::temp_directory_path() / ("mesh2dsp-validate-" + std::to_string(getpid()));
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
  }();
  return root;
}

// Prints the numbers a passing report measured (they go into the README and the report).
void print_summary(const std::string& what, const json& r) {
  double worst_f = 0, worst_t = 0;
  int judged_f = 0, judged_t = 0;
  for (const auto& m : r["modes"]) {
    if (m["status"] == "matched") ++judged_f, worst_f = std::max(worst_f, std::abs(m["frequency_error"].get<double>()));
    if (m["t60_judged"].get<bool>()) ++judged_t, worst_t = std::max(worst_t, std::abs(m["t60_error"].get<double>()));
  }
  std::printf("%s: %s; %d mode groups, worst frequency error %.4f %%; %d T60s, worst %.2f %%; LSD %.2f dB; "
              "level %+.2f dB; lag %.3f ms; stages:",
              what.c_str(), r["verdict"].get<std::string>().c_str(), judged_f, 100 * worst_f, judged_t,
              100 * worst_t, r["log_spectral_distance_db"].get<double>(), r["level_ratio_db"].get<double>(),
              r["alignment"]["lag_ms"].get<double>());
  for (const auto& [k, v] : r["wall_time_s"].items()) std::printf(" %s %.2f s;", k.c_str(), v.get<double>());
  std::printf("\n");
}

void expect_passing_report(const fs::path& dir, const std::string& what) {
  ASSERT_TRUE(fs::exists(dir / "report.html"));
  const json r = read_json(dir / "report.json");
  print_summary(what, r);
  EXPECT_EQ(r["verdict"], "pass");
  int matched = 0, t60s = 0;
  for (const auto& m : r["modes"]) {
    if (m["status"] == "weak") continue;
    EXPECT_EQ(m["status"], "matched") << m.dump();
    if (m["status"] == "matched") {
      ++matched;
      EXPECT_LT(std::abs(m["frequency_error"].get<double>()), 0.005) << m.dump();
    }
    if (m["t60_judged"].get<bool>()) {
      ++t60s;
      EXPECT_LT(std::abs(m["t60_error"].get<double>()), 0.10) << m.dump();
    }
  }
  EXPECT_GE(matched, 3) << what;
  EXPECT_GE(t60s, 2) << what;
  EXPECT_LT(r["log_spectral_distance_db"].get<double>(), r["tolerances"]["log_spectral_distance_db"].get<double>());
  for (const char* stage : {"analysis", "reference render", "JIT render", "comparison"})
    EXPECT_TRUE(r["wall_time_s"].contains(stage)) << stage;
}

// The bar in contact-microphone mode, validated once and shared by the tests that read its
// report (Chromium, recordings).
const fs::path& bar_contact_report() {
  static const fs::path dir = [] {
    const fs::path d = scratch_root() / "bar-contact";
    const CliRun r = cli("validate " + kBar + " --strike vertex:12" + kShort + " --report " + d.string());
    if (r.exit_code != 0) std::printf("%s\n", r.output.c_str());
    return d;
  }();
  return dir;
}

}  // namespace

TEST(Validate, BarContactMicrophonePasses) {
  const fs::path& dir = bar_contact_report();
  ASSERT_TRUE(fs::exists(dir / "report.json")) << "validate did not write a report";
  expect_passing_report(dir, "bar, contact microphone");
  for (const char* f : {"reference.wav", "generated.wav", "generated.dsp", "model.modal.json"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;
}

TEST(Validate, BarListenerPasses) {
  const fs::path dir = scratch_root() / "bar-listener";
  const CliRun r = cli("validate " + kBar + " --strike vertex:12 --listener 0,0,0.5" + kShort +
                         " --report " + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_passing_report(dir, "bar, listener (0, 0, 0.5)");
  const json j = read_json(dir / "report.json");
  for (const auto& m : j["measures"])
    if (m["name"] == "onset") EXPECT_TRUE(m["judged"].get<bool>() && m["passed"].get<bool>()) << m.dump();
  // Issue 12, item 5: every mode audible in either render (within 60 dB of its strongest
  // peak) is judged; what is not judged says why, in the JSON and on the page.
  int judged = 0;
  for (const auto& m : j["modes"]) {
    if (m["status"] == "weak") EXPECT_NE(m["note"].get<std::string>().find("audible floor"), std::string::npos) << m.dump();
    else ++judged;
  }
  EXPECT_GE(judged, 6);
  ASSERT_TRUE(j.contains("not_judged_outside_band"));
  for (const auto& u : j["not_judged_outside_band"]) EXPECT_FALSE(u["reason"].get<std::string>().empty());
}

TEST(Validate, TheVerdictAndCorrectedFrequenciesDoNotDependOnTheTimeStep) {
  // Issue 12: the reference steps once per audio sample by default; at today's fine step
  // (1/288 000 s) the verdict is the same and every judged mode's reference frequency, mapped
  // back through the integrator's exact warp, agrees within 0.01 %.
  const fs::path coarse = scratch_root() / "dt-sample", fine = scratch_root() / "dt-fine";
  const std::string common = "validate " + kBar + " --strike vertex:12 --listener 0,0,0.5" + kShort;
  const CliRun a = cli(common + " --report " + coarse.string());
  const CliRun b = cli(common + " --dt 3.4722222222222222e-6 --report " + fine.string());
  ASSERT_EQ(a.exit_code, b.exit_code) << a.output << b.output;
  const json ja = read_json(coarse / "report.json"), jb = read_json(fine / "report.json");
  EXPECT_EQ(ja["verdict"], jb["verdict"]);
  int compared = 0;
  double largest_shift = 0;
  for (const auto& ma : ja["modes"]) {
    if (ma["status"] != "matched") continue;
    for (const auto& mb : jb["modes"]) {
      if (mb["modes"] != ma["modes"] || mb["status"] != "matched") continue;
      const double fa = ma["reference_continuous_hz"].get<double>(), fb = mb["reference_continuous_hz"].get<double>();
      std::printf("modes %s: corrected %.3f Hz (1 step/sample, shift %+.3f %%) vs %.3f Hz (1/288000 s), %+.5f %%\n",
                  ma["modes"].dump().c_str(), fa, 100 * ma["reference_integrator_shift"].get<double>(), fb,
                  100 * (fa / fb - 1));
      EXPECT_NEAR(fa / fb, 1, 1e-4) << ma.dump() << mb.dump();
      largest_shift = std::max(largest_shift, std::abs(ma["reference_integrator_shift"].get<double>()));
      ++compared;
    }
  }
  EXPECT_GE(compared, 3);
  EXPECT_GT(largest_shift, 0.002);  // the warp was there to correct
}

TEST(Validate, PlateContactMicrophonePasses) {
  const fs::path dir = scratch_root() / "plate-contact";
  const CliRun r = cli("validate " + kPlate + " --strike point:0.03,0.045,0.0025 --duration 0.2" +
                         " --report " + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_passing_report(dir, "plate, contact microphone");
}

TEST(Validate, ThreePercentShiftFailsOnFrequencyAndSaysSo) {
  const fs::path dir = scratch_root() / "shift";
  fs::create_directories(dir);
  const fs::path model_path = bar_contact_report() / "model.modal.json";
  ASSERT_TRUE(fs::exists(model_path));
  auto model = mesh2dsp::read_modal_model(model_path);
  // Same damping ratio: T60 = ln(1000)/(ξω) follows the frequency (the reader refuses a T60
  // that disagrees with the ratio, since one of the two would be ignored).
  for (auto& m : model.modes) m.frequency_hz *= 1.03, m.eigenvalue *= 1.03 * 1.03, m.t60_s /= 1.03;
  mesh2dsp::write_modal_model(dir / "shifted.modal.json", model);
  const CliRun r = cli("validate " + kBar + " --model " + (dir / "shifted.modal.json").string() + kShort +
                         " --report " + (dir / "report").string());
  ASSERT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("validate: FAIL"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("frequency:"), std::string::npos) << r.output;
  const json j = read_json(dir / "report" / "report.json");
  EXPECT_EQ(j["verdict"], "fail");
  EXPECT_EQ(j["exit_code"], 2);
  ASSERT_FALSE(j["failures"].empty());
  EXPECT_TRUE(j["failures"][0].get<std::string>().starts_with("frequency")) << j["failures"].dump();
  // The strong modes are found off by −2.9 % (the reference is the true bar); where the shifted
  // model lands near another mode the peak it finds is that one's, still a failure.
  int shifted = 0, by_the_shift = 0;
  for (const auto& m : j["modes"])
    if (m["status"] == "shifted") {
      ++shifted;
      if (std::abs(m["frequency_error"].get<double>() - (1 / 1.03 - 1)) < 0.003) ++by_the_shift;
    } else {
      EXPECT_NE(m["status"], "matched") << m.dump();
    }
  EXPECT_GE(shifted, 2);
  EXPECT_GE(by_the_shift, 2);
  const std::string html = [&] {
    std::ifstream in(dir / "report" / "report.html");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }();
  EXPECT_NE(html.find("FAIL"), std::string::npos);
}

TEST(Validate, AnotherMaterialFailsAndSaysWhy) {
  // A brass model of the steel bar: E/ρ differs (frequencies −27 %) and so does damping.
  const fs::path dir = scratch_root() / "material";
  fs::create_directories(dir);
  const CliRun m = cli("modes " + kBarMesh + " --material brass --excite vertex:12 -o " + (dir / "brass.modal.json").string());
  ASSERT_EQ(m.exit_code, 0) << m.output;
  const CliRun r = cli("validate " + kBar + " --model " + (dir / "brass.modal.json").string() + kShort +
                         " --report " + (dir / "report").string());
  ASSERT_EQ(r.exit_code, 2) << r.output;
  const json j = read_json(dir / "report" / "report.json");
  EXPECT_EQ(j["verdict"], "fail");
  bool frequency = false;
  for (const auto& f : j["failures"]) frequency |= f.get<std::string>().starts_with("frequency") ||
                                                   f.get<std::string>().starts_with("missing");
  EXPECT_TRUE(frequency) << j["failures"].dump();
}

TEST(Validate, ExistingArtefactsAndARecordingWithAlignFundamental) {
  const fs::path& bar = bar_contact_report();
  const fs::path dir = scratch_root() / "recording";
  fs::create_directories(dir);
  // With its sidecar (written by validate in the solver's format), reference.wav is a physical
  // reference again: level and onset judged. Its time step (one per sample) is in the sidecar,
  // so the program emitted from the model is pre-warped to it, as in the first run.
  {
    const CliRun r = cli("validate --model " + (bar / "model.modal.json").string() +
                         " --reference " + (bar / "reference.wav").string() +
                         " --report " + (dir / "again").string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const json j = read_json(dir / "again" / "report.json");
    for (const auto& m : j["measures"]) EXPECT_TRUE(m["judged"].get<bool>()) << m.dump();
  }
  // A WAV without a sidecar is a recording: level and onset are reported, not judged. (This one
  // went through the solver's DC blocker, which --dc-alpha declares. Nothing tells validate that
  // a recording is a Newmark render at one step per sample, so it is compared with the program
  // that was pre-warped to that render, given as --dsp; the band is kept below 6 kHz.)
  fs::copy_file(bar / "reference.wav", dir / "impact.wav");
  ASSERT_TRUE(fs::exists(bar / "generated-prewarped.dsp"));
  const CliRun r = cli("validate --model " + (bar / "model.modal.json").string() + " --dsp " +
                       (bar / "generated-prewarped.dsp").string() + " --reference " + (dir / "impact.wav").string() +
                       " --dc-alpha 0.1 --fmax 6000 --align-fundamental --report " + (dir / "report").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json j = read_json(dir / "report" / "report.json");
  EXPECT_EQ(j["verdict"], "pass");
  for (const auto& m : j["measures"])
    if (m["name"] == "level" || m["name"] == "onset") EXPECT_FALSE(m["judged"].get<bool>()) << m.dump();
  ASSERT_TRUE(j["align_fundamental"].is_object());
  EXPECT_NEAR(j["align_fundamental"]["scale"].get<double>(), 1.0, 0.005);
  EXPECT_EQ(j["align_fundamental"]["matched"], j["align_fundamental"]["judged"]);
}

// ---- The report in a browser ----------------------------------------------------------------

namespace {

// Decodes an 8-bit RGB or RGBA PNG (what Chromium writes) into RGB.
bool decode_png(const std::string& png, int& width, int& height, std::vector<unsigned char>& rgb) {
  if (png.size() < 8 || png.compare(1, 3, "PNG") != 0) return false;
  std::size_t pos = 8;
  std::string idat;
  int colour_type = -1, depth = 0;
  auto be32 = [&](std::size_t at) {
    return (uint32_t(uint8_t(png[at])) << 24) | (uint32_t(uint8_t(png[at + 1])) << 16) |
           (uint32_t(uint8_t(png[at + 2])) << 8) | uint32_t(uint8_t(png[at + 3]));
  };
  while (pos + 8 <= png.size()) {
    const uint32_t length = be32(pos);
    const std::string type = png.substr(pos + 4, 4);
    if (type == "IHDR") {
      width = static_cast<int>(be32(pos + 8));
      height = static_cast<int>(be32(pos + 12));
      depth = uint8_t(png[pos + 16]);
      colour_type = uint8_t(png[pos + 17]);
    } else if (type == "IDAT") {
      idat += png.substr(pos + 8, length);
    }
    pos += 12 + length;
  }
  if (depth != 8 || (colour_type != 2 && colour_type != 6)) return false;
  const int channels = colour_type == 6 ? 4 : 3;
  const std::size_t stride = static_cast<std::size_t>(width) * channels;
  std::vector<unsigned char> raw((stride + 1) * height);
  uLongf size = raw.size();
  if (uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) != Z_OK) return false;
  std::vector<unsigned char> image(stride * height), previous(stride, 0);
  for (int y = 0; y < height; ++y) {
    const unsigned char filter = raw[y * (stride + 1)];
    const unsigned char* in = &raw[y * (stride + 1) + 1];
    unsigned char* out = &image[y * stride];
    for (std::size_t i = 0; i < stride; ++i) {
      const int a = i >= std::size_t(channels) ? out[i - channels] : 0, b = previous[i],
                c = i >= std::size_t(channels) ? previous[i - channels] : 0;
      int p = in[i];
      switch (filter) {
        case 1: p += a; break;
        case 2: p += b; break;
        case 3: p += (a + b) / 2; break;
        case 4: {
          const int e = a + b - c, pa = std::abs(e - a), pb = std::abs(e - b), pc = std::abs(e - c);
          p += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
      }
      out[i] = static_cast<unsigned char>(p);
    }
    std::copy(out, out + stride, previous.begin());
  }
  rgb.clear();
  for (std::size_t i = 0; i < image.size(); i += channels) rgb.insert(rgb.end(), &image[i], &image[i] + 3);
  return true;
}

int count_colour(const std::vector<unsigned char>& rgb, int r, int g, int b, int tolerance = 40) {
  int n = 0;
  for (std::size_t i = 0; i + 2 < rgb.size(); i += 3)
    if (std::abs(rgb[i] - r) + std::abs(rgb[i + 1] - g) + std::abs(rgb[i + 2] - b) <= tolerance) ++n;
  return n;
}

std::string chromium(const fs::path& work, const std::string& args) {
  const fs::path profile = work / "profile";
  fs::remove_all(profile);
  fs::create_directories(profile);
  const CliRun r = run("timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                    "--disable-background-networking --disable-component-update --disable-sync "
                    "--user-data-dir=" + profile.string() + " " + args);
  return r.output;
}

}  // namespace

namespace {

// A mono float WAV (libsndfile), no sidecar: to validate, a recording.
void write_recording(const fs::path& path, const std::vector<float>& x, int rate) {
  SF_INFO info{};
  info.samplerate = rate;
  info.channels = 1;
  info.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
  SNDFILE* f = sf_open(path.c_str(), SFM_WRITE, &info);
  ASSERT_NE(f, nullptr);
  sf_write_float(f, x.data(), static_cast<sf_count_t>(x.size()));
  sf_close(f);
}

}  // namespace

TEST(Validate, ARecordingWithPreRollDcNoiseDetuningAndAMissingModeIsFitted) {
  // Issue 12, item 7: a synthetic "recording" of the bar's model: 16-bit, 1 s of room noise
  // before the strike, a DC offset and 8 Hz rumble, every mode 2 % high (the material off),
  // one audible mode left out. validate must find the strike, pick the peaks above the noise,
  // report the raw comparison (2 % off: fails) and beside it one E/ρ scale that lands them.
  const fs::path& bar = bar_contact_report();
  const fs::path dir = scratch_root() / "synthetic-recording";
  fs::create_directories(dir);
  const auto model = mesh2dsp::read_modal_model(bar / "model.modal.json");
  const int rate = 48000;
  const double detune = 1.02, pre_roll_s = 1.0;
  std::vector<float> x(static_cast<std::size_t>(3.0 * rate), 0.0f);
  std::vector<int> audible;
  for (std::size_t n = 0; n < model.modes.size(); ++n)
    if (model.modes[n].frequency_hz * detune < 0.4 * rate) audible.push_back(static_cast<int>(n));
  ASSERT_GE(audible.size(), 5u);
  // The dropped mode: the second loudest single mode of the model's own render (its report).
  int dropped = -1;
  {
    std::vector<std::pair<double, int>> loud;
    const json own = read_json(bar / "report.json");
    for (const auto& m : own["modes"])
      if (m["modes"].size() == 1) loud.push_back({m["generated_db"].get<double>(), m["modes"][0].get<int>()});
    std::sort(loud.rbegin(), loud.rend());
    ASSERT_GE(loud.size(), 2u);
    dropped = loud[1].second;
  }
  std::printf("dropped mode %d at %.1f Hz\n", dropped, model.modes[dropped].frequency_hz);
  for (int n : audible) {
    if (n == dropped) continue;
    const double f = model.modes[n].frequency_hz * detune, sigma = std::log(1000.0) / model.modes[n].t60_s;
    for (std::size_t i = static_cast<std::size_t>(pre_roll_s * rate); i < x.size(); ++i) {
      const double t = static_cast<double>(i) / rate - pre_roll_s;
      x[i] += static_cast<float>(0.05 * std::exp(-sigma * t) * std::sin(2 * M_PI * f * t));
    }
  }
  std::uint32_t state = 12345;
  auto uniform = [&] { state = state * 1664525u + 1013904223u; return (state >> 8) / 16777216.0 - 0.5; };
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] += static_cast<float>(0.1 + 0.02 * std::sin(2 * M_PI * 8 * i / rate) + 2e-4 * (uniform() + uniform()));
  write_recording(dir / "strike.wav", x, rate);

  const CliRun r = cli("validate --model " + (bar / "model.modal.json").string() + " --reference " +
                       (dir / "strike.wav").string() + " --report " + (dir / "report").string());
  // Judged after the fitted scale (issue 29): the 2 % is taken out, the dropped audible mode fails.
  ASSERT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("missing modes"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("log-spectral distance"), std::string::npos) << "reported, not judged: " << r.output;
  EXPECT_EQ(r.output.find("no mode was found"), std::string::npos) << r.output;
  const json j = read_json(dir / "report" / "report.json");
  ASSERT_FALSE(j["material_fit"].is_null()) << j.dump();
  const auto& fit = j["material_fit"];
  std::printf("fitted frequency scale %.5f (E/rho x %.4f), %d of %d groups matched; onset %.4f s, noise %.3g\n",
              fit["frequency_scale"].get<double>(), fit["youngs_modulus_over_density_scale"].get<double>(),
              fit["matched"].get<int>(), fit["judged"].get<int>(), j["alignment"]["onset_reference_s"].get<double>(),
              j["reference_noise"]["rms"].get<double>());
  EXPECT_NEAR(fit["frequency_scale"].get<double>(), detune, 0.001);
  EXPECT_NEAR(j["reference_noise"]["pre_roll_s"].get<double>(), pre_roll_s, 0.05);
  // After the fit, every audible group but the dropped one is matched, and that one is the only
  // strong one missing (within --spurious-db, 20 dB, of the strongest: what a recording judges;
  // the recording holds no mode above 0.4 x its rate).
  int matched = 0, missing = 0;
  for (const auto& g : fit["match"]["groups"]) {
    const bool has_dropped = std::find(g["modes"].begin(), g["modes"].end(), dropped) != g["modes"].end();
    if (g["status"] == "matched") {
      ++matched;
      EXPECT_FALSE(has_dropped) << g.dump();
    }
    if (g["status"] == "missing" && g["generated_db"].get<double>() >= -20) {
      ++missing;
      EXPECT_TRUE(has_dropped) << g.dump();
    }
  }
  EXPECT_GE(matched, 4);
  EXPECT_EQ(missing, 1);
  // The judged rows are those after the fit, their raw errors (before it) beside: 2 % off.
  int raw_off = 0;
  for (const auto& m : j["modes"])
    if (m["status"] == "matched" && std::abs(m["raw_frequency_error"].get<double>() - (detune - 1)) < 0.002) ++raw_off;
  EXPECT_GE(raw_off, 4);
}

TEST(Report, OpensInHeadlessChromiumWithItsPlotsDrawn) {
  if (run("command -v chromium").exit_code != 0) GTEST_SKIP() << "chromium is not installed";
  const fs::path& bar = bar_contact_report();
  ASSERT_TRUE(fs::exists(bar / "report.html"));
  const fs::path work = scratch_root() / "chromium";
  fs::create_directories(work);
  const std::string url = "file://" + fs::absolute(bar / "report.html").string();

  // The DOM as Chromium parsed it: the spectrum plot with both curves and mode lines, and two
  // spectrograms with their embedded images.
  const std::string dom = chromium(work, "--dump-dom " + url);
  EXPECT_NE(dom.find("class=\"plot spectrum\""), std::string::npos) << dom.substr(0, 2000);
  EXPECT_NE(dom.find("class=\"reference\""), std::string::npos);
  EXPECT_NE(dom.find("class=\"generated\""), std::string::npos);
  EXPECT_NE(dom.find("class=\"mode\""), std::string::npos);
  std::size_t spectrograms = 0;
  for (std::size_t at = dom.find("class=\"plot spectrogram\""); at != std::string::npos;
       at = dom.find("class=\"plot spectrogram\"", at + 1))
    ++spectrograms;
  EXPECT_EQ(spectrograms, 2u);
  EXPECT_NE(dom.find("data:image/png;base64,"), std::string::npos);
  EXPECT_EQ(dom.find("http://"), dom.find("http://www.w3.org/2000/svg") == std::string::npos
                                     ? std::string::npos : dom.find("http://www.w3.org/2000/svg"))
      << "the page must need no network";

  // The rendered page: the screenshot holds the curves' colours and the spectrograms' colour
  // map, i.e. the plots were drawn, not just written.
  const fs::path shot = work / "shot.png";
  chromium(work, "--screenshot=" + shot.string() + " --window-size=1100,1500 --hide-scrollbars " + url);
  ASSERT_TRUE(fs::exists(shot)) << "no screenshot";
  std::ifstream in(shot, std::ios::binary);
  const std::string png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  int w = 0, h = 0;
  std::vector<unsigned char> rgb;
  ASSERT_TRUE(decode_png(png, w, h, rgb)) << "cannot decode the screenshot";
  const int blue = count_colour(rgb, 0x1f, 0x77, 0xb4), red = count_colour(rgb, 0xd6, 0x27, 0x28),
            viridis_dark = count_colour(rgb, 68, 1, 84, 60), viridis_mid = count_colour(rgb, 42, 120, 142, 60);
  std::printf("screenshot %dx%d: reference-blue %d px, generated-red %d px, spectrogram dark %d px, mid %d px\n",
              w, h, blue, red, viridis_dark, viridis_mid);
  EXPECT_GT(blue, 300);
  EXPECT_GT(red, 300);
  EXPECT_GT(viridis_dark + viridis_mid, 5000);
}

// ---- Bad input: one message, exit 1, no report -----------------------------------------------

namespace {

void write_wav(const fs::path& path, int rate, const std::vector<float>& samples) {
  SF_INFO info{};
  info.samplerate = rate;
  info.channels = 1;
  info.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
  SNDFILE* f = sf_open(path.c_str(), SFM_WRITE, &info);
  ASSERT_NE(f, nullptr);
  sf_writef_float(f, samples.data(), static_cast<sf_count_t>(samples.size()));
  sf_close(f);
}

void expect_error(const CliRun& r, const std::string& words, const fs::path& report) {
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(words), std::string::npos) << r.output;
  int lines = 0;
  for (char c : r.output) lines += c == '\n';
  EXPECT_EQ(lines, 1) << "one clear message: " << r.output;
  EXPECT_FALSE(fs::exists(report / "report.html")) << "no report on error";
  EXPECT_FALSE(fs::exists(report / "report.json")) << "no report on error";
}

}  // namespace

TEST(BadInput, MissingFilesWrongRateSilenceAndMismatchedModelGiveOneMessage) {
  const fs::path dir = scratch_root() / "bad";
  fs::create_directories(dir);
  const fs::path report = dir / "report";
  const fs::path& bar = bar_contact_report();
  const std::string model = (bar / "model.modal.json").string();

  expect_error(cli("validate " + source("meshes/nope.obj") + " --report " + report.string()),
               "no such file", report);
  expect_error(cli("validate --model " + model + " --reference " + (dir / "nope.wav").string() +
                        " --report " + report.string()), "no such file", report);
  expect_error(cli("validate --model " + model + " --report " + report.string()), "--reference", report);

  std::vector<float> tone(8000);
  for (std::size_t i = 0; i < tone.size(); ++i) tone[i] = 0.1f * std::sin(0.3 * i) * std::exp(-1e-3 * i);
  write_wav(dir / "rate.wav", 8000, tone);
  expect_error(cli("validate --model " + model + " --reference " + (dir / "rate.wav").string() +
                        " --sample-rate 48000 --report " + report.string()), "no resampling", report);

  write_wav(dir / "silence.wav", 48000, std::vector<float>(24000, 0.0f));
  expect_error(cli("validate --model " + model + " --reference " + (dir / "silence.wav").string() +
                        " --report " + report.string()), "silent", report);

  // A plate model against the bar mesh.
  const CliRun plate = cli("modes " + kPlate + " --excite vertex:3 -o " + (dir / "plate.modal.json").string());
  ASSERT_EQ(plate.exit_code, 0) << plate.output;
  expect_error(cli("validate " + kBar + " --model " + (dir / "plate.modal.json").string() + kShort +
                        " --report " + report.string()), "does not match", report);

  // A report directory that cannot be written is found before any render.
  expect_error(cli("validate " + kBar + kShort + " --report /proc/mesh2dsp-report"), "cannot write the report",
               "/proc/mesh2dsp-report");
  EXPECT_FALSE(fs::exists(report));
}

// validate --analytic: the bundled bar at defaults within 1 % of Timoshenko / Rayleigh–Love, a
// coarse linear-element model of it failing (exit 2, the failures named), the plate's first modes
// within 2 % of Mindlin; shapes without a theory and --fix refused with one message.
TEST(Analytic, BundledBarPassesAndACoarseLinearModelFails) {
  const fs::path dir = scratch_root() / "analytic-bar";
  const CliRun good = cli("validate " + source("meshes/bar.obj") + " --material steel --analytic --report " +
                          (dir / "p2").string());
  ASSERT_EQ(good.exit_code, 0) << good.output;
  EXPECT_NE(good.output.find("PASS"), std::string::npos) << good.output;
  const json r = read_json(dir / "p2" / "analytic.json");
  EXPECT_TRUE(r["passed"].get<bool>());
  int bending = 0, longitudinal = 0;
  for (const auto& m : r["modes"]) {
    EXPECT_LT(std::abs(m["error_percent"].get<double>()), 1.0) << m.dump();
    bending += m["mode"].get<std::string>().starts_with("bending");
    longitudinal += m["mode"].get<std::string>().starts_with("longitudinal");
  }
  EXPECT_GE(bending, 8);
  EXPECT_GE(longitudinal, 1);

  // Linear tetrahedra on a 20 mm surface: far too stiff in bending, and --analytic says so.
  const CliRun coarse = cli("validate " + kBar + " --analytic --report " + (dir / "p1").string());
  EXPECT_EQ(coarse.exit_code, 2) << coarse.output;
  EXPECT_NE(coarse.output.find("FAIL"), std::string::npos) << coarse.output;
  EXPECT_FALSE(read_json(dir / "p1" / "analytic.json")["passed"].get<bool>());
}

TEST(Analytic, PlateLowModesMatchMindlin) {
  const fs::path dir = scratch_root() / "analytic-plate";
  const CliRun r = cli("validate " + source("meshes/plate.obj") + " --material steel --modes 10 --analytic --report " +
                       dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json j = read_json(dir / "analytic.json");
  EXPECT_GE(j["modes"].size(), 8u);
  for (const auto& m : j["modes"]) EXPECT_LT(std::abs(m["error_percent"].get<double>()), 2.0) << m.dump();
}

TEST(Analytic, ShapesWithoutATheoryAndClampedObjectsAreRefused) {
  const fs::path dir = scratch_root() / "analytic-bad";
  fs::create_directories(dir);
  const fs::path report = dir / "report";
  auto refused = [&](const std::string& args, const std::string& words) {
    expect_error(cli("validate " + args + " --analytic --report " + report.string()), words, report);
    EXPECT_FALSE(fs::exists(report / "analytic.json"));
  };
  refused(source("meshes/sphere.obj") + " --material steel", "not an axis-aligned box");
  {
    std::ofstream cube(dir / "cube.obj");
    cube << "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
            "f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\nf 2 3 7\nf 2 7 6\nf 3 4 8\nf 3 8 7\n"
            "f 4 1 5\nf 4 5 8\n";
  }
  refused((dir / "cube.obj").string() + " --units cm --material steel", "neither a bar");
  refused(source("meshes/bar.obj") + " --material steel --fix 'x<=-0.14'", "free objects only");
  refused("--material steel", "needs the MESH");
}

// Issue 15, item 6: --max-memory reaches validate (its analysis has the eigen solve's estimate,
// its reference render the factor's size from CHOLMOD's symbolic analysis): one message, exit
// 1, no report — never a kill half-way.
TEST(Validate, MaxMemoryIsHonouredByTheAnalysisAndTheReference) {
  const fs::path dir = scratch_root() / "max-memory";
  const CliRun solve = cli("validate " + kBar + " --max-memory 50k --report " + (dir / "a").string());
  EXPECT_EQ(solve.exit_code, 1) << solve.output;
  EXPECT_NE(solve.output.find("--max-memory allows"), std::string::npos) << solve.output;
  EXPECT_EQ(solve.output.find("internal error"), std::string::npos) << solve.output;
  // With the model given, only the reference is computed here: its check speaks.
  const CliRun reference = cli("validate " + source("meshes/bar.obj") + " --model " +
                               source("generated/bar/bar.modal.json") +
                               " --max-memory 300k --report " + (dir / "b").string());
  EXPECT_EQ(reference.exit_code, 1) << reference.output;
  EXPECT_NE(reference.output.find("the reference render needs about"), std::string::npos)
      << reference.output;
  EXPECT_NE(reference.output.find("--max-memory allows"), std::string::npos) << reference.output;
  EXPECT_FALSE(fs::exists(dir / "a"));
  EXPECT_FALSE(fs::exists(dir / "b"));
}
