// The contact models (issue 7): impact (van den Doel & Pai 2003, eq. 7), hammer (Hiner 2024, §3.3), micro-collisions,
// scraping and rolling (van den Doel, Kry & Pai 2001), live input (van den Doel & Pai 2003, §3.4). Their forces are measured from the
// emitted header (excitation_testbar); the Faust program and the header agree on every one;
// the generated instrument renders silence, not NaN, when nothing strikes it.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>
#include <vector>

#include <Eigen/Geometry>

#include "audio_support.hpp"
#include "emit/emitters.hpp"
#include "modal/excitation.hpp"
#include "modal/modal_model.hpp"

namespace emit_test {
namespace {

constexpr int kRate = 48000;
enum Kind { kImpact = 0, kHammer = 1, kMicro = 2, kScrape = 3, kRoll = 4, kInput = 5 };

class ExcitationTest : public ScratchTest {
 protected:
  struct Settings {
    double hardness = 0.7, speed = 0.3, roughness = 1.0, size = 0.1, seconds = 1.0;
  };
  // The header's contact force alone ("force") or the struck model's output ("output").
  std::vector<float> render(const char* what, Kind kind, const Settings& s, const std::string& where = "") {
    const fs::path out = dir / "render.f32";
    const auto r = run("'" + std::string(MESH2DSP_HARNESS_DIR) + "/excitation_testbar' " + what + " " +
                       std::to_string(kind) + " " + std::to_string(kRate) + " " + std::to_string(s.seconds) + " " +
                       std::to_string(s.hardness) + " " + std::to_string(s.speed) + " " +
                       std::to_string(s.roughness) + " " + std::to_string(s.size) + " '" + out.string() + "' " + where);
    EXPECT_EQ(r.status, 0) << r.output;
    return read_f32(out);
  }
  // Welch power of a continuous force after its controls' 10 ms smoothers have settled.
  std::vector<double> settled_power(Kind kind, const Settings& s) {
    auto x = render("force", kind, s);
    x.erase(x.begin(), x.begin() + kRate / 10);
    return welch_power(x, kFrame);
  }
  static constexpr size_t kFrame = 4096;
  static constexpr double kBinHz = double(kRate) / kFrame;
};

// |DFT| of x at frequency hz (x is short: direct sum).
double magnitude_at(const std::vector<float>& x, double hz) {
  std::complex<double> sum = 0;
  for (size_t i = 0; i < x.size(); ++i) sum += double(x[i]) * std::polar(1.0, -2 * M_PI * hz * i / kRate);
  return std::abs(sum);
}

double centroid_hz(const std::vector<float>& x) {
  const auto mag = spectrum(x, 1 << 14);
  double num = 0, den = 0;
  for (size_t k = 0; k < mag.size(); ++k) num += k * mag[k], den += mag[k];
  return num / den * kRate / (1 << 14);
}

// Contact time T = 0.2 ms 50^(1 - hardness): lowering hardness by ln 2 / ln 50 doubles T.
const double kDoubleT = std::log(2.0) / std::log(50.0);

TEST_F(ExcitationTest, ImpactWithTwiceTheContactTimeHasALowerCentroid) {
  Settings s;
  s.seconds = 0.05;
  s.hardness = 0.8;
  const auto short_pulse = render("force", kImpact, s);
  s.hardness -= kDoubleT;
  const auto long_pulse = render("force", kImpact, s);
  // Both deliver the struck momentum (1 N s), as van den Doel & Pai's eq. 7 is scaled to: the
  // force (N) summed over samples of 1/rate s.
  EXPECT_NEAR(std::accumulate(short_pulse.begin(), short_pulse.end(), 0.0) / kRate, 1.0, 1e-4);
  EXPECT_NEAR(std::accumulate(long_pulse.begin(), long_pulse.end(), 0.0) / kRate, 1.0, 1e-4);
  const double c_short = centroid_hz(short_pulse), c_long = centroid_hz(long_pulse);
  RecordProperty("centroid_short_hz", std::to_string(c_short));
  RecordProperty("centroid_long_hz", std::to_string(c_long));
  // The raised cosine's spectrum scales with 1/T: the centroid about halves.
  EXPECT_LT(c_long, c_short);
  EXPECT_NEAR(c_long / c_short, 0.5, 0.1) << c_short << " Hz -> " << c_long << " Hz";
}

TEST_F(ExcitationTest, StruckModeAmplitudesFollowThePulseSpectrum) {
  // T = 0.2 ms 50^0.3 = 0.65 ms: |F(f)| falls by tens of dB over the modes below its first
  // zero (2/T = 3.1 kHz).
  Settings s;
  s.hardness = 0.7;
  s.seconds = 0.05;
  const auto pulse = render("force", kImpact, s);
  s.seconds = 1.0;
  const auto struck = render("output", kImpact, s);
  // The unit impulse response from the same header (signal tests' harness).
  const fs::path ir_file = dir / "ir.f32";
  const auto r = run("'" + std::string(MESH2DSP_HARNESS_DIR) + "/render_testbar' 48000 1.0 0 impulse -1 '" +
                     ir_file.string() + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto ir = read_f32(ir_file);
  const auto model = mesh2dsp::read_modal_model(kData / "testbar.modal.json");
  const double f0 = magnitude_at(pulse, model.modes[0].frequency_hz);
  int checked = 0;
  for (const auto& m : model.modes) {
    if (m.frequency_hz > 0.45 * kRate) continue;
    const double expected_db = 20 * std::log10(magnitude_at(pulse, m.frequency_hz) / f0);
    if (expected_db < -40) continue;  // the pulse's spectral zeros: nothing left to compare
    // The mode's amplitude ratio struck / impulse, relative to the fundamental's.
    const size_t size = 1 << 16;
    const auto a = spectrum(struck, size), b = spectrum(ir, size);
    auto level = [&](const std::vector<double>& mag, double hz) {
      const size_t k = static_cast<size_t>(std::lround(hz * size / kRate));
      return *std::max_element(mag.begin() + k - 3, mag.begin() + k + 4);
    };
    const double ratio = level(a, m.frequency_hz) / level(b, m.frequency_hz);
    const double ratio0 = level(a, model.modes[0].frequency_hz) / level(b, model.modes[0].frequency_hz);
    const double found_db = 20 * std::log10(ratio / ratio0);
    EXPECT_NEAR(found_db, expected_db, 1.0) << m.frequency_hz << " Hz";
    RecordProperty("mode_" + std::to_string(static_cast<int>(m.frequency_hz)),
                   std::to_string(found_db) + " dB, |F| " + std::to_string(expected_db) + " dB");
    ++checked;
  }
  EXPECT_GE(checked, 3);
}

// The reson's peak in a scrape's Welch power: whitened by f^beta (undoing the fractal profile),
// smoothed over 7 bins, the largest in [lo, hi] refined by a parabola through log power.
double reson_peak_hz(const std::vector<double>& power, double beta, double lo, double hi, double bin_hz) {
  std::vector<double> q(power.size(), 0.0);
  for (size_t k = 3; k + 3 < power.size(); ++k)
    for (int j = -3; j <= 3; ++j) q[k] += power[k + j] * std::pow((k + j) * bin_hz, beta);
  size_t best = static_cast<size_t>(lo / bin_hz);
  for (size_t k = best; k <= static_cast<size_t>(hi / bin_hz); ++k)
    if (q[k] > q[best]) best = k;
  const double a = std::log(q[best - 1]), b = std::log(q[best]), c = std::log(q[best + 1]);
  return (best + 0.5 * (a - c) / (a - 2 * b + c)) * bin_hz;
}

TEST_F(ExcitationTest, ScrapeResonancePeakMovesInProportionToSpeed) {
  Settings s;
  s.seconds = 2.0;
  std::vector<double> peaks;
  for (double speed : {0.15, 0.3, 0.6}) {
    s.speed = speed;
    peaks.push_back(reson_peak_hz(settled_power(kScrape, s), s.roughness, 100, 5000, kBinHz));
  }
  RecordProperty("peaks_hz", std::to_string(peaks[0]) + " " + std::to_string(peaks[1]) + " " + std::to_string(peaks[2]));
  // 2000 Hz per m/s (a 0.5 mm surface period): 300, 600, 1200 Hz.
  EXPECT_NEAR(peaks[1] / peaks[0], 2.0, 0.15) << peaks[0] << " " << peaks[1];
  EXPECT_NEAR(peaks[2] / peaks[1], 2.0, 0.15) << peaks[1] << " " << peaks[2];
  EXPECT_NEAR(peaks[1], 600, 60);
}

// Least-squares slope of 10 log10(power) per decade... in log-log: d ln P / d ln f over [lo, hi].
double log_log_slope(const std::vector<double>& ratio, double lo, double hi, double bin_hz) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0;
  for (size_t k = static_cast<size_t>(lo / bin_hz); k <= static_cast<size_t>(hi / bin_hz); ++k) {
    const double x = std::log(k * bin_hz), y = std::log(ratio[k]);
    sx += x, sy += y, sxx += x * x, sxy += x * y, n += 1;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

TEST_F(ExcitationTest, ScrapeSpectralSlopeFollowsRoughnessBeta) {
  // The same noise (no.noise's LCG from the same seed) through the same reson: the ratio of two
  // scrapes' power is the ratio of the two profiles, f^-(beta1 - beta2).
  Settings s;
  s.roughness = 0.6;
  const auto smooth = settled_power(kScrape, s);
  s.roughness = 1.4;
  const auto rough = settled_power(kScrape, s);
  std::vector<double> ratio(smooth.size());
  for (size_t k = 0; k < ratio.size(); ++k) ratio[k] = rough[k] / smooth[k];
  const double slope = log_log_slope(ratio, 100, 4000, kBinHz);
  RecordProperty("slope", std::to_string(slope));
  EXPECT_NEAR(slope, -0.8, 0.1);
}

TEST_F(ExcitationTest, RollingLowPassCutoffShowsWhereItWasSet) {
  Settings s;
  s.speed = 0.5;
  const auto scrape = settled_power(kScrape, s);
  for (double size : {0.6, 0.85}) {
    s.size = size;
    const auto roll = settled_power(kRoll, s);
    const double cutoff = (1 - size) * 9500 + 500;
    // roll / scrape = |two one-poles|^2 (times the scrape's friction): -6 dB at the cut-off.
    std::vector<double> ratio(roll.size());
    for (size_t k = 0; k < ratio.size(); ++k) ratio[k] = roll[k] / scrape[k];
    const double low = ratio[static_cast<size_t>(60 / kBinHz)];
    size_t k = static_cast<size_t>(60 / kBinHz);
    while (k + 1 < ratio.size() && ratio[k] > 0.25 * low) ++k;
    const double found = k * kBinHz;
    RecordProperty("cutoff_" + std::to_string(cutoff), std::to_string(found));
    EXPECT_NEAR(found / cutoff, 1.0, 0.1) << "set " << cutoff << " Hz, -6 dB at " << found << " Hz";
  }
}

TEST_F(ExcitationTest, HammerAndMicroCollisionsDeliverBoundedFiniteForces) {
  Settings s;
  s.seconds = 0.1;
  s.hardness = 0.9;
  const auto hammer = render("force", kHammer, s);
  const auto micro = render("force", kMicro, s);
  const auto impact = render("force", kImpact, s);
  double hammer_energy = 0, late_micro = 0, late_impact = 0;
  for (size_t i = 0; i < hammer.size(); ++i) {
    ASSERT_TRUE(std::isfinite(hammer[i]) && std::isfinite(micro[i]));
    hammer_energy += hammer[i] * hammer[i];
    if (i > kRate / 1000) late_micro += std::abs(micro[i]), late_impact += std::abs(impact[i]);
  }
  EXPECT_GT(hammer_energy, 0);
  // After the 0.2 ms impact only the micro-collision trains go on (for 20 ms).
  EXPECT_EQ(late_impact, 0);
  EXPECT_GT(late_micro, 0.05);
  double after_burst = 0;
  for (size_t i = kRate / 40; i < micro.size(); ++i) after_burst += std::abs(micro[i]);
  EXPECT_EQ(after_burst, 0);
}

TEST_F(ExcitationTest, FaustAndHeaderAgreeForEveryContactModel) {
  // The same tolerances as the signal tests' agreement (float coefficients from two compilers).
  for (int kind = kImpact; kind <= kInput; ++kind) {
    const auto r = run("'" + std::string(MESH2DSP_HARNESS_DIR) + "/agree_testbar' instrument 48000 0.5 " +
                       std::to_string(kind));
    double peak = 0, max_diff = 0, early = 0;
    int samples = 0;
    ASSERT_EQ(std::sscanf(r.output.c_str(), "peak %lf max_diff %lf samples %d early_max_diff %lf", &peak, &max_diff,
                          &samples, &early),
              4)
        << r.output;
    RecordProperty("kind" + std::to_string(kind), std::to_string(max_diff / peak));
    EXPECT_GT(peak, 1e-4) << kind;
    EXPECT_LE(early, 2e-3 * peak) << "kind " << kind;
    EXPECT_LE(max_diff, 5e-3 * peak) << "kind " << kind;
  }
}

TEST_F(ExcitationTest, InstrumentWithoutAnyStrikeRendersSilenceNotNaN) {
  auto r = generate(kData / "testbar.modal.json", "--no-model-json --faust t.dsp --excitation all");
  ASSERT_EQ(r.status, 0) << r.output;
  r = run("cd '" + dir.string() + "' && '" + kBin + "' render t.dsp -o quiet.wav --duration 0.1");
  ASSERT_EQ(r.status, 0) << r.output;
  int rate = 0, channels = 0;
  const auto quiet = read_wav(dir / "quiet.wav", rate, channels);
  ASSERT_FALSE(quiet.empty());
  for (float v : quiet) ASSERT_EQ(v, 0.0f);
  // The scrape, chosen by its menu name: sound, all finite.
  r = run("cd '" + dir.string() + "' && '" + kBin +
          "' render t.dsp -o scrape.wav --set excitation=scrape --set speed=0.3 --set force=0.5 --duration 0.3");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto scrape = read_wav(dir / "scrape.wav", rate, channels);
  double peak = 0;
  for (float v : scrape) {
    ASSERT_TRUE(std::isfinite(v));
    peak = std::max(peak, double(std::abs(v)));
  }
  EXPECT_GT(peak, 1e-4);
  // The same by index equals it; an unknown entry name lists the known ones, writes nothing.
  r = run("cd '" + dir.string() + "' && '" + kBin +
          "' render t.dsp -o scrape3.wav --set excitation=3 --set speed=0.3 --set force=0.5 --duration 0.3");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_wav(dir / "scrape3.wav", rate, channels), scrape);
  r = run("cd '" + dir.string() + "' && '" + kBin + "' render t.dsp -o bad.wav --set excitation=scratch --duration 0.1");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("entries: impact"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "bad.wav"));
}

TEST_F(ExcitationTest, ExcitationOptionChoosesTheMenuAndRejectsUnknownNames) {
  auto r = generate(kData / "testbar.modal.json", "--no-model-json --faust default.dsp");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string text = read_text(dir / "default.dsp");
  EXPECT_NE(text.find("menu{ 'impact':0;'hammer':1 }"), std::string::npos);
  EXPECT_EQ(text.find("hslider(\"[9]speed"), std::string::npos);  // no scrape controls when not compiled in
  EXPECT_NE(text.find("hslider(\"[8]size"), std::string::npos);   // the hammer's size
  r = generate(kData / "testbar.modal.json", "--no-model-json --faust roll.dsp --excitation roll,impact");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(read_text(dir / "roll.dsp").find("menu{ 'impact':0;'roll':1 }"), std::string::npos);
  r = run("cd '" + dir.string() + "' && faust roll.dsp -o /dev/null");
  EXPECT_EQ(r.status, 0) << r.output;

  r = generate(kData / "testbar.modal.json", "--no-model-json --faust bad.dsp --excitation impact,scratch");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("unknown contact model 'scratch'"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "bad.dsp"));
  EXPECT_EQ(mesh2dsp::parse_excitations("all").size(), mesh2dsp::excitation_kinds().size());
  EXPECT_THROW(mesh2dsp::parse_excitations(""), std::exception);
}

double largest_jump(const std::vector<float>& y, size_t from) {
  double jump = 0;
  for (size_t i = std::max<size_t>(from, 1); i < y.size(); ++i) jump = std::max(jump, double(std::abs(y[i] - y[i - 1])));
  return jump;
}

TEST_F(ExcitationTest, MovingContactHasEachPointsOwnGainsAtThatPoint) {
  // testbar's triangulation is the one triangle (0, 1, 2); vertex k is (u, v) = (0,0), (1,0), (0,1).
  Settings s;
  s.seconds = 0.4;
  const char* at[3] = {"contact 0 0", "contact 1 0", "contact 0 1"};
  for (int k = 0; k < 3; ++k) {
    const auto contact = render("output", kImpact, s, at[k]);
    const auto point = render("output", kImpact, s, "point " + std::to_string(k));
    double peak = 0, diff = 0;
    // The contact was set and settled before the strike, which enters there; compared once the
    // point render's output gain (smoothed from 0 at its start) has settled too.
    for (size_t i = kRate / 5; i < point.size(); ++i) {
      peak = std::max(peak, double(std::abs(point[i])));
      diff = std::max(diff, double(std::abs(point[i] - contact[i])));
    }
    EXPECT_GT(peak, 1e-3) << k;
    EXPECT_LE(diff, 1e-4 * peak) << "vertex " << k;
  }
}

TEST_F(ExcitationTest, ContactMovingAcrossTheSurfaceDoesNotJump) {
  Settings s;
  const auto sweep = render("output", kImpact, s, "sweep");
  double static_jump = 0;
  for (int k = 0; k < 3; ++k)
    static_jump = std::max(static_jump, largest_jump(render("output", kImpact, s, "point " + std::to_string(k)), kRate / 20));
  const double moving_jump = largest_jump(sweep, kRate / 20);
  RecordProperty("jump_ratio", std::to_string(moving_jump / static_jump));
  // The strike latched its place: the contact moving on re-weights nothing that rings, so the
  // sample-to-sample steps stay those of the ringing itself, with no step where the contact
  // passes a point or changes edge.
  EXPECT_LE(moving_jump, 1.05 * static_jump) << moving_jump << " vs " << static_jump;
  for (float v : sweep) ASSERT_TRUE(std::isfinite(v));
}

TEST_F(ExcitationTest, FaustAndHeaderAgreeForAMovingContact) {
  const auto r = run("'" + std::string(MESH2DSP_HARNESS_DIR) + "/agree_testbar' instrument 48000 0 0 0.3 0.4");
  double peak = 0, max_diff = 0, early = 0;
  int samples = 0;
  ASSERT_EQ(std::sscanf(r.output.c_str(), "peak %lf max_diff %lf samples %d early_max_diff %lf", &peak, &max_diff,
                        &samples, &early),
            4)
      << r.output;
  EXPECT_GT(peak, 0.01);
  EXPECT_LE(max_diff, 5e-3 * peak);
}

TEST(ExcitationTriangulationTest, AnOctahedronsCornersGiveItsEightFacesAlongItsSurface) {
  // An octahedron meshed as eight tetrahedra around its centre; the points at its six corners.
  // Their geodesic Voronoi regions meet at the faces' centres: the dual is the eight faces,
  // oriented outward, every corner in four.
  mesh2dsp::TetMesh mesh;
  mesh.vertices.resize(7, 3);
  mesh.vertices << 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0;
  mesh.surface_faces.resize(8, 3);
  mesh.surface_faces << 0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5;
  mesh.tets.resize(8, 4);
  for (int f = 0; f < 8; ++f) mesh.tets.row(f) << mesh.surface_faces(f, 0), mesh.surface_faces(f, 1), mesh.surface_faces(f, 2), 6;
  std::vector<mesh2dsp::ModalExcitation> points(6);
  for (int i = 0; i < 6; ++i) {
    points[i].vertex = i;
    points[i].position = mesh.vertices.row(i);
    points[i].direction = mesh.vertices.row(i);
  }
  const auto triangles = mesh2dsp::triangulate_excitations(points, mesh);
  EXPECT_EQ(triangles.size(), 8u);
  std::vector<int> uses(6, 0);
  for (const auto& t : triangles) {
    for (int i : t) ++uses[i];
    const Eigen::Vector3d n = (points[t[1]].position - points[t[0]].position).cross(points[t[2]].position - points[t[0]].position);
    EXPECT_GT(n.dot(points[t[0]].position + points[t[1]].position + points[t[2]].position), 0) << "inward";
  }
  for (int u : uses) EXPECT_EQ(u, 4);
  EXPECT_TRUE(mesh2dsp::triangulate_excitations({points[0], points[1]}, mesh).empty());
}

TEST(ExcitationTriangulationTest, ContactTrianglesOfTheBundledObjectsLieOnTheirSurface) {
  // The convex hull of whitened point directions joined a top point to a bottom point in 7 of the
  // plate's 12 triangles (through the metal: a bending mode's phi.n changes sign between the
  // faces). Over the surface, no triangle joins points whose normals point apart.
  const fs::path dir = fs::temp_directory_path() / ("mesh2dsp-triangles-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const char* object : {"plate", "bar", "bowl"}) {
    const fs::path model = dir / (std::string(object) + ".modal.json");
    const auto r = run("'" + kBin + "' -q modes '" + (kSource / "meshes" / (std::string(object) + ".obj")).string() +
                       "' --material steel --modes 2 --element-order 1 --excite auto:24 -o '" + model.string() + "'");
    ASSERT_EQ(r.status, 0) << r.output;
    const auto m = mesh2dsp::read_modal_model(model);
    EXPECT_GE(m.excitation_triangles.size(), 8u) << object;
    int apart = 0;
    for (const auto& t : m.excitation_triangles)
      for (int e = 0; e < 3; ++e)
        apart += m.excitations[t[e]].direction.dot(m.excitations[t[(e + 1) % 3]].direction) < -1e-6;
    EXPECT_EQ(apart, 0) << object << ": a triangle joins points whose normals point apart";
    std::printf("%s: %zu triangles over 24 points\n", object, m.excitation_triangles.size());
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace emit_test
