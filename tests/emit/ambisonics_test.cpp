// generate --ambisonics: the emitted channel gains decoded at directions against the
// boundary-element pressure there, the Faust program and the C++ header built by the real
// toolchains, the yaw control turning the rendered field, and the errors.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <complex>
#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include "analysis/analysis.hpp"
#include "emit/ambisonics.hpp"
#include "emit/emit_model.hpp"
#include "radiation/bem.hpp"
#include "util/error.hpp"
#include "audio_support.hpp"
#include "test_support.hpp"

namespace mesh2dsp {
namespace {

using emit_test::run;
using emit_test::ScratchTest;
namespace fs = std::filesystem;

// The SN3D basis (ACN) at a unit direction: the orthonormal real harmonics over √((2l+1)/4π).
Eigen::VectorXd sn3d_basis(int order, const Eigen::Vector3d& direction) {
  Eigen::VectorXd y = real_spherical_harmonics(order, direction);
  for (Eigen::Index i = 0; i < y.size(); ++i)
    y[i] /= sn3d_from_orthonormal(static_cast<int>(std::sqrt(static_cast<double>(i))));
  return y;
}

TEST(Ambisonics, Sn3dOfFirstOrderIsTheUnitVectorAndWIsOne) {
  // ambiX first order: W = 1, Y = y, Z = z, X = x (ACN 0..3) for a unit direction.
  const Eigen::Vector3d d = Eigen::Vector3d(0.3, -0.5, 0.8).normalized();
  const Eigen::VectorXd b = sn3d_basis(1, d);
  EXPECT_NEAR(b[0], 1, 1e-12);
  EXPECT_NEAR(b[1], d.y(), 1e-12);
  EXPECT_NEAR(b[2], d.z(), 1e-12);
  EXPECT_NEAR(b[3], d.x(), 1e-12);
  // SN3D: the largest value of each degree's m = 0 harmonic is 1 (on the z axis).
  const Eigen::VectorXd z = sn3d_basis(4, Eigen::Vector3d::UnitZ());
  for (int l = 0; l <= 4; ++l) EXPECT_NEAR(z[l * l + l], 1, 1e-12) << l;
}

// The bar analysed with the boundary-element radiation and listeners far away in six directions:
// each mode's emitted channel gains decoded at a listener's direction (Σ B·SN3D(d), the
// normalisation taken out) against the solve's pressure there times the distance (the far-field
// pattern F(d), as bem_far_field gives it, up to the e^{ikr} of the path).
TEST(Ambisonics, DecodedChannelGainsAreTheBemFarFieldPressure) {
  const double r = 40;
  const std::vector<Eigen::Vector3d> directions = {
      Eigen::Vector3d(1, 0, 0),  Eigen::Vector3d(0, 1, 0),    Eigen::Vector3d(0, 0, 1),
      Eigen::Vector3d(1, 1, 1).normalized(), Eigen::Vector3d(-1, 0.5, 0.3).normalized(),
      Eigen::Vector3d(0.2, -1, -0.4).normalized()};
  AnalysisOptions o;
  o.input = std::string(MESH2DSP_SOURCE_DIR) + "/meshes/bar.obj";
  o.modes = 6;
  o.excite = "auto:2";
  o.radiation = "bem";
  for (const auto& d : directions) {
    const Eigen::Vector3d p = r * d;
    o.listeners.push_back(fmt::format("{},{},{}", p.x(), p.y(), p.z()));
  }
  const ModalModel model = analyze_mesh(o);
  ASSERT_GE(stored_directivity_order(model), 1);
  // The highest order any mode stores (each mode's ceil(ka) + 2), so no mode is truncated here.
  int order = 0;
  for (const auto& mode : model.modes) order = std::max(order, mode.directivity_order);
  // Both encodings: exact (velocity and quadrature gains, the reson resonator) and one common
  // phase per mode (pm.modeFilter).
  for (const bool quadrature : {true, false}) {
    const EmitModel e = make_emit_model(model, "bar", order, quadrature);
    ASSERT_EQ(e.output_count, ambisonic_channel_count(order));
    ASSERT_EQ(e.pickup_quadrature.empty(), !quadrature);
    const AmbisonicGains ambisonic = ambisonic_gains(model, order, quadrature);
    const double root = std::sqrt(e.normalization);
    fmt::print("bar, order {}, {}: mode, Hz, stored order, energy kept, then per direction |decoded| / BEM dB "
               "(BEM level re the mode's loudest direction, dB) [the stored pattern |F| / BEM dB]\n",
               order, quadrature ? "with quadrature" : "one phase per mode");
    double worst_db = 0;
    int compared = 0;
    for (int n = 0; n < e.mode_count; ++n) {
      double loudest = 0;
      for (const auto& l : model.listeners) loudest = std::max(loudest, std::abs(l.pressure[n]) * r);
      Directivity stored;
      stored.order = model.modes[n].directivity_order;
      stored.coefficients = Eigen::Map<const Eigen::VectorXcd>(model.modes[n].directivity.data(),
                                                               ambisonic_channel_count(stored.order));
      std::string row;
      for (size_t j = 0; j < directions.size(); ++j) {
        // The channels decoded: Σ B·SN3D(d) for the velocity's gains, and as the imaginary part
        // for the quadrature's (p = Re(c) v + Im(c) q: the complex pattern is B + i B_q).
        const Eigen::VectorXd basis = sn3d_basis(order, directions[j]);
        std::complex<double> decoded = 0;
        for (int c = 0; c < e.output_count; ++c)
          decoded += std::complex<double>(e.pickup[c * e.mode_count + n],
                                          quadrature ? e.pickup_quadrature[c * e.mode_count + n] : 0.0) /
                     root * basis[c];
        const double bem = std::abs(model.listeners[j].pressure[n]) * r;
        const double db = 20 * std::log10(std::abs(decoded) / bem);
        const double level_db = 20 * std::log10(bem / loudest);
        // The encoding itself: the decoded channels are the stored pattern (in the mode's common
        // phase without quadrature), exactly: ACN, orthonormal -> SN3D factors, no other scale.
        const std::complex<double> f = stored.evaluate(directions[j]);
        const std::complex<double> expected = quadrature ? f : (f * std::polar(1.0, -ambisonic.phase_rad[n])).real();
        EXPECT_LT(std::abs(decoded - expected), 1e-6 * loudest) << "mode " << n << " direction " << j;
        row += fmt::format(" {:+6.2f} ({:+5.1f}) [{:+5.2f}]", db, level_db, 20 * std::log10(std::abs(f) / bem));
        // Directions the mode radiates to; nulls are compared in absolute terms. A mode whose ka
        // asks for more than the highest stored order (capped) is reported, not held to 1 dB.
        if (model.modes[n].directivity_order == kMaxDirectivityOrder) continue;
        if (level_db > -20) {
          worst_db = std::max(worst_db, std::abs(db));
          EXPECT_LT(std::abs(db), 1.0) << "mode " << n << " direction " << j;
          ++compared;
        } else {
          EXPECT_LT(std::abs(std::abs(decoded) - bem), 0.15 * loudest) << "mode " << n << " direction " << j;
        }
      }
      fmt::print("  {} {:8.1f} {:2d} {:5.3f}{}\n", n, model.modes[n].frequency_hz, model.modes[n].directivity_order,
                 ambisonic.kept_energy[n], row);
    }
    fmt::print("worst ||decoded|/BEM| over {} mode-directions within 20 dB of each mode's loudest: {:.2f} dB\n",
               compared, worst_db);
    EXPECT_GT(compared, 10);
  }
}

// Without quadrature, one phase per mode: a pattern with one phase everywhere is kept whole, with
// the sign of its in-phase part; a pattern whose two halves are 90° apart keeps half its energy.
TEST(Ambisonics, ComplexCoefficientsAreMadeRealByOneCommonPhase) {
  ModalModel m;
  m.modes.resize(2);
  for (auto& mode : m.modes) {
    mode.frequency_hz = 100;
    mode.directivity_order = 1;
    mode.directivity.assign(4, 0.0);
  }
  const std::complex<double> phase = std::polar(1.0, 2.5);  // in-phase part negative
  m.modes[0].directivity = {2.0 * phase, 0.0, 1.0 * phase, 0.0};
  m.modes[1].directivity = {1.0, 0.0, std::complex<double>(0, 1), 0.0};
  const AmbisonicGains g = ambisonic_gains(m, 1, false);
  EXPECT_NEAR(g.kept_energy[0], 1, 1e-12);
  EXPECT_NEAR(g.gains[0][0], -2 * sn3d_from_orthonormal(0), 1e-12);
  EXPECT_NEAR(g.gains[2][0], -1 * sn3d_from_orthonormal(1), 1e-12);
  EXPECT_NEAR(g.kept_energy[1], 0.5, 1e-12);
  // With the quadrature signal both parts are kept as they are.
  const AmbisonicGains exact = ambisonic_gains(m, 1);
  EXPECT_NEAR(exact.gains[2][1], 0, 1e-15);
  EXPECT_NEAR(exact.quadrature[2][1], sn3d_from_orthonormal(1), 1e-15);
  EXPECT_NEAR(exact.gains[0][0], 2 * phase.real() * sn3d_from_orthonormal(0), 1e-12);
  EXPECT_NEAR(exact.quadrature[0][0], 2 * phase.imag() * sn3d_from_orthonormal(0), 1e-12);
  EXPECT_EQ(exact.kept_energy[1], 1.0);
}

class AmbisonicsCli : public ScratchTest {
 protected:
  // A small boundary-element model of the bar, made once per test run (removed at exit).
  static fs::path bem_model() {
    struct Model {
      fs::path path = fs::temp_directory_path() / ("mesh2dsp-ambisonics-bar-" + std::to_string(::getpid()) + ".modal.json");
      Model() {
        const auto r = run("'" + emit_test::kBin + "' -q modes '" + (emit_test::kSource / "meshes/bar.obj").string() +
                           "' --modes 5 --excite auto:2 --radiation bem -o '" + path.string() + "'");
        EXPECT_EQ(r.status, 0) << r.output;
      }
      ~Model() {
        std::error_code ec;
        fs::remove(path, ec);
      }
    };
    static const Model model;
    return model.path;
  }
  // Builds a program that runs the emitted header bar.hpp (class Bar): the yaw set, 0.1 s for
  // it to glide in, a strike of 1 N s at the default point, then 1920 samples of every channel.
  void build_harness() {
    const std::string harness = R"(#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "bar.hpp"
// argv[1]: yaw in degrees (or nan, inf, huge); prints every sample of every channel.
int main(int argc, char** argv) {
  mesh2dsp_models::Bar bar;
  bar.prepare(48000);
  const float yaw = argc > 1 ? strtof(argv[1], nullptr) : 0.0f;
  bar.setYaw(yaw);
  const int n = 240, C = mesh2dsp_models::Bar::kOutputs;  // 20 blocks: 0.1 s
  std::vector<std::vector<float>> out(C, std::vector<float>(n));
  std::vector<float*> outs(C);
  for (int c = 0; c < C; ++c) outs[c] = out[c].data();
  for (int i = 0; i < 20; ++i) bar.process(nullptr, outs.data(), n);  // the yaw glides in
  bar.trigger(1.0f);  // at the default point, 0.1 s in (as the Faust gate below)
  for (int block = 0; block < 8; ++block) {
    bar.process(nullptr, outs.data(), n);
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < C; ++c) std::printf("%.9g%c", out[c][i], c + 1 < C ? ' ' : '\n');
  }
}
)";
    ASSERT_NO_FATAL_FAILURE(compile_harness("harness", harness));
  }
  // Writes `source` as NAME.cpp in the scratch folder and compiles it to NAME.
  void compile_harness(const std::string& name, const std::string& source) {
    emit_test::write_text(dir / (name + ".cpp"), source);
    const auto c = run("cd '" + dir.string() + "' && " + MESH2DSP_CXX + " -std=c++17 -O2 -Wall -Werror " + name +
                       ".cpp -o " + name);
    ASSERT_EQ(c.status, 0) << c.output;
  }
  // A harness's samples with the yaw given (degrees, as text: "nan" and the like pass as such);
  // a channel a line leaves out reads as NaN.
  std::vector<Eigen::VectorXd> render(const std::string& yaw, int channels, const std::string& harness = "harness") {
    const auto r = run("'" + (dir / harness).string() + "' " + yaw);
    EXPECT_EQ(r.status, 0) << r.output;
    std::vector<Eigen::VectorXd> samples;
    std::istringstream in(r.output);
    for (std::string line; std::getline(in, line);) {
      std::istringstream l(line);
      Eigen::VectorXd v = Eigen::VectorXd::Constant(channels, std::nan(""));
      for (Eigen::Index i = 0; i < v.size(); ++i) l >> v[i];
      samples.push_back(v);
    }
    return samples;
  }
};

// The Faust program compiles with the real compiler, the header with the C++ compiler; rendered,
// the field turned by yaw 90° decoded at a direction d is the unturned field decoded at d turned
// back by 90°, and hostile yaw values keep the output finite.
TEST_F(AmbisonicsCli, FaustCompilesAndYawTurnsTheRenderedField) {
  const int order = 2;
  auto g = generate(bem_model(), fmt::format("-q --ambisonics {} --faust bar.dsp --faust-effect bar_fx.dsp "
                                             "--faust-lib bar.lib --cpp bar.hpp --name bar",
                                             order));
  ASSERT_EQ(g.status, 0) << g.output;
  for (const char* dsp : {"bar.dsp", "bar_fx.dsp"}) {
    const auto f = run("cd '" + dir.string() + "' && faust " + dsp + " -o " + dsp + ".cpp");
    ASSERT_EQ(f.status, 0) << f.output;
    // (ORDER+1)² outputs.
    EXPECT_NE(emit_test::read_text(dir / (std::string(dsp) + ".cpp")).find("getNumOutputs() {\n\t\treturn 9;"),
              std::string::npos);
  }
  ASSERT_NO_FATAL_FAILURE(build_harness());
  auto render = [&](const std::string& yaw) { return this->render(yaw, ambisonic_channel_count(order)); };
  const auto straight = render("0"), turned = render("90");
  ASSERT_EQ(straight.size(), 1920u);
  ASSERT_EQ(turned.size(), straight.size());
  auto rotate_z = [](const Eigen::Vector3d& d, double degrees) {
    const double t = degrees * M_PI / 180;
    return Eigen::Vector3d(std::cos(t) * d.x() - std::sin(t) * d.y(), std::sin(t) * d.x() + std::cos(t) * d.y(), d.z());
  };
  double largest_change = 0, energy = 0;
  for (const Eigen::Vector3d& d : {Eigen::Vector3d(1, 0, 0), Eigen::Vector3d(0.6, 0.3, 0.74).normalized(),
                                   Eigen::Vector3d(-0.2, 0.9, -0.3).normalized()}) {
    const Eigen::VectorXd at = sn3d_basis(order, d), back = sn3d_basis(order, rotate_z(d, -90));
    double error = 0, change = 0, level = 0;
    for (size_t i = 0; i < straight.size(); ++i) {
      const double t = turned[i].dot(at), s = straight[i].dot(back), u = straight[i].dot(at);
      error += (t - s) * (t - s), change += (t - u) * (t - u), level += s * s;
    }
    ASSERT_GT(level, 0);
    fmt::print("direction ({:.2f}, {:.2f}, {:.2f}): yaw 90 decoded vs yaw 0 decoded at d turned back: "
               "{:.2e} relative; vs yaw 0 at d: {:.2f}\n",
               d.x(), d.y(), d.z(), std::sqrt(error / level), std::sqrt(change / level));
    EXPECT_LT(std::sqrt(error / level), 1e-4);
    largest_change = std::max(largest_change, std::sqrt(change / level));
    energy += level;
  }
  EXPECT_GT(largest_change, 0.1) << "the yaw control changed nothing";
#ifdef MESH2DSP_TESTS_HAVE_JIT
  // The Faust program (libfaust, `mesh2dsp render`) computes the same turned field as the header.
  const auto rendered = run("cd '" + dir.string() + "' && '" + emit_test::kBin +
                            "' -q render bar.dsp -o turned.wav --duration 0.14 --set yaw=90 --trigger gate@0.1");
  ASSERT_EQ(rendered.status, 0) << rendered.output;
  int rate = 0, channels = 0;
  const std::vector<float> faust = emit_test::read_wav(dir / "turned.wav", rate, channels);
  ASSERT_EQ(channels, ambisonic_channel_count(order));
  double difference = 0, level = 0;
  for (size_t i = 0; i < turned.size(); ++i)
    for (int c = 0; c < channels; ++c) {
      const double x = faust[(4800 + i) * channels + c];
      difference = std::max(difference, std::abs(x - turned[i][c]));
      level = std::max(level, std::abs(turned[i][c]));
    }
  fmt::print("Faust (libfaust) against the header, yaw 90: largest difference {:.2e} of the peak\n", difference / level);
  EXPECT_LT(difference, 1e-3 * level);
#endif
  for (const char* hostile : {"nan", "inf", "-inf", "1e30", "-1e-45"}) {
    const auto samples = render(hostile);
    ASSERT_EQ(samples.size(), 1920u) << hostile;
    for (const auto& v : samples) ASSERT_TRUE(v.allFinite()) << hostile;
  }
}

// The Faust program's own yaw clamp (m2dControl: NaN to the default, the rest clamped to
// [-180, 180]) under hostile values written straight into the compiled program's yaw zone
// (`render --set` refuses NaN, so the libfaust path cannot carry them): the Faust-generated C++
// (Debian's faust, the tests' bare architecture) driven through its UI map. Every sample stays
// finite, and the values land where the clamp says: NaN as 0°, +inf and 1e30 as 180°, -inf as
// -180°; a yaw of 90° differs from 0° (so the harness does reach the zone).
TEST_F(AmbisonicsCli, FaustYawZoneStaysFiniteUnderHostileValues) {
  auto g = generate(bem_model(), "-q --ambisonics 2 --faust bar.dsp --name bar");
  ASSERT_EQ(g.status, 0) << g.output;
  const auto f = run("cd '" + dir.string() + "' && faust -lang cpp -cn FaustModel -a '" +
                     (emit_test::kData / "faust-cpp-arch.cpp").string() + "' bar.dsp -o bar_faust.cpp");
  ASSERT_EQ(f.status, 0) << f.output;
  const std::string harness = R"(#include <cstdio>
#include <cstdlib>
#include <vector>
#include "bar_faust.cpp"
// argv[1]: the value written into the yaw zone (strtof: "nan", "inf", "1e30" pass as such);
// 0.1 s for the yaw to glide in, a strike, then 1920 samples of every channel.
int main(int argc, char** argv) {
  FaustModel dsp;
  dsp.init(48000);
  MapUI ui;
  dsp.buildUserInterface(&ui);
  if (!ui.getLabelMap().count("yaw") || !ui.getLabelMap().count("gate")) return 3;
  ui.setParamValue("yaw", strtof(argv[1], nullptr));
  const int n = 240, C = dsp.getNumOutputs(), I = dsp.getNumInputs();
  std::vector<std::vector<float>> in(I, std::vector<float>(n, 0.0f)), out(C, std::vector<float>(n));
  std::vector<float*> ins(I), outs(C);
  for (int c = 0; c < I; ++c) ins[c] = in[c].data();
  for (int c = 0; c < C; ++c) outs[c] = out[c].data();
  for (int block = 0; block < 20; ++block) dsp.compute(n, ins.data(), outs.data());
  ui.setParamValue("gate", 1.0f);
  for (int block = 0; block < 8; ++block) {
    dsp.compute(n, ins.data(), outs.data());
    ui.setParamValue("gate", 0.0f);
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < C; ++c) std::printf("%.9g%c", out[c][i], c + 1 < C ? ' ' : '\n');
  }
}
)";
  ASSERT_NO_FATAL_FAILURE(compile_harness("faust_harness", harness));
  const int channels = ambisonic_channel_count(2);
  auto render = [&](const std::string& yaw) { return this->render(yaw, channels, "faust_harness"); };
  auto largest_difference = [](const std::vector<Eigen::VectorXd>& a, const std::vector<Eigen::VectorXd>& b) {
    double d = 0;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) d = std::max(d, (a[i] - b[i]).cwiseAbs().maxCoeff());
    return d;
  };
  const auto zero = render("0"), quarter = render("90"), plus = render("180"), minus = render("-180");
  ASSERT_EQ(zero.size(), 1920u);
  double peak = 0;
  for (const auto& v : zero) peak = std::max(peak, v.cwiseAbs().maxCoeff());
  ASSERT_GT(peak, 0);
  EXPECT_GT(largest_difference(quarter, zero), 0.1 * peak) << "the yaw zone turned nothing";
  const std::vector<std::pair<const char*, const std::vector<Eigen::VectorXd>*>> hostile = {
      {"nan", &zero}, {"inf", &plus}, {"-inf", &minus}, {"1e30", &plus}, {"-1e30", &minus}, {"-1e-45", &zero}};
  for (const auto& [value, expected] : hostile) {
    const auto samples = render(value);
    ASSERT_EQ(samples.size(), 1920u) << value;
    for (const auto& v : samples) ASSERT_TRUE(v.allFinite()) << value;
    EXPECT_LT(largest_difference(samples, *expected), 1e-6 * peak) << value;
  }
}

// The quadrature signal carries the pattern's phase between directions: one mode whose pattern
// is (1 + i)/√4π towards +x and (1 - i)/√4π towards -x (a real monopole and an imaginary
// x dipole), rendered through the header and decoded at ±x: the -x signal is a quarter period
// ahead (p = Re(F e^{-iωt}): arg F(-x) - arg F(+x) = -90°). A wrong sign of the quadrature
// gives +90°; one phase per mode, 0° or 180°.
TEST_F(AmbisonicsCli, QuadratureCarriesThePatternsPhaseBetweenDirections) {
  ModalModel m;
  m.name = "bar";
  m.material = {"steel", 7850, 2e11, 0.29, 0, 0, ""};
  const double hz = 1000, xi = 0.002;
  m.modes = {{hz, xi, std::log(1000.0) / (xi * 2 * M_PI * hz), std::pow(2 * M_PI * hz, 2)}};
  m.modes[0].directivity_order = 1;
  m.modes[0].directivity = {1.0, 0.0, 0.0, std::complex<double>(0, 1 / std::sqrt(3.0))};
  m.analysis.radiation = "bem";
  ModalExcitation point;
  point.direction = Eigen::Vector3d::UnitZ();
  point.gains = {1.0};
  m.excitations = {point};
  write_modal_model(dir / "one.modal.json", m);
  const auto g = generate(dir / "one.modal.json", "-q --ambisonics 1 --cpp bar.hpp --name bar --no-model-json");
  ASSERT_EQ(g.status, 0) << g.output;
  ASSERT_NO_FATAL_FAILURE(build_harness());
  const auto samples = render("0", 4);
  ASSERT_EQ(samples.size(), 1920u);
  // The phase of the ringing mode in a decoded signal: Σ s(t) e^{iω_d t} ∝ e^{iφ} for
  // s = A cos(ω_d t - φ) (the rest averages out over the 40 periods).
  const double wd = 2 * M_PI * hz * std::sqrt(1 - xi * xi);
  auto phase = [&](const Eigen::Vector3d& d) {
    const Eigen::VectorXd b = sn3d_basis(1, d);
    std::complex<double> sum = 0;
    for (size_t i = 0; i < samples.size(); ++i) sum += samples[i].dot(b) * std::polar(1.0, wd * i / 48000.0);
    return std::arg(sum);
  };
  const double shift = std::remainder(phase(-Eigen::Vector3d::UnitX()) - phase(Eigen::Vector3d::UnitX()), 2 * M_PI);
  fmt::print("one mode, F(±x) = (1 ± i)/√4π: decoded phase at -x minus at +x {:.2f}° (expected -90°)\n",
             shift * 180 / M_PI);
  EXPECT_NEAR(shift, -M_PI / 2, 0.05);
}

TEST_F(AmbisonicsCli, ABadOrderOrAModelWithoutDirectivityIsOneErrorAndNoFile) {
  const fs::path obrien = emit_test::kData / "testbar.modal.json";
  struct Case {
    fs::path model;
    std::string args, says;
  };
  const std::vector<Case> cases = {
      {obrien, "--ambisonics 2", "--radiation bem"},
      {bem_model(), "--ambisonics 0", "order must be 1 to 16"},
      {bem_model(), "--ambisonics 17", "order must be 1 to 16"},
      {bem_model(), "--ambisonics two", "--ambisonics"},
      {emit_test::kSource / "meshes/bar.obj", "--modes 3 --ambisonics 1", "add --radiation bem"}};
  for (const auto& c : cases) {
    const auto r = generate(c.model, c.args + " --faust out.dsp --cpp out.hpp");
    EXPECT_NE(r.status, 0) << c.args;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << ": " << r.output;
    EXPECT_TRUE(fs::is_empty(dir)) << c.args << ": an output was written";
    // One message (CLI11's own parse errors add their usual pointer to --help).
    std::string message = r.output;
    const std::string help = "Run with --help for more information.\n";
    if (const auto at = message.find(help); at != std::string::npos) message.erase(at, help.size());
    EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1) << c.args << ": " << r.output;
  }
}

TEST(Ambisonics, AnOrderAboveWhatTheModelStoresIsAnError) {
  ModalModel m;
  m.modes.resize(2);
  m.modes[0].directivity_order = 1;
  m.modes[0].directivity.assign(4, 1.0);
  m.modes[1].directivity_order = 3;
  m.modes[1].directivity.assign(16, 1.0);
  EXPECT_EQ(stored_directivity_order(m), 1);
  EXPECT_EQ(ambisonic_gains(m, 3).gains.size(), 16u);  // the lower mode's higher channels are 0
  EXPECT_EQ(ambisonic_gains(m, 3).gains[15][0], 0.0);
  EXPECT_THROW(ambisonic_gains(m, 4), Error);
  m.modes[0].directivity.clear();
  m.modes[0].directivity_order = -1;
  EXPECT_THROW(ambisonic_gains(m, 1), Error);
}

}  // namespace
}  // namespace mesh2dsp
