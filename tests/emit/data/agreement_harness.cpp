// Feeds the Faust program (faust -lang cpp, class FaustModel) and the emitted header the same
// input at the same rate and prints "peak <p> max_diff <d> samples <n> early_max_diff <e>".
// Optional 4th argument: the contact model (instrument only; the test models are emitted with
// --excitation all, so the Faust menu index is the header's <NAME>_EXCITE_* kind).
// Optional 5th and 6th: barycentric (u, v) of a moving contact on triangle 0.
// Built at test time with -DMODEL_HEADER="x.hpp" -DMODEL_CLASS=X -DFAUST_CLASS_FILE="x_faust.cpp".
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include MODEL_HEADER
#include FAUST_CLASS_FILE

int main(int argc, char** argv) {
  const bool effect = argc > 1 && std::strcmp(argv[1], "effect") == 0;
  const int rate = argc > 2 ? std::atoi(argv[2]) : 48000;
  const float position = argc > 3 ? static_cast<float>(std::atof(argv[3])) : 0.0f;
  const int kind = argc > 4 ? std::atoi(argv[4]) : 0;
  const bool live = !effect && kind == 5;  // live input: the instrument reads its input too
  const int total = rate * 2, block = 256;
  constexpr int kOut = mesh2dsp_models::MODEL_CLASS::kOutputs;

  FaustModel faust;
  faust.init(rate);
  MapUI ui;
  faust.buildUserInterface(&ui);
  const int point = static_cast<int>(position);
  ui.setParamValue("excitation point", static_cast<float>(point));
  ui.setParamValue("position glide", position - point);
  if (!effect) ui.setParamValue("gate", 1.0f);
  if (!effect) ui.setParamValue("excitation", static_cast<float>(kind));
  const bool moving = argc > 6;
  const float u = moving ? static_cast<float>(std::atof(argv[5])) : 0.0f;
  const float v = moving ? static_cast<float>(std::atof(argv[6])) : 0.0f;
  if (moving) {
    ui.setParamValue("moving contact", 1.0f);
    ui.setParamValue("contact u", u);
    ui.setParamValue("contact v", v);
  }
  const bool faust_reads_input = faust.getNumInputs() == 1;
  if (faust.getNumOutputs() != kOut || faust.getNumInputs() > 1 || (effect && !faust_reads_input)) {
    std::printf("channel mismatch: faust %d in %d out\n", faust.getNumInputs(), faust.getNumOutputs());
    return 2;
  }

  static mesh2dsp_models::MODEL_CLASS model;
  model.prepare(static_cast<float>(rate));
  model.setGlide(position - point);
  model.setExcitationPoint(point);
  model.setExcitation(effect ? 5 : kind);  // the effect is the live-input model
  if (moving) model.setContact(true, 0, u, v);
  if (effect) model.apply();
  else model.strike(position, 1.0f);

  std::vector<float> in(block), faust_out[kOut], header_out[kOut];
  float* faust_ptr[kOut];
  float* header_ptr[kOut];
  for (int l = 0; l < kOut; ++l) {
    faust_out[l].resize(block);
    header_out[l].resize(block);
    faust_ptr[l] = faust_out[l].data();
    header_ptr[l] = header_out[l].data();
  }
  unsigned noise = 12345;
  double peak = 0, max_diff = 0, early_diff = 0;  // early: the first 50 ms
  for (int done = 0; done < total; done += block) {
    for (int m = 0; m < block; ++m) {
      noise = noise * 1103515245u + 12345u;
      // An impulse (1 N s at the default input gain of 100 N), then quiet noise: the force input.
      in[m] = (done + m == 0 ? static_cast<float>(rate) / 100.0f : 0.0f) +
              1e-3f * (static_cast<float>(noise >> 8) / 16777216.0f - 0.5f);
    }
    float* in_ptr[1] = {in.data()};
    faust.compute(block, faust_reads_input ? in_ptr : nullptr, faust_ptr);
    model.process(in.data(), header_ptr, block);
    for (int l = 0; l < kOut; ++l)
      for (int m = 0; m < block; ++m) {
        peak = std::fmax(peak, std::fabs(faust_out[l][m]));
        const double diff = std::fabs(faust_out[l][m] - header_out[l][m]);
        max_diff = std::fmax(max_diff, diff);
        if (done + m < rate / 20) early_diff = std::fmax(early_diff, diff);
      }
  }
  std::printf("peak %.9g max_diff %.9g samples %d early_max_diff %.9g\n", peak, max_diff, total, early_diff);
  return 0;
}
