// What the emitted filters do to a signal: the Faust program and the header agree sample by
// sample; an impulse response has its peaks at the model's frequencies and its decays at the
// model's T60s; modes above Nyquist are off; freq transposes; the glide does not click.
#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <complex>
#include <numeric>
#include <vector>

#include "emit/emit_model.hpp"
#include "modal/modal_model.hpp"
#include "audio_support.hpp"

namespace emit_test {
namespace {

// Built once for the whole suite: the emitted files and the harness programs.
class SignalTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir = fs::temp_directory_path() / ("mesh2dsp-emit-signal-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    model = mesh2dsp::read_modal_model(kData / "testbar.modal.json");
  }
  static void TearDownTestSuite() { fs::remove_all(dir); }

  struct Agreement {
    double peak = 0, max_diff = 0, early_max_diff = 0;
  };
  static Agreement agree(const std::string& program, const std::string& args) {
    const auto r = run("'" + std::string(MESH2DSP_HARNESS_DIR) + "/" + program + "' " + args);
    Agreement a;
    int samples = 0;
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(std::sscanf(r.output.c_str(), "peak %lf max_diff %lf samples %d early_max_diff %lf", &a.peak,
                          &a.max_diff, &samples, &a.early_max_diff),
              4)
        << r.output;
    return a;
  }
  static std::vector<float> render(int rate, double seconds, double fundamental_hz, const std::string& kind,
                                   double glide_at_s = -1) {
    const fs::path out = dir / "render.f32";
    const auto r = run("'" + std::string(MESH2DSP_HARNESS_DIR) + "/render_testbar' " + std::to_string(rate) + " " + std::to_string(seconds) +
                       " " + std::to_string(fundamental_hz) + " " + kind + " " + std::to_string(glide_at_s) + " " +
                       out.string());
    EXPECT_EQ(r.status, 0) << r.output;
    return read_f32(out);
  }

  static inline fs::path dir;
  static inline mesh2dsp::ModalModel model;
};

// Float coefficients computed by two compilers from differently ordered expressions differ by
// about an ulp; a pole angle off by d(theta) drifts the phase by m d(theta) after m samples. So
// the bound is tight at first (50 ms) and looser over 2 s: both far below audibility (-60 dB).
constexpr double kEarlyTolerance = 2e-3;  // of the peak, first 50 ms
constexpr double kTotalTolerance = 5e-3;  // of the peak, 2 s

TEST_F(SignalTest, FaustInstrumentAndHeaderAgreeSampleBySample) {
  for (const char* args : {"instrument 48000 0", "instrument 48000 1.5", "instrument 44100 2"}) {
    const Agreement a = agree("agree_testbar", args);
    EXPECT_GT(a.peak, 0.01) << args;
    EXPECT_LE(a.early_max_diff, kEarlyTolerance * a.peak) << args;
    EXPECT_LE(a.max_diff, kTotalTolerance * a.peak) << args;
  }
}

TEST_F(SignalTest, FaustEffectAndHeaderAgreeSampleBySample) {
  for (const char* args : {"effect 48000 0", "effect 96000 0.3", "effect 22050 1"}) {
    const Agreement a = agree("agree_testbar_effect", args);
    EXPECT_GT(a.peak, 0.01) << args;
    EXPECT_LE(a.early_max_diff, kEarlyTolerance * a.peak) << args;
    EXPECT_LE(a.max_diff, kTotalTolerance * a.peak) << args;
  }
}

TEST_F(SignalTest, ListenerOutputsAgreeToo) {
  for (const char* program : {"agree_testbar_stereo instrument 48000 0.5", "agree_testbar_stereo_effect effect 48000 1"}) {
    const std::string p = program;
    const Agreement a = agree(p.substr(0, p.find(' ')), p.substr(p.find(' ') + 1));
    EXPECT_GT(a.peak, 0.01) << program;
    EXPECT_LE(a.max_diff, kTotalTolerance * a.peak) << program;
  }
}

TEST_F(SignalTest, ImpulseResponsePeaksSitAtTheModelFrequencies) {
  const int rate = 48000;
  const auto ir = render(rate, 2.0, 0, "impulse");
  const size_t size = 1 << 18;
  const auto mag = spectrum(ir, size);
  for (const auto& m : model.modes) {
    const double found = peak_near(mag, double(rate) / size, m.frequency_hz);
    EXPECT_NEAR(found / m.frequency_hz, 1.0, 0.005) << m.frequency_hz << " Hz found at " << found;
  }
}

TEST_F(SignalTest, FreqTransposesEveryPeakByTheIntendedRatio) {
  const int rate = 48000;
  const double ratio = 1.5;
  const auto ir = render(rate, 2.0, model.modes[0].frequency_hz * ratio, "impulse");
  const size_t size = 1 << 18;
  const auto mag = spectrum(ir, size);
  int checked = 0;
  for (const auto& m : model.modes) {
    const double target = m.frequency_hz * ratio;
    if (target >= 0.98 * rate / 2) continue;  // switched off (tested below)
    const double found = peak_near(mag, double(rate) / size, target);
    EXPECT_NEAR(found / target, 1.0, 0.005) << target << " Hz found at " << found;
    ++checked;
  }
  EXPECT_EQ(checked, 7);
}

TEST_F(SignalTest, ModesAboveNyquistAreAbsentAt22050Hz) {
  const int rate = 22050;
  const auto ir = render(rate, 2.0, 0, "impulse");
  const size_t size = 1 << 17;
  const double bin_hz = double(rate) / size;
  const auto mag = spectrum(ir, size);
  const auto gains = mesh2dsp::make_emit_model(model);
  for (const auto& m : model.modes) {
    if (m.frequency_hz < rate / 2.0) {
      // Present: a clear peak where it belongs.
      EXPECT_NEAR(peak_near(mag, bin_hz, m.frequency_hz) / m.frequency_hz, 1.0, 0.005);
      continue;
    }
    // Absent: an aliased mode would ring at rate - f with about the height of its windowed
    // decaying sinusoid, 0.5 g sum(w[m] exp(-sigma m / rate)). There only the skirts of the
    // modes that are present remain, a few per cent of that at most.
    const double alias = rate - m.frequency_hz;
    const double sigma = m.damping_ratio * 2 * M_PI * m.frequency_hz;
    double expected = 0;
    for (size_t i = 0; i < ir.size(); ++i)
      expected += (0.5 - 0.5 * std::cos(2 * M_PI * i / ir.size())) * std::exp(-sigma * i / rate);
    expected *= 0.5 * std::abs(gains.gain(0, 0, &m - model.modes.data()));
    const size_t lo = static_cast<size_t>((alias - 5) / bin_hz), hi = static_cast<size_t>((alias + 5) / bin_hz);
    const double found = *std::max_element(mag.begin() + lo, mag.begin() + hi + 1);
    EXPECT_LT(found, 0.1 * expected) << "alias of " << m.frequency_hz << " Hz at " << alias << " Hz";
  }
}

TEST_F(SignalTest, EachModeDecaysAtItsT60) {
  const int rate = 48000;
  const auto ir = render(rate, 3.0, 0, "impulse");
  const int frame = 2048, hop = 256;
  for (const auto& m : model.modes) {
    // Level of this mode over time: one Hann-windowed DFT bin per frame, in dB.
    std::vector<double> t, db;
    const std::complex<double> step = std::polar(1.0, -2 * M_PI * m.frequency_hz / rate);
    for (size_t start = 0; start + frame < ir.size(); start += hop) {
      std::complex<double> sum = 0, w = 1;
      for (int i = 0; i < frame; ++i, w *= step)
        sum += w * double(ir[start + i]) * (0.5 - 0.5 * std::cos(2 * M_PI * i / frame));
      t.push_back((start + frame / 2.0) / rate);
      db.push_back(20 * std::log10(std::abs(sum) + 1e-30));
    }
    // Fit from 60 ms (the gain smoother has settled) down 40 dB.
    const size_t first = std::find_if(t.begin(), t.end(), [](double s) { return s >= 0.06; }) - t.begin();
    size_t last = first;
    while (last + 1 < db.size() && db[last + 1] > db[first] - 40) ++last;
    ASSERT_GT(last, first + 4) << m.frequency_hz;
    double st = 0, sd = 0, stt = 0, std_ = 0;
    const double n = last - first + 1;
    for (size_t i = first; i <= last; ++i) st += t[i], sd += db[i], stt += t[i] * t[i], std_ += t[i] * db[i];
    const double slope_db_s = (n * std_ - st * sd) / (n * stt - st * st);
    const double t60 = -60 / slope_db_s;
    EXPECT_NEAR(t60 / m.t60_s, 1.0, 0.10) << m.frequency_hz << " Hz: T60 " << t60 << " s, model " << m.t60_s;
  }
}

TEST_F(SignalTest, MovingTheContinuousPositionDoesNotClick) {
  const int rate = 48000;
  const double at = 0.3;
  const auto still = render(rate, 0.5, 0, "strike");
  const auto moved = render(rate, 0.5, 0, "strike", at);
  const size_t step = static_cast<size_t>(at * rate), window = rate / 50;  // 20 ms
  auto largest_jump = [](const std::vector<float>& y, size_t from, size_t to) {
    double jump = 0;
    for (size_t i = from; i < to; ++i) jump = std::max(jump, double(std::abs(y[i] - y[i - 1])));
    return jump;
  };
  const double before = largest_jump(moved, step - window, step);
  const double across = largest_jump(moved, step, step + window);
  // Sample-to-sample jumps stay those of the ringing itself.
  EXPECT_LE(across, 1.2 * before) << "before " << before << " across " << across;
  // The strike's gains were latched at its onset: the move re-weights none of its ringing modes
  // (it changes where later forces enter), so the output is the unmoved strike's.
  double diff = 0, peak = 0;
  for (size_t i = 0; i < still.size(); ++i) {
    diff = std::max(diff, double(std::abs(still[i] - moved[i])));
    peak = std::max(peak, double(std::abs(still[i])));
  }
  EXPECT_GT(peak, 1e-3);
  EXPECT_LE(diff, 1e-6 * peak) << "the ringing strike was re-weighted by the move";
}

}  // namespace
}  // namespace emit_test
