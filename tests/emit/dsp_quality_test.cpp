// What an audio engineer checks in emitted DSP (issue 11): the same sound at every sample rate,
// exact pitch of low modes, a moving contact that silences a mode on its nodal line, the Faust
// program and the header as one instrument under random events, generated files that cite
// papers and point nowhere else, and a default level a user hears.
#include <algorithm>
#include <cmath>
#include <complex>
#include <map>

#include <fmt/format.h>
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "audio_support.hpp"
#include "modal/modal_model.hpp"

namespace emit_test {
namespace {

const std::string kHarness = MESH2DSP_HARNESS_DIR;
enum Kind { kImpact = 0, kHammer = 1, kMicro = 2, kScrape = 3, kRoll = 4, kInput = 5 };

class DspQualityTest : public ScratchTest {
 protected:
  // The header's output for contact model `kind` at `rate` (excitation_harness "output").
  std::vector<float> output(Kind kind, int rate, double seconds, const std::string& where = "") {
    const fs::path out = dir / "out.f32";
    const auto r = run("'" + kHarness + "/excitation_testbar' output " + std::to_string(kind) + " " + std::to_string(rate) +
                       " " + std::to_string(seconds) + " 0.7 0.3 1.0 0.1 '" + out.string() + "' " + where);
    EXPECT_EQ(r.status, 0) << r.output;
    return read_f32(out);
  }
};

double rms(const std::vector<float>& x, size_t from) {
  double sum = 0;
  for (size_t i = from; i < x.size(); ++i) sum += double(x[i]) * x[i];
  return std::sqrt(sum / std::max<size_t>(x.size() - from, 1));
}

// The continuous-time Fourier integral of x at hz, with a Hann window over [from, to) samples:
// the same number at any rate for the same continuous signal.
std::complex<double> fourier_at(const std::vector<float>& x, int rate, double hz, size_t from, size_t to) {
  std::complex<double> sum = 0;
  const size_t n = to - from;
  for (size_t i = from; i < to; ++i) {
    const double w = 0.5 - 0.5 * std::cos(2 * M_PI * (i - from) / n);
    sum += w * double(x[i]) * std::polar(1.0, -2 * M_PI * hz * double(i) / rate);
  }
  return sum / double(rate);
}

const int kRates[] = {44100, 48000, 96000, 192000};

TEST_F(DspQualityTest, EveryContactModelAndTheInputSoundTheSameAtEveryRate) {
  // The deterministic ones (impact, micro-collisions, the live input fed five sines) by the RMS
  // of the struck model's output over 1 s.
  for (const Kind kind : {kImpact, kMicro, kInput}) {
    std::vector<double> db;
    for (int rate : kRates) {
      const auto y = output(kind, rate, 1.0);
      ASSERT_FALSE(y.empty());
      db.push_back(20 * std::log10(rms(y, kind == kInput ? rate / 5 : 0)));
    }
    const auto [lo, hi] = std::minmax_element(db.begin(), db.end());
    RecordProperty("kind" + std::to_string(kind) + "_spread_db", std::to_string(*hi - *lo));
    EXPECT_LE(*hi - *lo, 0.5) << "contact model " << kind << ": RMS " << db[0] << " " << db[1] << " " << db[2]
                              << " " << db[3] << " dB at 44.1/48/96/192 kHz";
  }
  // The noise models (repeated hammer strikes, scrape, roll) by their force's power spectral
  // density (N^2/Hz) in octave bands from 125 Hz to 4 kHz, Welch over 8 s: one realisation of
  // the output's RMS would vary by a dB or more with the noise alone, while the output is this
  // force through the modes, whose response does not depend on the rate (the deterministic
  // cases above and the strike spectrum below). Above 4 kHz the one-pole low-passes of the hammer
  // and the ball (matched z, cut-offs up to 10 kHz) deviate from their analog shape by up to 2 dB
  // at 44.1 kHz in the 8-16 kHz octave: a known limit, not asserted here.
  for (const Kind kind : {kHammer, kScrape, kRoll}) {
    std::vector<std::vector<double>> bands;
    for (int rate : kRates) {
      const fs::path out = dir / "force.f32";
      const auto r = run("'" + kHarness + "/excitation_testbar' force " + std::to_string(kind) + " " + std::to_string(rate) +
                         " 8 0.7 0.3 1.0 0.1 '" + out.string() + "' repeat");
      ASSERT_EQ(r.status, 0) << r.output;
      auto x = read_f32(out);
      x.erase(x.begin(), x.begin() + rate / 2);
      const size_t frame = static_cast<size_t>(rate / 12);  // 12 Hz bins at every rate
      const auto power = welch_power(x, frame);
      // |DFT|^2 of a Hann frame of a density S: S rate sum(w^2) = S rate 3/8 frame.
      const double to_density = 1.0 / (double(rate) * 0.375 * frame);
      std::vector<double> db;
      for (double lo = 125; lo < 4000; lo *= 2) {
        double sum = 0;
        int bins = 0;
        for (size_t k = static_cast<size_t>(lo * frame / rate); k < static_cast<size_t>(2 * lo * frame / rate); ++k, ++bins)
          sum += power[k] * to_density;
        db.push_back(10 * std::log10(sum / bins));
      }
      bands.push_back(db);
    }
    for (size_t b = 0; b < bands[0].size(); ++b)
      for (size_t r = 1; r < bands.size(); ++r)
        EXPECT_NEAR(bands[r][b], bands[0][b], 0.5)
            << "contact model " << kind << ", octave from " << 125 * (1 << b) << " Hz, at " << kRates[r] << " Hz vs 44.1 kHz";
  }
}

TEST_F(DspQualityTest, AStrikesSpectrumBelow16kHzIsTheSameAtEveryRate) {
  const auto model = mesh2dsp::read_modal_model(kData / "testbar.modal.json");
  std::vector<std::vector<double>> levels;
  for (int rate : kRates) {
    const auto y = output(kImpact, rate, 1.0);
    std::vector<double> db;
    for (const auto& m : model.modes)
      if (m.frequency_hz < 16000) db.push_back(20 * std::log10(std::abs(fourier_at(y, rate, m.frequency_hz, 0, y.size()))));
    levels.push_back(db);
  }
  for (size_t n = 0; n < levels[0].size(); ++n)
    for (size_t r = 1; r < levels.size(); ++r)
      EXPECT_NEAR(levels[r][n], levels[0][n], 0.5) << "mode " << n << " at " << kRates[r] << " Hz vs 44.1 kHz";
}

TEST_F(DspQualityTest, LowModesRingWithinATenthOfACentAtAnyRate) {
  // testbar's fundamental retuned to 20, 40 and 100 Hz; its first mode's frequency measured from
  // the phase advance of the rendered impulse response between two Hann windows 2 s apart.
  const auto model = mesh2dsp::read_modal_model(kData / "testbar.modal.json");
  const double sigma = std::log(1000.0) / model.modes[0].t60_s;
  for (int rate : {48000, 192000})
    for (double hz : {20.0, 40.0, 100.0}) {
      const fs::path out = dir / "ir.f32";
      const auto r = run("'" + kHarness + "/render_testbar' " + std::to_string(rate) + " 3.0 " + std::to_string(hz) +
                         " impulse -1 '" + out.string() + "'");
      ASSERT_EQ(r.status, 0) << r.output;
      const auto y = read_f32(out);
      // The mode rings at its damped frequency sqrt(omega^2 - sigma^2) / 2 pi.
      const double ring_hz = std::sqrt(std::pow(2 * M_PI * hz, 2) - sigma * sigma) / (2 * M_PI);
      const size_t window = rate / 2, a = rate / 4, b = a + 2 * rate;
      const auto za = fourier_at(y, rate, ring_hz, a, a + window), zb = fourier_at(y, rate, ring_hz, b, b + window);
      const double offset_hz = std::arg(zb / za) / (2 * M_PI * 2.0);
      const double cents = 1200 * std::log2((ring_hz + offset_hz) / ring_hz);
      RecordProperty("cents_" + std::to_string(rate) + "_" + std::to_string(int(hz)), std::to_string(cents));
      EXPECT_LE(std::abs(cents), 0.1) << hz << " Hz at " << rate << " Hz: " << cents << " cents";
    }
}

TEST_F(DspQualityTest, AContactOnANodalLineDoesNotExciteThatMode) {
  // testbar's first mode (440 Hz) has gains 0.004 at point 1 and -0.009 at point 2: its nodal
  // line lies between them, at the glide w = g1 / (g1 - g2) from point 1. A scrape there (its
  // force entering with the shape interpolated at the contact) leaves that mode silent: its level
  // at 440 Hz, relative to the same scrape at point 1, is the square of the interpolated shape
  // (contact microphone), 0 but for the other modes' skirts.
  const int rate = 48000;
  const auto model = mesh2dsp::read_modal_model(kData / "testbar.modal.json");
  const double g1 = model.excitations[1].gains[0], g2 = model.excitations[2].gains[0];
  ASSERT_LT(g1 * g2, 0) << "no nodal line between points 1 and 2";
  const double node = 1 + g1 / (g1 - g2);
  const auto on_node = output(kScrape, rate, 1.5, "at " + std::to_string(node));
  const auto at_point = output(kScrape, rate, 1.5, "point 1");
  const auto off_node = output(kScrape, rate, 1.5, "at " + std::to_string(node - 0.1));
  ASSERT_EQ(on_node.size(), at_point.size());
  const double f = model.modes[0].frequency_hz;
  auto level = [&](const std::vector<float>& y) { return std::abs(fourier_at(y, rate, f, rate / 5, y.size())); };
  const double depth_db = 20 * std::log10(level(on_node) / level(at_point));
  const double off_db = 20 * std::log10(level(off_node) / level(at_point));
  RecordProperty("node_depth_db", std::to_string(depth_db));
  std::printf("mode 0 on its nodal line %.1f dB, 0.1 away %.1f dB (relative to point 1)\n", depth_db, off_db);
  EXPECT_LT(depth_db, -30) << "the contact on the nodal line still excites the mode";
  EXPECT_GT(off_db, depth_db + 20) << "the mode is as quiet off the nodal line";
}

TEST_F(DspQualityTest, FaustAndHeaderAreOneInstrumentUnderRandomEvents) {
  // Strikes, releases, held and smoothed parameter changes, contact-model switches, moving
  // contacts and live input at random sample offsets: the Faust program, through Faust's C++
  // backend and through libfaust's LLVM JIT (what render and play run), and the header agree
  // over the whole render, for many seeds and rates: within 1e-4 of the peak.
  std::vector<std::string> programs = {"differ_testbar", "differ_testbar_stereo"};
#ifdef MESH2DSP_TESTS_HAVE_JIT  // built with the runtime (always in CI)
  programs.insert(programs.end(), {"differ_jit_testbar", "differ_jit_testbar_stereo"});
#endif
  int runs = 0;
  double worst = 0, worst_jit = 0;
  for (const std::string& program : programs)
    for (int seed = 1; seed <= 12; ++seed) {
      const int rate = kRates[seed % 4];
      const auto r = run("'" + kHarness + "/" + program + "' " + std::to_string(seed) + " " + std::to_string(rate) + " 1.0");
      double peak = 0, diff = 0;
      int events = 0;
      ASSERT_EQ(std::sscanf(r.output.c_str(), "peak %lf max_diff %lf events %d", &peak, &diff, &events), 3) << r.output;
      EXPECT_GT(peak, 1e-3) << program << " seed " << seed;
      EXPECT_GT(events, 5);
      // The JIT compiles for a CPU level without FMA (runtime/jit/faust_compiler.cpp): with the host's fused
      // multiply-adds its scrape and roll departed up to 1.6e-3 of the peak, and on the baseline
      // x86-64 its square roots (an estimate under libfaust's unsafe FP math) moved the modes'
      // pitch by an ulp, 2.7e-4 of the peak over a second. Now it agrees like the C++ backend.
      const bool jit = program.find("jit") != std::string::npos;
      EXPECT_LE(diff, 1e-4 * peak) << program << " seed " << seed << " at " << rate << " Hz";
      (jit ? worst_jit : worst) = std::max(jit ? worst_jit : worst, diff / peak);
      ++runs;
    }
  RecordProperty("worst_relative_difference", std::to_string(worst));
  RecordProperty("worst_relative_difference_jit", std::to_string(worst_jit));
  EXPECT_EQ(runs, 12 * static_cast<int>(programs.size()));
}

// Every file mesh2dsp emits, for a model with and one without listeners.
std::vector<fs::path> emitted_files(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() != ".json") files.push_back(e.path());
  return files;
}

TEST_F(DspQualityTest, GeneratedFilesCitePapersAndPointNowhereElse) {
  for (const char* model : {"testbar", "testbar_stereo"}) {
    const auto r = generate(kData / (std::string(model) + ".modal.json"),
                            std::string("--no-model-json --excitation all --faust ") + model + ".dsp --faust-effect " + model +
                                "_fx.dsp --faust-lib " + model + ".lib --cpp " + model + ".hpp --c " + model + ".h --sy " +
                                model + ".sy");
    ASSERT_EQ(r.status, 0) << r.output;
  }
  // The same for the checked-in examples.
  auto files = emitted_files(dir);
  for (const auto& f : emitted_files(kSource / "generated")) files.push_back(f);
  ASSERT_GE(files.size(), 10u);
  const std::regex forbidden(R"(seed 0\d\d|DESIGN\.md|\.\./shared|\.mustache|templates/)", std::regex::icase);
  for (const auto& f : files) {
    const std::string text = read_text(f);
    std::smatch found;
    EXPECT_FALSE(std::regex_search(text, found, forbidden)) << f << " says \"" << found.str() << "\"";
  }
  // The papers are cited by author, title and year.
  const std::string dsp = read_text(dir / "testbar.dsp");
  for (const char* citation : {"van den Doel & Pai, \"Modal Synthesis for Vibrating Objects\" (2003)",
                               "\"FoleyAutomatic: Physically-based Sound Effects for Interactive Simulation and Animation\", 2001",
                               "Hiner, \"Physical Audio Modeling of Passive Rigid Bodies\", 2024"})
    EXPECT_NE(dsp.find(citation), std::string::npos) << citation;
}

TEST_F(DspQualityTest, ADefaultStrikeOfEveryBundledModelPeaksBetweenMinus12AndMinus3Dbfs) {
  int checked = 0;
  for (const auto& e : fs::directory_iterator(kSource / "generated")) {
    const std::string name = e.path().filename().string();
    const fs::path dsp = e.path() / (name + ".dsp");
    if (!fs::exists(dsp) || name.rfind("testbar", 0) == 0) continue;  // the bundled meshes only
    auto peak_dbfs = [&](const std::string& sets) {
      const auto r = run("'" + kBin + "' render '" + dsp.string() + "' -o '" + (dir / "s.wav").string() +
                         "' --duration 0.6 --trigger gate@0.05 " + sets);
      EXPECT_EQ(r.status, 0) << r.output;
      int rate = 0, channels = 0;
      double peak = 0;
      for (float v : read_wav(dir / "s.wav", rate, channels)) peak = std::max(peak, double(std::abs(v)));
      return 20 * std::log10(peak);
    };
    const double level = peak_dbfs("");
    RecordProperty(name + "_dbfs", std::to_string(level));
    EXPECT_GE(level, -12) << name;
    EXPECT_LE(level, -3) << name;
    const double hard = peak_dbfs("--set hardness=1");
    EXPECT_LT(hard, 0) << name << " clips at hardness 1";
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

}  // namespace
}  // namespace emit_test

namespace emit_test {
namespace {

TEST_F(DspQualityTest, MicroCollisionTrainsSitAtTheirModesNotAtAWholeSamplePeriod) {
  // testbar's micro-collision trains run at its three strongest modes at point 0: 440, 1130 and
  // 2210 Hz. At 48 kHz a whole-sample period (42 samples) would put 1130 Hz at 1142.9 Hz
  // (+19.6 cents). The trains alone (micro minus impact) have their spectral peak at the mode,
  // within 1 cent. (2210 Hz is not measured: the 1130 Hz train's second harmonic, 50 Hz away
  // in a 30 ms signal, pulls its peak.)
  for (int rate : {48000, 96000}) {
    auto force = [&](Kind kind) {
      const fs::path out = dir / "force.f32";
      const auto r = run("'" + kHarness + "/excitation_testbar' force " + std::to_string(kind) + " " + std::to_string(rate) +
                         " 0.03 1.0 0.3 1.0 0.1 '" + out.string() + "'");
      EXPECT_EQ(r.status, 0) << r.output;
      return read_f32(out);
    };
    const auto micro = force(kMicro), impact = force(kImpact);
    ASSERT_EQ(micro.size(), impact.size());
    std::vector<float> trains(micro.size());
    for (size_t i = 0; i < micro.size(); ++i) trains[i] = micro[i] - impact[i];
    for (double hz : {1130.0}) {
      double best = 0, best_hz = 0;
      for (double f = hz * 0.97; f <= hz * 1.03; f += 0.25) {
        std::complex<double> sum = 0;
        for (size_t i = 0; i < trains.size(); ++i) sum += double(trains[i]) * std::polar(1.0, -2 * M_PI * f * i / rate);
        if (std::abs(sum) > best) best = std::abs(sum), best_hz = f;
      }
      const double cents = 1200 * std::log2(best_hz / hz);
      RecordProperty("train_" + std::to_string(int(hz)) + "_" + std::to_string(rate), std::to_string(cents));
      EXPECT_LE(std::abs(cents), 1) << hz << " Hz train at " << rate << " Hz peaks at " << best_hz << " Hz";
    }
  }
}

}  // namespace
}  // namespace emit_test

namespace emit_test {
namespace {

TEST_F(DspQualityTest, StereoListenersKeepTheirInterauralDelay) {
  // testbar_stereo's listeners are 0.4577 m and 0.5385 m away: the second hears 0.1123 ms later.
  // Each mode's phase between the two outputs is then its pickup gains' sign minus omega * delay;
  // the delay measured from four modes of the rendered impulse response is within 2 us of it.
  const auto model = mesh2dsp::read_modal_model(kData / "testbar_stereo.modal.json");
  const double delay_s = model.listeners[1].delay_s - model.listeners[0].delay_s;
  ASSERT_NEAR(delay_s, 0.1123e-3, 1e-9);
  for (int rate : {44100, 96000}) {
    std::vector<float> y[2];
    for (int l = 0; l < 2; ++l) {
      const fs::path out = dir / "ir.f32";
      const auto r = run("'" + kHarness + "/render_testbar_stereo' " + std::to_string(rate) + " 0.7 0 impulse -1 '" +
                         out.string() + "' " + std::to_string(l));
      ASSERT_EQ(r.status, 0) << r.output;
      y[l] = read_f32(out);
    }
    for (int n = 0; n < 4; ++n) {
      const double hz = model.modes[n].frequency_hz;
      const auto z0 = fourier_at(y[0], rate, hz, rate / 10, rate * 6 / 10);
      const auto z1 = fourier_at(y[1], rate, hz, rate / 10, rate * 6 / 10);
      const double sign = model.listeners[0].gains[n] * model.listeners[1].gains[n] < 0 ? M_PI : 0;
      const double phase = std::remainder(std::arg(z1 / z0) - sign, 2 * M_PI);
      const double found_s = -phase / (2 * M_PI * hz);
      RecordProperty("delay_us_" + std::to_string(rate) + "_" + std::to_string(n), std::to_string(found_s * 1e6));
      EXPECT_NEAR(found_s, delay_s, 2e-6) << "mode " << hz << " Hz at " << rate << " Hz";
    }
  }
}

}  // namespace
}  // namespace emit_test

namespace emit_test {
namespace {

// jass.generators.ModalModel.readModes, line by line (van den Doel's JASS): lines starting with
// "<!" are skipped at the start; then a label line and a value line for nactive_freq, n_freq,
// n_points, freq_scale, d_scale, a_scale; a label and n_freq frequencies, one per line; a label
// and n_freq dampings; a label and n_points * n_freq amplitudes, point-major; END. Integers go
// through Integer.parseInt and values through Float: a line must be one number and nothing else.
struct SyModel {
  int active = 0, modes = 0, points = 0;
  double fscale = 0, dscale = 0, ascale = 0;
  std::vector<double> f, d, a;
};

SyModel parse_sy(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  size_t i = 0;
  auto next = [&]() -> const std::string& {
    if (i >= lines.size()) throw std::runtime_error("the file ends early, after line " + std::to_string(i));
    return lines[i++];
  };
  auto label = [&](const std::string& expected) {
    const std::string& s = next();
    if (s != expected) throw std::runtime_error("line " + std::to_string(i) + ": '" + s + "', expected '" + expected + "'");
  };
  auto integer = [&]() {
    const std::string& s = next();
    if (!std::regex_match(s, std::regex(R"([+-]?\d+)"))) throw std::runtime_error("line " + std::to_string(i) + ": not an integer: " + s);
    return std::stoi(s);
  };
  auto number = [&]() {
    const std::string& s = next();  // Java's Float(String): a decimal or scientific number
    if (!std::regex_match(s, std::regex(R"([+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)")))
      throw std::runtime_error("line " + std::to_string(i) + ": not a number: " + s);
    return std::stod(s);
  };
  while (i < lines.size() && lines[i].size() >= 2 && lines[i].compare(0, 2, "<!") == 0) ++i;
  SyModel m;
  label("nactive_freq:");
  m.active = integer();
  label("n_freq:");
  m.modes = integer();
  label("n_points:");
  m.points = integer();
  label("freq_scale:");
  m.fscale = number();
  label("d_scale:");
  m.dscale = number();
  label("a_scale:");
  m.ascale = number();
  label("frequencies:");
  for (int n = 0; n < m.modes; ++n) m.f.push_back(number());
  label("dampings:");
  for (int n = 0; n < m.modes; ++n) m.d.push_back(number());
  label("amplitudes[point][freq]:");
  for (int k = 0; k < m.points * m.modes; ++k) m.a.push_back(number());
  label("END");
  if (i != lines.size()) throw std::runtime_error("text after END");
  return m;
}

TEST_F(DspQualityTest, SyFileIsWhatJassReads) {
  const auto r = generate(kData / "testbar.modal.json", "--no-model-json --sy t.sy");
  ASSERT_EQ(r.status, 0) << r.output;
  SyModel sy;
  ASSERT_NO_THROW(sy = parse_sy(read_text(dir / "t.sy"))) << read_text(dir / "t.sy");
  const auto model = mesh2dsp::read_modal_model(kData / "testbar.modal.json");
  const int modes = static_cast<int>(model.modes.size()), points = static_cast<int>(model.excitations.size());
  EXPECT_EQ(sy.active, modes);
  EXPECT_EQ(sy.modes, modes);
  EXPECT_EQ(sy.points, points);
  EXPECT_EQ(sy.fscale, 1);
  EXPECT_EQ(sy.dscale, 1);
  EXPECT_EQ(sy.ascale, 1);
  // JASS's mode k rings as a[p][k] sin(2 pi f t) exp(-d t): the model's displacement, whose
  // derivative is the contact microphone's velocity response e^2 exp(-sigma t)(cos - sigma/w sin).
  // So a[p][k] omega_d / e_pk^2 is one constant for every point and mode.
  double ratio = 0;
  for (int n = 0; n < modes; ++n) {
    EXPECT_NEAR(sy.f[n], model.modes[n].frequency_hz, 1e-9 * model.modes[n].frequency_hz);
    const double sigma = std::log(1000.0) / model.modes[n].t60_s;
    EXPECT_NEAR(sy.d[n], sigma, 1e-9 * sigma);
    const double wd = std::sqrt(std::pow(2 * M_PI * sy.f[n], 2) - sigma * sigma);
    for (int k = 0; k < points; ++k) {
      const double e = model.excitations[k].gains[n];
      const double found = sy.a[k * modes + n] * wd / (e * e);
      if (ratio == 0) ratio = found;
      EXPECT_NEAR(found / ratio, 1.0, 1e-9) << "point " << k << " mode " << n;
    }
  }
  // The old format (a title line, "nf (number of modes)") is what JASS cannot read.
  EXPECT_THROW(parse_sy("bar: 2 modes\nnf (number of modes)\n2\n"), std::runtime_error);
}

}  // namespace
}  // namespace emit_test

namespace emit_test {
namespace {

// A 0.2 x 0.04 x 0.025 m box, its faces split into a 10 x 4 x 3 grid of quads, each quad into
// two triangles along one diagonal or the other (`flip` alternates the pattern): the same box,
// two triangulations.
std::string box_obj(int flip) {
  const double dims[3] = {0.2, 0.04, 0.025};
  const int cells[3] = {10, 4, 3};
  std::vector<Eigen::Vector3d> vertices;
  std::map<std::array<long, 3>, int> index;
  auto vertex = [&](const Eigen::Vector3d& p) {
    const std::array<long, 3> key{std::lround(p.x() * 1e9), std::lround(p.y() * 1e9), std::lround(p.z() * 1e9)};
    const auto [it, added] = index.emplace(key, static_cast<int>(vertices.size()));
    if (added) vertices.push_back(p);
    return it->second;
  };
  std::vector<std::array<int, 3>> faces;
  for (int axis = 0; axis < 3; ++axis)
    for (int side = 0; side < 2; ++side) {
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;
      auto at = [&](int i, int j) {
        Eigen::Vector3d p;
        p[axis] = dims[axis] * (side - 0.5);
        p[u] = dims[u] * (double(i) / cells[u] - 0.5);
        p[v] = dims[v] * (double(j) / cells[v] - 0.5);
        return vertex(p);
      };
      for (int i = 0; i < cells[u]; ++i)
        for (int j = 0; j < cells[v]; ++j) {
          const int a = at(i, j), b = at(i + 1, j), c = at(i + 1, j + 1), d = at(i, j + 1);
          const bool first = (flip + i + j) % 2 == 0;
          for (auto t : first ? std::vector<std::array<int, 3>>{{a, b, c}, {a, c, d}}
                              : std::vector<std::array<int, 3>>{{a, b, d}, {b, c, d}}) {
            const Eigen::Vector3d n = (vertices[t[1]] - vertices[t[0]]).cross(vertices[t[2]] - vertices[t[0]]);
            if (n.dot(vertices[t[0]] + vertices[t[1]] + vertices[t[2]]) < 0) std::swap(t[1], t[2]);  // outward
            faces.push_back(t);
          }
        }
    }
  std::string obj;
  for (const auto& p : vertices) obj += fmt::format("v {} {} {}\n", p.x(), p.y(), p.z());
  for (const auto& f : faces) obj += fmt::format("f {} {} {}\n", f[0] + 1, f[1] + 1, f[2] + 1);
  return obj;
}

TEST_F(DspQualityTest, TwoTriangulationsOfABoxGiveTheSameStrikeDirectionsAndGains) {
  // auto:8 prefers face interiors (smooth vertices) and strikes along angle-weighted normals, so
  // neither the points nor their directions depend on how the faces are triangulated, and the
  // gains differ only by the FEM meshes' discretisation (within 2 % of each mode's largest).
  mesh2dsp::ModalModel models[2];
  for (int flip = 0; flip < 2; ++flip) {
    const fs::path obj = dir / fmt::format("box{}.obj", flip), json = dir / fmt::format("box{}.modal.json", flip);
    write_text(obj, box_obj(flip));
    const auto r = run("'" + kBin + "' -q modes '" + obj.string() + "' --material steel --modes 6 --excite auto:8 -o '" +
                       json.string() + "'");
    ASSERT_EQ(r.status, 0) << r.output;
    models[flip] = mesh2dsp::read_modal_model(json);
  }
  const auto& a = models[0].excitations;
  const auto& b = models[1].excitations;
  ASSERT_EQ(a.size(), 8u);
  ASSERT_EQ(b.size(), a.size());
  ASSERT_EQ(models[0].modes.size(), models[1].modes.size());
  int on_faces = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_LT((a[k].position - b[k].position).norm(), 1e-9) << "point " << k;
    EXPECT_LT((a[k].direction - b[k].direction).norm(), 0.02) << "point " << k;
    // A face normal: one axis.
    on_faces += a[k].direction.cwiseAbs().maxCoeff() > 0.999;
  }
  EXPECT_EQ(on_faces, 8) << "automatic points on edges or corners";
  for (size_t n = 0; n < models[0].modes.size(); ++n) {
    double largest = 0, dot = 0;
    for (size_t k = 0; k < a.size(); ++k) largest = std::max(largest, std::abs(a[k].gains[n])), dot += a[k].gains[n] * b[k].gains[n];
    const double sign = dot < 0 ? -1 : 1;  // an eigenvector's sign is arbitrary
    for (size_t k = 0; k < a.size(); ++k)
      EXPECT_NEAR(b[k].gains[n] * sign, a[k].gains[n], 0.02 * largest) << "mode " << n << " point " << k;
  }
}

}  // namespace
}  // namespace emit_test
