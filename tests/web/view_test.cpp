// `mesh2dsp view` and its page: the surface sidecar, the command, and the page itself in Debian's
// headless Chromium with the network cut off (tests/web/page_check.mjs drives it through
// playwright-core): no console errors, the object drawn, the chosen mode animated, a click that
// strikes with φ·n interpolated in the clicked triangle, and the strike compiled by faustwasm and
// rendered in an OfflineAudioContext agreeing with `mesh2dsp render` of the same program.
#include <fcntl.h>
#include <fftw3.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sndfile.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "modal/modal_model.hpp"
#include "modal/surface_shapes.hpp"
#include "radiation/bem.hpp"
#include "emit/audio_support.hpp"
#include "support/command.hpp"
#include "util/error.hpp"

namespace {
namespace fs = std::filesystem;
using mesh2dsp::test::run_command;
using json = nlohmann::json;

const std::string kBin = MESH2DSP_BIN;
const fs::path kSource = MESH2DSP_SOURCE_DIR;

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The emitter tests' WAV and raw float readers (a mono file here).
using emit_test::read_f32;
std::vector<float> read_wav(const fs::path& path, int& rate) {
  int channels = 0;
  auto x = emit_test::read_wav(path, rate, channels);
  EXPECT_EQ(channels, 1) << path;
  return x;
}

// Frequencies of the spectrum's peaks within `range_db` of the strongest (8×
// zero-padding, parabolic interpolation on the dB magnitude), below `fmax_hz`.
std::vector<double> spectral_peaks_hz(const std::vector<float>& x, double rate, double range_db,
                                      double fmax_hz) {
  size_t n = 1;
  while (n < 8 * x.size()) n <<= 1;
  std::vector<double> in(n, 0.0);
  // 4-term Blackman-Harris: sidelobes below -92 dB, so a loud low mode's leakage is no peak.
  for (size_t i = 0; i < x.size(); ++i) {
    const double p = 2 * M_PI * i / (x.size() - 1);
    in[i] = x[i] * (0.35875 - 0.48829 * std::cos(p) + 0.14128 * std::cos(2 * p) - 0.01168 * std::cos(3 * p));
  }
  std::vector<fftw_complex> out(n / 2 + 1);
  fftw_plan plan = fftw_plan_dft_r2c_1d(static_cast<int>(n), in.data(), out.data(), FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  std::vector<double> db(out.size());
  for (size_t k = 0; k < out.size(); ++k) db[k] = 10 * std::log10(out[k][0] * out[k][0] + out[k][1] * out[k][1] + 1e-300);
  const size_t top = static_cast<size_t>(fmax_hz / rate * n);
  double best = -1e300;
  for (size_t k = 1; k < std::min(top, db.size() - 1); ++k) best = std::max(best, db[k]);
  std::vector<double> peaks;
  for (size_t k = 2; k + 2 < std::min(top, db.size()); ++k) {
    if (db[k] < best - range_db || db[k] <= db[k - 1] || db[k] < db[k + 1]) continue;
    const double a = db[k - 1], b = db[k], c = db[k + 1];
    const double shift = 0.5 * (a - c) / (a - 2 * b + c);
    peaks.push_back((k + shift) * rate / n);
  }
  return peaks;
}

// A page written once for the whole suite: the bundled bar, 12 modes, analysed by `view`.
class Page : public ::testing::Test {
 protected:
  static fs::path dir_, page_, check_;
  static json result_;
  static std::string view_output_;

  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("mesh2dsp-web-test-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    page_ = dir_ / "page";
    check_ = dir_ / "check";
    const auto view = run_command(kBin + " view " + quoted(kSource / "meshes/bar.obj") +
                                  " --material steel --modes 12 -o " + quoted(page_));
    view_output_ = view.output;
    if (view.exit_code != 0) return;
    const auto check = run_command("node " + quoted(kSource / "tests/web/page_check.mjs") + " " +
                                   quoted(fs::path("file://" + (page_ / "index.html").string())) + " " +
                                   quoted(check_) + " 2");
    view_output_ += check.output;
    if (fs::exists(check_ / "result.json")) result_ = json::parse(read_file(check_ / "result.json"));
  }
  static void TearDownTestSuite() {
    // Kept when MESH2DSP_KEEP_WEB_TEST is set (the screenshot is worth a look).
    if (!std::getenv("MESH2DSP_KEEP_WEB_TEST")) fs::remove_all(dir_);
  }
  void SetUp() override {
    ASSERT_TRUE(fs::exists(page_ / "index.html")) << view_output_;
    ASSERT_TRUE(result_.is_object()) << view_output_;
  }

  static mesh2dsp::ModalModel model() { return mesh2dsp::read_modal_model(page_ / "bar.modal.json"); }

  // `mesh2dsp render` of `dsp` (in the page's folder) at 48 kHz for `duration_s` with `args`,
  // against the page's samples in `page_file`: the render's peak and the largest difference.
  struct Agreement {
    double peak = 0, worst = 0;
  };
  static Agreement agreement_with_render(const std::string& page_file, const std::string& dsp,
                                         double duration_s, const std::string& args) {
    const auto page = read_f32(check_ / page_file);
    EXPECT_FALSE(page.empty()) << page_file;
    const fs::path wav = dir_ / (page_file + ".wav");
    const auto render = run_command(kBin + " -q render " + quoted(page_ / dsp) + " -o " + quoted(wav) +
                                    " -r 48000 -d " + std::to_string(duration_s) + " " + args);
    EXPECT_EQ(render.exit_code, 0) << render.output;
    int rate = 0;
    const auto reference = read_wav(wav, rate);
    EXPECT_EQ(rate, 48000);
    EXPECT_EQ(reference.size(), page.size()) << page_file;
    Agreement a;
    for (size_t i = 0; i < std::min(page.size(), reference.size()); ++i) {
      a.peak = std::max(a.peak, std::abs(static_cast<double>(reference[i])));
      // NaN in the page's samples counts as the largest difference.
      const double d = std::abs(static_cast<double>(page[i]) - reference[i]);
      a.worst = std::isfinite(d) ? std::max(a.worst, d) : INFINITY;
    }
    return a;
  }
};
fs::path Page::dir_, Page::page_, Page::check_;
json Page::result_;
std::string Page::view_output_;

TEST_F(Page, LoadsOfflineWithoutConsoleErrors) {
  EXPECT_TRUE(result_["errors"].empty()) << result_["errors"].dump(1);
  EXPECT_TRUE(result_["blocked"].empty()) << "the page asked the network for " << result_["blocked"].dump(1);
  EXPECT_GT(result_["compileMs"].get<double>(), 0);  // faustwasm compiled the program
  std::cout << "[ page ] " << page_ << ": DOM load " << result_["domLoadMs"] << " ms, ready (faustwasm compiled) "
            << result_["readyMs"] << " ms\n";
}

TEST_F(Page, ScreenshotShowsTheObject) {
  EXPECT_TRUE(fs::exists(check_ / "screenshot.png"));
  const double object = result_["pixels"]["object"], total = result_["pixels"]["total"];
  EXPECT_GT(object, 0.01 * total) << "the canvas is (nearly) all background";
  EXPECT_LT(object, 0.9 * total);
}

TEST_F(Page, ModeAnimationMovesTheChosenModesVertices) {
  const auto& a = result_["animation"];
  const int mode = a["mode"];
  EXPECT_GT(a["maxMove"].get<double>(), 0);
  // The motion is the chosen mode's shape (correlation 1 up to the int16 quantization), not
  // another's: mass-normalised modes are M-orthogonal, so their surface motions differ.
  EXPECT_GT(a["correlation"][mode].get<double>(), 0.9999);
  for (size_t n = 0; n < a["correlation"].size(); ++n)
    if (static_cast<int>(n) != mode) EXPECT_LT(std::abs(a["correlation"][n].get<double>()), 0.9) << n;
}

TEST_F(Page, ClickGainsArePhiDotNInterpolatedInTheClickedTriangle) {
  const auto surface = mesh2dsp::read_surface_shapes(page_ / "bar.surface.bin");
  const int t = result_["contact"]["triangle"];
  const double u = result_["contact"]["u"], v = result_["contact"]["v"];
  ASSERT_GE(t, 0);
  ASSERT_LT(t, surface.triangles.rows());
  EXPECT_GE(u, 0);
  EXPECT_GE(v, 0);
  EXPECT_LE(u + v, 1 + 1e-12);
  const auto& gains = result_["gains"];
  ASSERT_EQ(static_cast<int>(gains.size()), surface.mode_count());
  double peak = 0;
  for (int n = 0; n < surface.mode_count(); ++n) peak = std::max(peak, surface.gains.col(n).cwiseAbs().maxCoeff());
  for (int n = 0; n < surface.mode_count(); ++n) {
    const double a = surface.gains(surface.triangles(t, 0), n), b = surface.gains(surface.triangles(t, 1), n),
                 c = surface.gains(surface.triangles(t, 2), n);
    EXPECT_NEAR(gains[n].get<double>(), (1 - u - v) * a + u * b + v * c, 1e-6 * peak) << "mode " << n;
  }
}

TEST_F(Page, StrikeMatchesMesh2dspRenderOfTheSameProgramAndPoint) {
  const auto& c = result_["contact"];
  char sets[512];
  std::snprintf(sets, sizeof sets,
                "--set 'moving contact=1' --set 'contact triangle=%d' --set 'contact u=%.17g' "
                "--set 'contact v=%.17g' --set hardness=%.17g --trigger gate@%.17g",
                c["triangle"].get<int>(), c["u"].get<double>(), c["v"].get<double>(),
                result_["hardness"].get<double>(), result_["strikeTime"].get<double>());
  const auto a = agreement_with_render("page.f32", "bar_surface.dsp", 1, sets);
  ASSERT_GT(a.peak, 1e-3) << "the strike is silent";
  EXPECT_LT(a.worst, 1e-3 * a.peak) << "faustwasm in Chromium vs mesh2dsp render (libfaust JIT)";
  std::cout << "[ page ] largest difference " << a.worst / a.peak << " of the peak\n";
}

TEST_F(Page, ShippedInstrumentStrikesTheNearestExcitationPointAsRenderDoes) {
  const int point = result_["shipped"]["point"];
  ASSERT_GE(point, 0);
  ASSERT_LT(point, static_cast<int>(model().excitations.size()));
  const auto a = agreement_with_render("shipped.f32", "bar.dsp", 1,
                                       "--set 'excitation point=" + std::to_string(point) +
                                           "' --set hardness=1 --trigger gate@" + result_["strikeTime"].dump());
  ASSERT_GT(a.peak, 1e-3);
  EXPECT_LT(a.worst, 1e-3 * a.peak);
}

TEST_F(Page, StrikeSpectrumPeaksAreTheModelsModes) {
  const auto page = read_f32(check_ / "page.f32");
  ASSERT_FALSE(page.empty());
  const auto m = model();
  // From the strike onwards (before it: silence); peaks within 70 dB of the strongest (the
  // impact's force spectrum and φ² at the point leave the high modes far below the first).
  const std::vector<float> strike(page.begin() + static_cast<long>(result_["strikeTime"].get<double>() * 48000),
                                  page.end());
  const auto peaks = spectral_peaks_hz(strike, 48000, 70, 0.45 * 48000);
  ASSERT_GE(peaks.size(), 3u);
  int matched_modes = 0;
  for (double f : peaks) {
    double nearest = 1e300;
    for (const auto& mode : m.modes) nearest = std::min(nearest, std::abs(f - mode.frequency_hz) / mode.frequency_hz);
    EXPECT_LT(nearest, 0.005) << "a peak at " << f << " Hz is no mode of the model";
  }
  // Every mode the clicked point excites strongly (gain² at least 5 % of the largest; the
  // contact microphone weighs a mode by its gain squared) below 8 kHz, where the 0.2 ms
  // impact's force spectrum is still within a few dB of its low-frequency level, is a peak.
  const auto& gains = result_["gains"];
  double strongest = 0;
  for (const auto& g : gains) strongest = std::max(strongest, g.get<double>() * g.get<double>());
  int required = 0;
  for (size_t n = 0; n < m.modes.size(); ++n) {
    const double f0 = m.modes[n].frequency_hz;
    bool found = false;
    for (double f : peaks) found |= std::abs(f - f0) < 0.005 * f0;
    matched_modes += found;
    const double g = gains[n].get<double>();
    if (g * g >= 0.05 * strongest && f0 < 8000) {
      ++required;
      EXPECT_TRUE(found) << "mode " << n + 1 << " (" << f0 << " Hz, gain " << g << ") has no peak";
    }
  }
  std::cout << "[ page ] " << peaks.size() << " spectral peaks, " << matched_modes << " of "
            << m.modes.size() << " modes found, " << required << " required\n";
  EXPECT_GE(required, 2);
  EXPECT_GE(matched_modes, 3);
}

TEST_F(Page, PlotsOfTheLastStrikeAreDrawn) {
  ASSERT_EQ(result_["plots"].size(), 2u);
  for (const auto& plot : result_["plots"])
    EXPECT_GT(plot["drawn"].get<double>(), 0.005 * plot["total"].get<double>()) << plot["id"];
}

TEST_F(Page, ShiftDragScrapesAndLiftsOnRelease) {
  const auto& during = result_["drag"]["during"]["params"];
  EXPECT_EQ(during["excitation"], 3) << "the scrape contact model";
  EXPECT_EQ(during["moving contact"], 1);
  EXPECT_GT(during["force"].get<double>(), 0);
  EXPECT_GT(during["speed"].get<double>(), 0.01) << "the drag's speed";
  const auto& contact = result_["drag"]["during"]["contact"];
  EXPECT_EQ(during["contact triangle"], contact["triangle"]);
  EXPECT_NE(contact.dump(), result_["contact"].dump()) << "the contact did not follow the drag";
  EXPECT_EQ(result_["drag"]["after"]["force"], 0) << "released: the contact lifts";
}

TEST_F(Page, ScrapeAlongAPathMatchesMesh2dspRender) {
  const auto& s = result_["scrape"];
  std::string sets = "--set excitation=3 --set 'moving contact=1' --set force=" + s["force"].dump() +
                     " --set speed=" + s["speed"].dump();
  const auto& first = s["path"][0];  // the scrape starts there
  sets += " --set 'contact triangle=" + first["triangle"].dump() + "' --set 'contact u=" + first["u"].dump() +
          "' --set 'contact v=" + first["v"].dump() + "'";
  for (const auto& p : s["path"]) {
    const std::string at = "@" + p["time"].dump();
    sets += " --set 'contact triangle=" + p["triangle"].dump() + at + "' --set 'contact u=" + p["u"].dump() + at +
            "' --set 'contact v=" + p["v"].dump() + at + "'";
  }
  const auto a = agreement_with_render("scrape.f32", "bar_surface.dsp", s["duration"].get<double>(), sets);
  ASSERT_GT(a.peak, 1e-4) << "the scrape is silent";
  EXPECT_LT(a.worst, 1e-3 * a.peak);
  std::cout << "[ page ] scrape: largest difference " << a.worst / a.peak << " of the peak\n";
}

TEST_F(Page, BothProgramsCompileWithFaustwasmInNode) {
  const auto r = run_command("node " + quoted(kSource / "tests/web/faustwasm_compile.mjs") + " " +
                             quoted(page_ / "bar_surface.dsp") + " " + quoted(page_ / "bar.dsp"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("\"ok\":false"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bar_surface.dsp\",\"ok\":true"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bar.dsp\",\"ok\":true"), std::string::npos) << r.output;
}

TEST_F(Page, SurfaceProgramCompilesWithDebiansFaust) {
  const auto r = run_command("faust " + quoted(page_ / "bar_surface.dsp") + " -o /dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto shipped = run_command("faust " + quoted(page_ / "bar.dsp") + " -o /dev/null");
  EXPECT_EQ(shipped.exit_code, 0) << shipped.output;
}

TEST_F(Page, SidecarGainsAtTheExcitationPointsAreTheModelsGains) {
  const auto m = model();
  ASSERT_TRUE(m.surface);
  const auto& s = *m.surface;
  for (const auto& e : m.excitations) {
    const auto it = std::find(s.tet_vertex.begin(), s.tet_vertex.end(), e.vertex);
    ASSERT_NE(it, s.tet_vertex.end()) << "excitation vertex " << e.vertex << " is not on the surface";
    const int v = static_cast<int>(it - s.tet_vertex.begin());
    EXPECT_LT((s.positions.row(v).transpose() - e.position).norm(), 1e-6);
    for (size_t n = 0; n < e.gains.size(); ++n)
      EXPECT_NEAR(s.gains(v, n), e.gains[n], 1e-6 * std::abs(e.gains[n]) + 1e-12);
  }
}

// ---------------------------------------------------------------- without the browser

// Every program the emitters write compiles with Faust's WebAssembly compiler (faustwasm, in
// Node) as it does with Debian's faust: generated/, every contact model, the modeFilter
// resonator, and the page's two programs. A broken program is refused (the check can fail).
TEST(Faustwasm, CompilesEveryEmittedProgram) {
  const fs::path dir = fs::temp_directory_path() / ("mesh2dsp-web-faustwasm-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto gen = run_command(kBin + " -q generate " + quoted(kSource / "generated/testbar/testbar.modal.json") +
                               " --no-model-json --excitation all --faust " + quoted(dir / "all.dsp") +
                               " --faust-effect " + quoted(dir / "effect.dsp"));
  ASSERT_EQ(gen.exit_code, 0) << gen.output;
  const auto mf = run_command(kBin + " -q generate " + quoted(kSource / "generated/testbar_stereo/testbar_stereo.modal.json") +
                              " --no-model-json --resonator modefilter --faust " + quoted(dir / "modefilter.dsp"));
  ASSERT_EQ(mf.exit_code, 0) << mf.output;
  std::ofstream(dir / "broken.dsp") << "process = +(;\n";
  std::string files;
  int expected = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kSource / "generated"))
    if (entry.path().extension() == ".dsp") files += " " + quoted(entry.path()), ++expected;
  for (const char* f : {"all.dsp", "effect.dsp", "modefilter.dsp", "broken.dsp"}) files += " " + quoted(dir / f), ++expected;
  const auto run = run_command("node " + quoted(kSource / "tests/web/faustwasm_compile.mjs") + files);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::istringstream lines(run.output);
  std::string line;
  int seen = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '{') continue;
    const auto r = json::parse(line);
    ++seen;
    const bool broken = r["file"].get<std::string>().ends_with("broken.dsp");
    EXPECT_EQ(r["ok"].get<bool>(), !broken) << r["file"] << ": " << r["error"];
  }
  EXPECT_EQ(seen, expected) << run.output;
  fs::remove_all(dir);
}

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("mesh2dsp-web-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(SurfaceShapes, SidecarRoundTripKeepsGainsAndQuantizesDisplacement) {
  mesh2dsp::SurfaceShapes s;
  s.positions = Eigen::MatrixXd::Random(5, 3);
  s.normals = Eigen::MatrixXd::Random(5, 3);
  s.triangles.resize(2, 3);
  s.triangles << 0, 1, 2, 2, 3, 4;
  s.tet_vertex = {0, 3, 7, 8, 9};
  s.gains = Eigen::MatrixXd::Random(5, 4);
  s.displacement = Eigen::MatrixXd::Random(15, 4);
  const fs::path dir = scratch("roundtrip");
  mesh2dsp::write_surface_shapes(dir / "x.surface.bin", s);
  const auto r = mesh2dsp::read_surface_shapes(dir / "x.surface.bin", 4);
  EXPECT_EQ(r.triangles, s.triangles);
  EXPECT_EQ(r.tet_vertex, s.tet_vertex);
  EXPECT_LT((r.gains - s.gains).cwiseAbs().maxCoeff(), 1e-7);
  for (int n = 0; n < 4; ++n)
    EXPECT_LE((r.displacement.col(n) - s.displacement.col(n)).cwiseAbs().maxCoeff(),
              0.51 / 32767 * s.displacement.col(n).cwiseAbs().maxCoeff() + 1e-9);
  // A truncated or mismatched file is one clear error.
  const std::string bytes = read_file(dir / "x.surface.bin");
  std::ofstream(dir / "short.bin", std::ios::binary) << bytes.substr(0, bytes.size() - 2);
  try {
    mesh2dsp::read_surface_shapes(dir / "short.bin");
    ADD_FAILURE() << "a truncated sidecar was read";
  } catch (const mesh2dsp::Error& e) {
    EXPECT_NE(std::string(e.what()).find("bytes, expected"), std::string::npos) << e.what();
  }
  EXPECT_THROW(mesh2dsp::read_surface_shapes(dir / "x.surface.bin", 5), mesh2dsp::Error);
  fs::remove_all(dir);
}

// A model analysed with --radiation bem: the page draws the selected mode's directivity balloon,
// whose radius in each direction is |F(d)| of the model file's coefficients, as the radiation
// code evaluates them (scaled so the widest lobe reaches the bounding sphere).
TEST(ViewCommand, PageDrawsTheSelectedModesDirectivity) {
  const fs::path dir = scratch("directivity");
  const auto modes = run_command(kBin + " -q modes " + quoted(kSource / "meshes/bar.obj") +
                                 " --material steel --modes 3 --radiation bem --surface-data -o " +
                                 quoted(dir / "bar.modal.json"));
  ASSERT_EQ(modes.exit_code, 0) << modes.output;
  const auto view = run_command(kBin + " -q view " + quoted(dir / "bar.modal.json") + " -o " + quoted(dir / "page"));
  ASSERT_EQ(view.exit_code, 0) << view.output;
  const int mode = 1;
  const auto check = run_command("node " + quoted(kSource / "tests/web/directivity_check.mjs") + " " +
                                 quoted(fs::path("file://" + (dir / "page/index.html").string())) + " " +
                                 quoted(dir / "check") + " " + std::to_string(mode));
  ASSERT_TRUE(fs::exists(dir / "check/directivity.json")) << check.output;
  const json r = json::parse(read_file(dir / "check/directivity.json"));
  EXPECT_TRUE(r["errors"].empty()) << r["errors"].dump();
  EXPECT_TRUE(r["toggleShown"].get<bool>());
  ASSERT_TRUE(r["balloon"].is_object()) << r.dump().substr(0, 400);
  EXPECT_TRUE(r["balloon"]["shown"].get<bool>());
  const auto model = mesh2dsp::read_modal_model(dir / "bar.modal.json");
  mesh2dsp::Directivity d;
  d.order = model.modes[mode].directivity_order;
  d.coefficients = Eigen::Map<const Eigen::VectorXcd>(model.modes[mode].directivity.data(),
                                                       static_cast<Eigen::Index>(model.modes[mode].directivity.size()));
  EXPECT_EQ(r["balloon"]["order"].get<int>(), d.order);
  const auto& directions = r["balloon"]["directions"];
  const auto& magnitudes = r["balloon"]["magnitudes"];
  ASSERT_EQ(directions.size(), 3 * magnitudes.size());
  const double peak = r["balloon"]["peak"].get<double>();
  double worst = 0, largest = 0;
  for (size_t i = 0; i < magnitudes.size(); ++i) {
    const Eigen::Vector3d u(directions[3 * i].get<double>(), directions[3 * i + 1].get<double>(),
                            directions[3 * i + 2].get<double>());
    const double expected = std::abs(d.evaluate(u.normalized()));
    worst = std::max(worst, std::abs(magnitudes[i].get<double>() - expected));
    largest = std::max(largest, expected);
  }
  std::cout << "[ page ] directivity of mode " << mode << " (order " << d.order << "): " << magnitudes.size()
            << " balloon directions, largest |page - model| " << worst / largest << " of the peak; pixels "
            << r["pixelsHidden"] << " hidden, " << r["pixelsShown"] << " shown\n";
  EXPECT_LT(worst, 1e-6 * largest);
  EXPECT_NEAR(peak, largest, 0.05 * largest);  // the balloon's directions sample the peak closely
  EXPECT_GT(r["pixelsShown"].get<int>(), r["pixelsHidden"].get<int>() + 2000) << "the balloon is not drawn";
}

TEST(ViewCommand, ModelWithoutSurfaceDataIsOneClearErrorAndNoPage) {
  const fs::path dir = scratch("nosurface");
  const auto r = run_command(kBin + " view " + quoted(kSource / "generated/bar/bar.modal.json") + " -o " +
                             quoted(dir / "page"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--surface-data"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "page" / "index.html"));
  // --surface-data cannot invent the shapes from a model file that has none.
  const auto modes = run_command(kBin + " modes " + quoted(kSource / "generated/bar/bar.modal.json") +
                                 " --surface-data -o " + quoted(dir / "x.modal.json"));
  EXPECT_EQ(modes.exit_code, 1) << modes.output;
  EXPECT_NE(modes.output.find("--surface-data needs the mesh"), std::string::npos) << modes.output;
  EXPECT_FALSE(fs::exists(dir / "x.modal.json"));
  fs::remove_all(dir);
}

TEST(ViewCommand, ModesSurfaceDataThenViewTheModelFileAndServeIt) {
  const fs::path dir = scratch("modelfile");
  const auto modes = run_command(kBin + " -q modes " + quoted(kSource / "meshes/bar.obj") +
                                 " --material steel --modes 6 --surface-data -o " + quoted(dir / "bar.modal.json"));
  ASSERT_EQ(modes.exit_code, 0) << modes.output;
  EXPECT_TRUE(fs::exists(dir / "bar.surface.bin"));
  EXPECT_NE(read_file(dir / "bar.modal.json").find("\"surface\""), std::string::npos);
  // Re-tuned (aluminium's E and ρ at the model's ν), the sidecar follows the model.
  const auto retuned = run_command(kBin + " -q modes " + quoted(dir / "bar.modal.json") + " --material aluminium --poisson-ratio 0.29 --surface-data -o " +
                                   quoted(dir / "alu.modal.json"));
  ASSERT_EQ(retuned.exit_code, 0) << retuned.output;
  {
    const auto steel = mesh2dsp::read_modal_model(dir / "bar.modal.json");
    const auto alu = mesh2dsp::read_modal_model(dir / "alu.modal.json");
    ASSERT_TRUE(steel.surface && alu.surface);
    // Mass-normalised shapes scale as 1/√ρ: the sidecar's gains follow the model's.
    const double scale = std::sqrt(steel.material.density_kg_m3 / alu.material.density_kg_m3);
    EXPECT_NEAR(alu.surface->gains(0, 0), scale * steel.surface->gains(0, 0), 1e-6 * std::abs(steel.surface->gains(0, 0)));
    EXPECT_NEAR(alu.excitations[0].gains[0], scale * steel.excitations[0].gains[0], 1e-9 * std::abs(steel.excitations[0].gains[0]));
  }
  // A model whose sidecar went missing is read (with a notice) but has no surface data.
  fs::create_directories(dir / "moved");
  fs::copy_file(dir / "alu.modal.json", dir / "moved/alu.modal.json");  // without its sidecar
  const auto lost = run_command(kBin + " view " + quoted(dir / "moved/alu.modal.json") + " -o " + quoted(dir / "lostpage"));
  EXPECT_EQ(lost.exit_code, 1) << lost.output;
  EXPECT_NE(lost.output.find("is missing"), std::string::npos) << lost.output;
  // Re-tuned to another material, the shapes follow (1/√ρ) and the page is written.
  const auto view = run_command(kBin + " -q view " + quoted(dir / "bar.modal.json") + " -o " + quoted(dir / "page"));
  ASSERT_EQ(view.exit_code, 0) << view.output;
  for (const char* f : {"index.html", "app.js", "faust.js", "data.js", "bar.dsp", "bar_surface.dsp",
                        "bar.modal.json", "bar.surface.bin"})
    EXPECT_TRUE(fs::exists(dir / "page" / f)) << f;

  // --serve: the URL on stdout, the folder served, nothing outside it.
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  const pid_t child = fork();
  if (child == 0) {
    dup2(out[1], 1);
    close(out[0]);
    execl(kBin.c_str(), kBin.c_str(), "-q", "view", (dir / "bar.modal.json").c_str(), "-o",
          (dir / "served").c_str(), "--serve", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  std::string line;
  char ch;
  while (read(out[0], &ch, 1) == 1 && ch != '\n') line += ch;
  close(out[0]);
  ASSERT_EQ(line.rfind("http://127.0.0.1:", 0), 0u) << line;
  const auto index = run_command("curl -s -o /dev/null -w '%{http_code}' " + line + "index.html");
  const auto data = run_command("curl -s " + line + "bar.surface.bin | cmp - " + quoted(dir / "served/bar.surface.bin"));
  const auto outside = run_command("curl -s -o /dev/null -w '%{http_code}' --path-as-is " + line + "../bar.modal.json");
  // The served page in Chromium (an http origin: faustwasm's own blob: worklet, no file:// path).
  const auto browser = run_command("node " + quoted(kSource / "tests/web/page_check.mjs") + " " + line + " " +
                                   quoted(dir / "check") + " 1");
  kill(child, SIGTERM);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_EQ(index.output, "200");
  EXPECT_EQ(data.exit_code, 0) << data.output;
  EXPECT_EQ(outside.output, "404");
  ASSERT_TRUE(fs::exists(dir / "check/result.json")) << browser.output;
  const auto served = json::parse(read_file(dir / "check/result.json"));
  ASSERT_TRUE(served["errors"].empty()) << served["errors"].dump(1);
  EXPECT_TRUE(served["blocked"].empty()) << served["blocked"].dump(1);
  EXPECT_GT(served["pixels"]["object"].get<double>(), 0.01 * served["pixels"]["total"].get<double>());
  double peak = 0;
  for (float x : read_f32(dir / "check/page.f32")) peak = std::max(peak, std::abs(static_cast<double>(x)));
  EXPECT_GT(peak, 1e-3) << "the served page's strike is silent";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "--serve should end cleanly on SIGTERM";
  fs::remove_all(dir);
}

TEST(GenerateCommand, WebWritesThePageBesideTheOtherOutputs) {
  const fs::path dir = scratch("generate");
  const auto r = run_command(kBin + " -q generate " + quoted(kSource / "meshes/bar.obj") +
                             " --material steel --modes 6 --faust " + quoted(dir / "bar.dsp") + " --web " +
                             quoted(dir / "web"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir / "web/index.html"));
  EXPECT_TRUE(fs::exists(dir / "web/bar.surface.bin"));
  // The model beside --faust stays as before (no sidecar): generated/ does not change.
  EXPECT_EQ(read_file(dir / "bar.modal.json").find("\"surface\""), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "bar.surface.bin"));
  // The shipped program in the page is the one --faust wrote.
  EXPECT_EQ(read_file(dir / "web/bar.dsp"), read_file(dir / "bar.dsp"));
  // From a model without surface data: refused before anything is written.
  const auto plain = run_command(kBin + " generate " + quoted(dir / "bar.modal.json") + " --faust " +
                                 quoted(dir / "again.dsp") + " --web " + quoted(dir / "web2"));
  EXPECT_EQ(plain.exit_code, 1) << plain.output;
  EXPECT_NE(plain.output.find("--surface-data"), std::string::npos) << plain.output;
  EXPECT_FALSE(fs::exists(dir / "again.dsp"));
  EXPECT_FALSE(fs::exists(dir / "web2/index.html"));
  fs::remove_all(dir);
}

}  // namespace
