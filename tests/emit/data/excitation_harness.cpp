// Renders the emitted header's contact models to raw float32 for the excitation tests.
// Usage: excitation_harness <force|output> <kind> <rate> <seconds> <hardness> <speed> <roughness>
//                           <size> <out.f32>
//   force:  the selected model's force alone in newtons (contactForce), struck at sample 0;
//   output: the model's output (gain 1) for that force.
// Then optionally where: "point P" strikes point P; "contact U V" a moving contact at (U, V) on
// triangle 0; "sweep" moves the contact on triangle 0 around its edges (0,0) -> (1,0) -> (0,1)
// -> (0,0), one round per second, from 50 ms on; "repeat" strikes point 0 every 25 ms; "at P" the
// position P (a point and a glide toward the next). For "contact" and "at" the place is set and
// left 0.2 s to settle (unrecorded) before the strike: a strike latches its place at its onset.
// The live-input model (kind 5) is fed a sum of five sines (300 .. 9000 Hz, 0.2 each).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include MODEL_HEADER

int main(int argc, char** argv) {
  if (argc < 10) return 2;
  const std::string where = argc > 10 ? argv[10] : "";
  const bool force_only = std::strcmp(argv[1], "force") == 0;
  const int kind = std::atoi(argv[2]);
  const int rate = std::atoi(argv[3]);
  const int total = static_cast<int>(std::atof(argv[4]) * rate);
  static mesh2dsp_models::MODEL_CLASS model;
  model.prepare(static_cast<float>(rate));
  model.setGain(1.0f);
  model.setExcitation(kind);
  model.setHardness(static_cast<float>(std::atof(argv[5])));
  model.setSpeed(static_cast<float>(std::atof(argv[6])));
  model.setRoughness(static_cast<float>(std::atof(argv[7])));
  model.setSize(static_cast<float>(std::atof(argv[8])));
  model.apply();
  std::vector<float> out(total);
  if (force_only) {
    model.strike(0.0f, 1.0f);
    model.apply();
    for (int m = 0; m < total; ++m) out[m] = model.contactForce(m == 0 || (where == "repeat" && m % (rate / 40) == 0));
  } else {
    if (where == "contact" || where == "at") {
      if (where == "contact") model.setContact(true, 0, static_cast<float>(std::atof(argv[11])), static_cast<float>(std::atof(argv[12])));
      if (where == "at") model.strike(static_cast<float>(std::atof(argv[11])), 0.0f);  // the place, no momentum
      std::vector<float> settle(rate / 5);
      model.process(nullptr, settle.data(), rate / 5);
      model.trigger(1.0f);
    } else {
      model.strike(where == "point" ? static_cast<float>(std::atof(argv[11])) : 0.0f, 1.0f);
    }
    if (where == "sweep") model.setContact(true, 0, 0.0f, 0.0f);
    std::vector<float> in(total);
    for (int m = 0; m < total; ++m) {
      in[m] = 0;
      for (double hz : {300.0, 1100.0, 2500.0, 4700.0, 9000.0}) in[m] += 0.2f * static_cast<float>(std::sin(2 * M_PI * hz * m / rate));
    }
    const int block = 16;
    for (int done = 0; done < total; done += block) {
      if (where == "repeat" && done % (rate / 40) < block && done > 0) model.strike(0.0f, 1.0f);
      if (where == "sweep" && done >= rate / 20) {
        const double phase = 3.0 * (done - rate / 20) / rate;  // three edges per second
        const double f = phase - static_cast<int>(phase);
        const int edge = static_cast<int>(phase) % 3;
        const float u = edge == 0 ? f : (edge == 1 ? 1 - f : 0.0f);
        const float v = edge == 0 ? 0.0f : (edge == 1 ? f : 1 - f);
        model.setContact(true, 0, u, v);
      }
      model.process(in.data() + done, out.data() + done, total - done < block ? total - done : block);
    }
  }
  FILE* f = std::fopen(argv[9], "wb");
  if (!f || std::fwrite(out.data(), sizeof(float), out.size(), f) != out.size()) return 1;
  std::fclose(f);
  return 0;
}
