// Hostile controls: a million random calls of every control with values a host might pass by
// mistake (0, negatives, +-inf, NaN, 1e30, denormals, in-range values) and random strikes, each
// at a random sample offset, while the instrument plays. Every output sample must be finite and
// within a bound. Two builds:
//   -DMODEL_HEADER="x.hpp" -DMODEL_CLASS=X   the emitted header (the test compiles it with
//                                            -fsanitize=address,undefined);
//   -DHOSTILE_JIT_DSP="x.dsp"                the Faust program in libfaust's LLVM JIT, each control
//                                            written through the runtime's ControlItem::set.
// Usage: hostile_harness <seed> <calls>. Prints "calls <n> samples <n> peak <p> nonfinite <n>".
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

#ifdef HOSTILE_JIT_DSP
#include <memory>

#include "runtime/dsp/control_layout.hpp"
#include "runtime/jit/faust_compiler.hpp"
#else
#include MODEL_HEADER
#endif

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  std::mt19937 random(static_cast<unsigned>(std::atoi(argv[1])));
  const long calls = std::atol(argv[2]);
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(random); };
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(random); };
  const float kInf = std::numeric_limits<float>::infinity();
  // A hostile value: one of the classic bad ones, or a plausible one.
  auto hostile = [&]() -> float {
    switch (pick(14)) {
      case 0: return 0.0f;
      case 1: return -1.0f;
      case 2: return static_cast<float>(-uniform(0, 1e6));
      case 3: return kInf;
      case 4: return -kInf;
      case 5: return std::numeric_limits<float>::quiet_NaN();
      case 6: return 1e30f;
      case 7: return -1e30f;
      case 8: return 1e-40f;  // denormal
      case 9: return -1e-40f;
      case 10: return std::numeric_limits<float>::max();
      case 11: return static_cast<float>(uniform(0, 2));
      case 12: return static_cast<float>(uniform(0, 20000));
      default: return static_cast<float>(uniform(-3, 3));
    }
  };
  auto hostile_int = [&]() -> int {
    switch (pick(6)) {
      case 0: return std::numeric_limits<int>::min();
      case 1: return std::numeric_limits<int>::max();
      case 2: return -1;
      case 3: return pick(100000);
      default: return pick(8);
    }
  };
  const int rate = 48000;
  constexpr int kMaxBlock = 64;

#ifdef HOSTILE_JIT_DSP
  const auto program = mesh2dsp::runtime::FaustCompiler({}).compile_file(HOSTILE_JIT_DSP);
  const std::unique_ptr<dsp> instance = program.instantiate();
  instance->init(rate);
  const auto layout = mesh2dsp::runtime::ControlLayout::of(*instance);
  const auto controls = layout.controls();
  const int outputs = instance->getNumOutputs(), inputs = instance->getNumInputs();
  auto call = [&]() {
    const auto* control = controls[pick(static_cast<int>(controls.size()))];
    if (control->is_input()) control->set(hostile());
  };
  auto process = [&](float* const* in, float* const* out, int n) { instance->compute(n, const_cast<float**>(in), const_cast<float**>(out)); };
#else
  using Model = mesh2dsp_models::MODEL_CLASS;
  static Model model;
  model.prepare(static_cast<float>(rate));
  const int outputs = Model::kOutputs, inputs = 1;
  auto call = [&]() {
    switch (pick(20)) {
      case 0: model.setFundamental(hostile()); break;
      case 1: model.setT60Scale(hostile()); break;
      case 2: model.setHardness(hostile()); break;
      case 3: model.setExcitationPoint(hostile_int()); break;
      case 4: model.setGlide(hostile()); break;
      case 5: model.setGain(hostile()); break;
      case 6: model.setLevel(pick(4) ? Model::kLevel : hostile()); break;
      case 7: model.setContact(pick(2) != 0, hostile_int(), hostile(), hostile()); break;
      case 8: model.setExcitation(pick(3) ? pick(6) : hostile_int()); break;
      case 9: model.setSize(hostile()); break;
      case 10: model.setSpeed(hostile()); break;
      case 11: model.setForce(hostile()); break;
      case 12: model.setRoughness(hostile()); break;
      case 13: model.setFriction(hostile()); break;
      case 14: model.setInputGain(hostile()); break;
      case 15: model.trigger(hostile()); break;
      case 16: model.strike(hostile(), hostile()); break;
      case 17: model.apply(); break;
      case 18: if (pick(1000) == 0) model.prepare(pick(2) ? hostile() : static_cast<float>(rate)); break;
      default: if (pick(1000) == 0) model.reset(); break;
    }
  };
  auto process = [&](float* const* in, float* const* out, int n) { model.process(in[0], out, n); };
#endif

  std::vector<std::vector<float>> out_storage(outputs, std::vector<float>(kMaxBlock));
  std::vector<float*> out(outputs), in_ptr(inputs > 0 ? inputs : 1);
  for (int l = 0; l < outputs; ++l) out[l] = out_storage[l].data();
  std::vector<float> in(kMaxBlock);
  for (auto& p : in_ptr) p = in.data();
  long samples = 0, nonfinite = 0;
  double peak = 0;
  for (long c = 0; c < calls; ++c) {
    call();
    // A few calls land on the same sample; most at a random offset after the last.
    if (pick(4) != 0) continue;
    const int n = 1 + pick(kMaxBlock);
    for (int m = 0; m < n; ++m) in[m] = static_cast<float>(uniform(-0.01, 0.01));  // a quiet live input
    process(in_ptr.data(), out.data(), n);
    for (int l = 0; l < outputs; ++l)
      for (int m = 0; m < n; ++m) {
        const float y = out[l][m];
        if (!std::isfinite(y)) ++nonfinite;
        else peak = std::fmax(peak, std::fabs(y));
      }
    samples += n;
  }
  std::printf("calls %ld samples %ld peak %.6g nonfinite %ld\n", calls, samples, peak, nonfinite);
  return 0;
}
