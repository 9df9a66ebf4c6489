// The randomized differential test of the Faust instrument against the emitted header. The Faust
// side is either Faust's C++ backend (faust -lang cpp, class FaustModel: -DFAUST_CLASS_FILE) or
// libfaust's LLVM JIT as `mesh2dsp render` and `play` run it (-DDIFFER_JIT_DSP="x.dsp"): both get the same random sequence of strikes, gate releases,
// parameter changes, contact-model switches, moving-contact moves and live input, each event at
// a random sample offset (both process exactly up to it, then apply it), and the two outputs are
// compared over the whole render. Usage: differential_harness <seed> <rate> <seconds>
// Prints "peak <p> max_diff <d> events <n>".
// Built with -DMODEL_HEADER="x.hpp" -DMODEL_CLASS=X and one of the two above; the model must be
// emitted with --excitation all (Faust menu index = the header's EXCITE_* kind).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include MODEL_HEADER
#ifdef DIFFER_JIT_DSP
#include <faust/gui/MapUI.h>

#include <memory>

#include "runtime/jit/faust_compiler.hpp"
#else
#include FAUST_CLASS_FILE
#endif

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const unsigned seed = static_cast<unsigned>(std::atoi(argv[1]));
  const int rate = std::atoi(argv[2]);
  const int total = static_cast<int>(std::atof(argv[3]) * rate);
  using Model = mesh2dsp_models::MODEL_CLASS;
  constexpr int kOut = Model::kOutputs;
  std::mt19937 random(seed);
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(random); };
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(random); };

#ifdef DIFFER_JIT_DSP
  // No cache: the program is compiled here, as a cold `mesh2dsp render` compiles it.
  const auto program = mesh2dsp::runtime::FaustCompiler({}).compile_file(DIFFER_JIT_DSP);
  const std::unique_ptr<dsp> instance = program.instantiate();
  dsp& faust = *instance;
#else
  FaustModel faust_class;
  dsp& faust = faust_class;
#endif
  faust.init(rate);
  MapUI ui;
  faust.buildUserInterface(&ui);
  static Model model;
  model.prepare(static_cast<float>(rate));
  if (faust.getNumOutputs() != kOut || faust.getNumInputs() != 1) {
    std::printf("channel mismatch: faust %d in %d out\n", faust.getNumInputs(), faust.getNumOutputs());
    return 2;
  }
  // Both start from the same slider values (the header's defaults are the Faust sliders').
  auto set = [&](const char* name, float value) { ui.setParamValue(name, value); };
  float gate = 0;
  const double f0 = Model::kFundamentalHz;

  std::vector<float> in(total), faust_out[kOut], header_out[kOut];
  for (int l = 0; l < kOut; ++l) faust_out[l].resize(total), header_out[l].resize(total);
  for (float& v : in) v = static_cast<float>(uniform(-0.5, 0.5));

  int done = 0, events = 0;
  while (done < total) {
    // The next event within 1..4000 samples; at least one strike early on.
    int next = std::min(total, done + 1 + pick(events == 0 ? 200 : 4000));
    const int segment = next - done;
    float* faust_ptr[kOut];
    float* header_ptr[kOut];
    for (int l = 0; l < kOut; ++l) faust_ptr[l] = faust_out[l].data() + done, header_ptr[l] = header_out[l].data() + done;
    float* in_ptr[1] = {in.data() + done};
    faust.compute(segment, in_ptr, faust_ptr);
    model.process(in.data() + done, header_ptr, segment);
    done = next;
    if (done >= total) break;
    ++events;
    const int kind = events == 1 ? 0 : pick(14);
    if (std::getenv("DIFFER_TRACE")) std::fprintf(stderr, "event %d at %d: kind %d\n", events, done, kind);
    switch (kind) {
      case 0: case 1: {  // strike (a rising gate) with a random momentum
        if (gate > 0) { gate = 0; set("gate", 0); break; }  // release first
        gate = static_cast<float>(uniform(0.2, 1.0));
        set("gate", gate);
        model.trigger(gate);
        break;
      }
      case 2: gate = 0; set("gate", 0); break;
      case 3: {  // held: fundamental
        const float hz = static_cast<float>(f0 * uniform(0.5, 2.0));
        set("freq", hz);
        model.setFundamental(hz);
        break;
      }
      case 4: { const float v = static_cast<float>(uniform(0.2, 3.0)); set("t60 scale", v); model.setT60Scale(v); break; }
      case 5: { const float v = static_cast<float>(uniform(0, 1)); set("hardness", v); model.setHardness(v); break; }
      case 6: { const int p = pick(Model::kExcitationPoints); set("excitation point", p); model.setExcitationPoint(p); break; }
      case 7: { const float v = static_cast<float>(uniform(0, 1)); set("position glide", v); model.setGlide(v); break; }
      case 8: { const float v = static_cast<float>(uniform(0.1, 1)); set("gain", v); model.setGain(v); break; }
      case 9: {
        const int k = pick(6);
        set("excitation", k);
        model.setExcitation(k);
        if (std::getenv("DIFFER_TRACE")) std::fprintf(stderr, "  excitation %d\n", k);
        break;
      }
      case 10: {
        const float size = static_cast<float>(uniform(0, 1)), speed = static_cast<float>(uniform(0.05, 2));
        set("size", size); model.setSize(size);
        set("speed", speed); model.setSpeed(speed);
        break;
      }
      case 11: {
        const float force = static_cast<float>(uniform(0, 2)), beta = static_cast<float>(uniform(0.3, 1.7));
        const float mu = static_cast<float>(uniform(0, 1)), input = static_cast<float>(uniform(1, 300));
        set("force", force); model.setForce(force);
        set("roughness", beta); model.setRoughness(beta);
        set("friction", mu); model.setFriction(mu);
        set("input gain", input); model.setInputGain(input);
        break;
      }
      default: {  // moving contact: on/off, triangle, (u, v)
        if (Model::kTriangles == 0) break;
        const bool on = pick(3) != 0;
        const int t = pick(Model::kTriangles);
        const float u = static_cast<float>(uniform(0, 1)), v = static_cast<float>(uniform(0, 1));
        set("moving contact", on ? 1.0f : 0.0f);
        set("contact triangle", t);
        set("contact u", u);
        set("contact v", v);
        model.setContact(on, t, u, v);
        break;
      }
    }
  }
  if (std::getenv("DIFFER_TRACE"))
    for (int m = 0; m < total; ++m)
      if (std::fabs(faust_out[0][m] - header_out[0][m]) > 2e-5) {
        std::fprintf(stderr, "first difference at %d: %g vs %g\n", m, faust_out[0][m], header_out[0][m]);
        break;
      }
  if (std::getenv("DIFFER_TRACE"))  // the largest difference in each tenth of the render
    for (int part = 0; part < 10; ++part) {
      double d = 0;
      for (int m = part * total / 10; m < (part + 1) * total / 10; ++m)
        d = std::fmax(d, std::fabs(faust_out[0][m] - header_out[0][m]));
      std::fprintf(stderr, "tenth %d: max difference %g\n", part, d);
    }
  double peak = 0, max_diff = 0;
  for (int l = 0; l < kOut; ++l)
    for (int m = 0; m < total; ++m) {
      peak = std::fmax(peak, std::fabs(faust_out[l][m]));
      max_diff = std::fmax(max_diff, std::fabs(faust_out[l][m] - header_out[l][m]));
    }
  std::printf("peak %.9g max_diff %.9g events %d\n", peak, max_diff, events);
  return 0;
}
