// Issue 12: stepping at the audio rate. Newmark's average acceleration is the bilinear
// transform of every mode, so its warp is known exactly (newmark.hpp); the time loop runs on
// one thread; the factor may be single precision; the loop's duration is estimated early.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "fem/fem_mesh.hpp"
#include "fem/material.hpp"
#include "fem/structured_box.hpp"
#include "modal/modal_analysis.hpp"
#include "newmark.hpp"
#include "reference.hpp"
#include "spectrum.hpp"
#include "util/error.hpp"

using namespace mesh2dsp;
using namespace mesh2dsp::test;

namespace {

// One oscillator m ü + c u̇ + k u = 0 stepped by Newmark's average acceleration exactly as
// NewmarkIntegrator::step does (γ = ½, β = ¼), from u = 0, v = 1. Returns the velocities.
std::vector<double> newmark_oscillator(double omega, double zeta, double dt, int steps) {
  const double m = 1, c = 2 * zeta * omega, k = omega * omega;
  const double k_eff = k + (2 / dt) * c + (4 / (dt * dt)) * m;
  double u = 0, v = 1, a = -c * v / m;
  std::vector<double> out{v};
  for (int n = 0; n < steps; ++n) {
    const double rhs = m * ((4 / (dt * dt)) * u + (4 / dt) * v + a) + c * ((2 / dt) * u + v);
    const double u_next = rhs / k_eff;
    const double a_next = (4 / (dt * dt)) * (u_next - u) - (4 / dt) * v - a;
    v += 0.5 * dt * (a + a_next);
    a = a_next;
    u = u_next;
    out.push_back(v);
  }
  return out;
}

// The pole z of a sequence x[n] = Re(A zⁿ): x[n+1] = 2 Re z · x[n] − |z|² x[n−1], solved by
// least squares over the whole sequence.
std::complex<double> recurrence_pole(const std::vector<double>& x) {
  double s11 = 0, s12 = 0, s22 = 0, r1 = 0, r2 = 0;
  for (size_t n = 1; n + 1 < x.size(); ++n) {
    s11 += x[n] * x[n], s12 += x[n] * x[n - 1], s22 += x[n - 1] * x[n - 1];
    r1 += x[n + 1] * x[n], r2 += x[n + 1] * x[n - 1];
  }
  const double det = s11 * s22 - s12 * s12;
  const double c1 = (r1 * s22 - r2 * s12) / det, c2 = (s11 * r2 - s12 * r1) / det;  // 2 Re z, −|z|²
  const double radius = std::sqrt(-c2);
  return std::polar(radius, std::acos(std::clamp(c1 / (2 * radius), -1.0, 1.0)));
}

}  // namespace

TEST(NewmarkWarp, TheCorrectionIsExactForOneOscillatorAtAnyStep) {
  // From far below to far above the Nyquist limit of the step (ωΔt up to 10): no aliasing,
  // and the mapping back recovers frequency and decay to the round-off of the pole estimate
  // (|z| − 1 is ~1e-8 per step at 440 Hz and 288 kHz).
  for (double f : {440.0, 5000.0, 15000.0, 40000.0})
    for (double rate : {48000.0, 96000.0, 288000.0, 8000.0}) {
      const double dt = 1 / rate, zeta = 0.002, omega = 2 * M_PI * f;
      // Four periods at least: the pole's estimate from a short arc is ill-conditioned.
      const auto v = newmark_oscillator(omega, zeta, dt, std::max(400, static_cast<int>(4 * rate / f)));
      const std::complex<double> z = recurrence_pole(v);
      const ModeFrequencyDecay measured{std::arg(z) / (2 * M_PI * dt), std::log(1000.0) / (-std::log(std::abs(z)) / dt)};
      const ModeFrequencyDecay truth{f * std::sqrt(1 - zeta * zeta), std::log(1000.0) / (zeta * omega)};
      const ModeFrequencyDecay predicted = newmark_discrete_mode(truth, dt);
      const ModeFrequencyDecay recovered = newmark_continuous_mode(measured, dt);
      EXPECT_NEAR(predicted.frequency_hz / measured.frequency_hz, 1, 1e-8) << f << " Hz at " << rate;
      EXPECT_NEAR(predicted.t60_s / measured.t60_s, 1, 1e-5) << f << " Hz at " << rate;
      EXPECT_NEAR(recovered.frequency_hz / truth.frequency_hz, 1, 1e-8) << f << " Hz at " << rate;
      EXPECT_NEAR(recovered.t60_s / truth.t60_s, 1, 1e-5) << f << " Hz at " << rate;
      EXPECT_LT(measured.frequency_hz, 0.5 * rate);  // never aliased
    }
  // Undamped, the textbook warp: ω̃ = (2/Δt) atan(ωΔt/2).
  const double dt = 1 / 48000.0, f = 10000;
  EXPECT_NEAR(newmark_discrete_mode({f, INFINITY}, dt).frequency_hz,
              std::atan(M_PI * f * dt) / (M_PI * dt), 1e-9);
}

namespace {

Material damped_steel() {
  Material m = find_material_preset("steel");
  m.rayleigh_mass_per_s = 20;
  m.rayleigh_stiffness_s = 5e-8;
  return m;
}

// The difference of two renders' first channels, in dB of the first one's energy.
template <class Channel>
double difference_db(const Channel& reference, const Channel& other) {
  double diff = 0, ref = 0;
  for (size_t i = 0; i < reference.size(); ++i) {
    diff += std::pow(reference[i] - other[i], 2);
    ref += std::pow(reference[i], 2);
  }
  return 10 * std::log10(diff / ref);
}

ReferenceSettings bar_settings(const TetMesh& bar, double duration_s) {
  ReferenceSettings s;
  s.duration_s = duration_s;
  s.show_progress = false;
  s.force = parse_force("impulse", 1e-3);
  s.strike = parse_strike("auto", "1,0.7,-1", bar, {});
  s.listeners_m = {Eigen::Vector3d(0.45, 0.3, 0.25)};
  return s;
}

std::vector<double> model_frequencies(const FemMesh& fem, const Material& material) {
  ModalAnalysisRequest request;
  request.modes = 20;
  request.fmin_hz = 20;
  request.fmax_hz = 20000;
  const auto result = analyze_modes(fem, material, request);
  std::vector<double> f;
  for (double lambda : result.eigenvalues) f.push_back(std::sqrt(lambda) / (2 * M_PI));
  return f;
}

double unwarp(double f, double dt) { return std::tan(M_PI * f * dt) / (M_PI * dt); }

}  // namespace

TEST(AudioRate, OneStepPerSampleGivesTheFineStepsFrequenciesAfterCorrection) {
  // Δt = 1/48 000 s against today's fine 1/288 000 s: every isolated mode's peak, mapped back
  // through the exact warp, agrees within 0.01 %, although uncorrected they differ by up to
  // ~10 % at the top.
  const TetMesh bar = structured_box({0, 0, 0}, {0.60, 0.03, 0.02}, 20, 3, 2);
  const FemMesh fem = make_fem_mesh(bar, 1);
  const Material steel = damped_steel();
  const auto modes = model_frequencies(fem, steel);
  ReferenceSettings s = bar_settings(bar, 0.4);
  s.dt_s = 1 / 48000.0;
  const auto coarse = render_reference(bar, fem, steel, {}, s);
  s.dt_s = 1 / 288000.0;
  const auto fine = render_reference(bar, fem, steel, {}, s);
  const Spectrum a = spectrum(coarse.channels[0], s.sample_rate_hz);
  const Spectrum b = spectrum(fine.channels[0], s.sample_rate_hz);
  int compared = 0;
  double largest_raw = 0;
  for (size_t i = 0; i < modes.size(); ++i) {
    const double f = modes[i];
    if (f > 12000) break;
    bool isolated = true;
    for (size_t j = 0; j < modes.size(); ++j)
      if (j != i && std::abs(modes[j] - f) < 0.03 * f) isolated = false;
    if (!isolated) continue;
    double ha = 0, hb = 0;
    const double fa_shown = newmark_discrete_mode({f, INFINITY}, 1 / 48000.0).frequency_hz;
    const double fb_shown = newmark_discrete_mode({f, INFINITY}, 1 / 288000.0).frequency_hz;
    const double fa = a.peak_in(0.99 * fa_shown, 1.01 * fa_shown, &ha);
    const double fb = b.peak_in(0.99 * fb_shown, 1.01 * fb_shown, &hb);
    if (fa <= 0 || fb <= 0 || ha < 1e-3 * a.max_all() || hb < 1e-3 * b.max_all()) continue;
    const double ca = unwarp(fa, 1 / 48000.0), cb = unwarp(fb, 1 / 288000.0);
    std::printf("mode %8.1f Hz: 1/48000 -> %8.2f (corrected %8.2f), 1/288000 -> %8.2f (corrected %8.2f), %+.4f %%\n",
                f, fa, ca, fb, cb, 100 * (ca / cb - 1));
    EXPECT_NEAR(ca / cb, 1, 1e-4) << "mode at " << f << " Hz";
    largest_raw = std::max(largest_raw, std::abs(fa / fb - 1));
    ++compared;
  }
  EXPECT_GE(compared, 4);
  EXPECT_GT(largest_raw, 0.01);  // the correction did real work
}

TEST(AudioRate, TheTimeLoopDoesNotSpinThreadsAndEstimatesItsDuration) {
  // sys < 20 % of user time in the loop (getrusage), and the early estimate within a factor 2.
  const TetMesh bar = structured_box({0, 0, 0}, {0.30, 0.03, 0.02}, 14, 4, 3);
  const FemMesh fem = make_fem_mesh(bar, 2);
  const Material steel = damped_steel();
  ReferenceSettings s = bar_settings(bar, 0.02);
  s.dt_s = 1 / 48000.0;
  double estimate = 0;
  s.on_estimate = [&](double loop_s, long long) { estimate = loop_s; };
  // The estimate extrapolates the first steps' wall-clock pace: a load spike on a shared CI
  // machine during those steps (seen once in a full -j2 run beside other builds) makes it miss
  // by more than 2x although the code is right, so a miss is rendered once more.
  ReferenceResult r;
  for (int attempt = 0; attempt < 2; ++attempt) {
    estimate = 0;
    r = render_reference(bar, fem, steel, {}, s);
    std::printf("%lld steps: %.3f s wall, %.3f s user, %.3f s system; estimated %.3f s\n", r.steps,
                r.integration_s, r.integration_cpu_s - r.integration_system_s, r.integration_system_s, estimate);
    if (estimate < 2 * r.integration_s && estimate > 0.5 * r.integration_s) break;
  }
  const double user = r.integration_cpu_s - r.integration_system_s;
  EXPECT_LT(r.integration_system_s, 0.2 * user);
  ASSERT_GT(estimate, 0);
  EXPECT_EQ(estimate, r.estimated_integration_s);
  EXPECT_LT(estimate, 2 * r.integration_s);
  EXPECT_GT(estimate, 0.5 * r.integration_s);
}

TEST(AudioRate, ASinglePrecisionFactorRendersWhatTheDoubleOneRenders) {
  // The error budget: the float factor perturbs each step's solve by ~1e-7 relative, times
  // the conditioning of K_eff; the sweeps keep the state and the sums in double, so nothing
  // else is rounded to float. Measured: the render differs from the double one by -113 dB (RMS)
  // on this P2 bar (-80 dB before each step carried its solve's residual, -58 dB when the sweeps
  // ran in float). This pins the figure the README quotes.
  const TetMesh bar = structured_box({0, 0, 0}, {0.30, 0.03, 0.02}, 14, 4, 3);
  const FemMesh fem = make_fem_mesh(bar, 2);
  const Material steel = damped_steel();
  ReferenceSettings s = bar_settings(bar, 0.05);
  s.dt_s = 1 / 48000.0;
  s.single_precision = false;  // the double render first (float is the default)
  const auto d = render_reference(bar, fem, steel, {}, s);
  s.single_precision = true;
  const auto f = render_reference(bar, fem, steel, {}, s);
  const double relative_db = difference_db(d.channels[0], f.channels[0]);
  // What validate compares is spectra above an 80 dB floor: the two renders' log spectra over
  // the bins within 80 dB of the peak.
  const test::Spectrum sd = test::spectrum(d.channels[0], s.sample_rate_hz, 4);
  const test::Spectrum sf = test::spectrum(f.channels[0], s.sample_rate_hz, 4);
  const double floor = sd.max_all() * 1e-4;
  double squares = 0, worst_db = 0;
  int bins = 0;
  for (size_t i = 1; i < sd.magnitude.size(); ++i) {
    if (sd.magnitude[i] < floor) continue;
    const double db = 20 * std::log10(sf.magnitude[i] / sd.magnitude[i]);
    squares += db * db;
    worst_db = std::max(worst_db, std::abs(db));
    ++bins;
  }
  const double log_spectral_db = std::sqrt(squares / bins);
  std::printf("single-precision factor: difference %.1f dB re the double render; log spectra over %d bins "
              "within 80 dB of the peak: %.2g dB RMS, %.2g dB at worst\n",
              relative_db, bins, log_spectral_db, worst_db);
  EXPECT_LT(relative_db, -100);
  EXPECT_LT(log_spectral_db, 0.001);
  EXPECT_GT(relative_db, -200);  // and it did run in single precision
}

TEST(AudioRate, ASinglePrecisionFactorStaysWithTheDoubleRenderOnAFreeBody) {
  // A free bar struck by an impulse, rendered with the factor in double and in float. Before the
  // residual of each solve was carried into the next step (solver/newmark.cpp), the float factor
  // acted as an indefinite stiffness on the rigid-body modes and every case here diverged: the P1
  // bar at the fine default step grew ~4 000-fold in output RMS by 0.3 s, at one step per sample
  // the energy guard stopped it at 0.13 s; the P2 bar stopped at 0.036 s (fine) and 0.11 s (audio
  // rate). Carried, the float render stays within -72 dB of the double one over a second (fine
  // step) and -89 / -105 dB at one step per sample; here 0.4 s, three times the worst divergence.
  struct Case {
    int order;
    bool audio_rate;
    double limit_db;
  };
  for (const Case c : {Case{1, false, -65}, Case{1, true, -80}, Case{2, true, -90}}) {
    const TetMesh bar = structured_box({0, 0, 0}, {0.30, 0.03, 0.02}, 10, 3, 2);
    const FemMesh fem = make_fem_mesh(bar, c.order);
    const Material steel = damped_steel();
    ReferenceSettings s = bar_settings(bar, 0.4);
    if (c.audio_rate) s.dt_s = 1.0 / 48000;
    s.single_precision = false;  // the double render first (float is the default)
    const auto d = render_reference(bar, fem, steel, {}, s);
    s.single_precision = true;
    try {
      const auto f = render_reference(bar, fem, steel, {}, s);
      const double db = difference_db(d.channels[0], f.channels[0]);
      std::printf("P%d, %s: float vs double %.1f dB\n", c.order, c.audio_rate ? "audio rate" : "fine step", db);
      EXPECT_LT(db, c.limit_db) << "P" << c.order << (c.audio_rate ? " at the audio rate" : " at the fine step");
    } catch (const Error& e) {
      ADD_FAILURE() << "P" << c.order << (c.audio_rate ? " at the audio rate: " : " at the fine step: ") << e.what();
    }
  }
}

