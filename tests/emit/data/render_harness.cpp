// Renders the emitted header to raw float32 (output 0) for the spectral and click tests.
// Usage: render <rate> <seconds> <fundamental_hz|0> <impulse|strike> <glide_at_s|-1> <out.f32> [output]
// (output: which of the model's outputs to write, default 0)
//   impulse: a momentum of 1 N s on the live input at sample 0 (the impulse response): the input
//            contact model with an input gain of <rate> newtons per unit sample;
//   strike:  strike(0, 1) with the hammer; glide_at_s >= 0 steps the glide 0 -> 1 then.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include MODEL_HEADER

int main(int argc, char** argv) {
  if (argc != 7 && argc != 8) return 2;
  const int output = argc == 8 ? std::atoi(argv[7]) : 0;
  const int rate = std::atoi(argv[1]);
  const int total = static_cast<int>(std::atof(argv[2]) * rate);
  const float fundamental = static_cast<float>(std::atof(argv[3]));
  const bool impulse = std::strcmp(argv[4], "impulse") == 0;
  const double glide_at = std::atof(argv[5]);
  static mesh2dsp_models::MODEL_CLASS model;
  model.prepare(static_cast<float>(rate));
  model.setGain(1.0f);
  if (fundamental > 0) model.setFundamental(fundamental);
  if (impulse) {
    model.setExcitation(5);  // live input
    model.setInputGain(static_cast<float>(rate));
  }
  model.apply();
  if (!impulse) model.strike(0.0f, 1.0f);
  constexpr int kOutputs = mesh2dsp_models::MODEL_CLASS::kOutputs;
  if (output < 0 || output >= kOutputs) return 2;
  std::vector<float> all[kOutputs], in(total, 0.0f);
  float* outs[kOutputs];
  for (int l = 0; l < kOutputs; ++l) all[l].resize(total), outs[l] = all[l].data();
  std::vector<float>& out = all[output];
  if (impulse) in[0] = 1.0f;
  const int block = 256;
  for (int done = 0; done < total; done += block) {
    const int n = total - done < block ? total - done : block;
    if (glide_at >= 0 && done >= glide_at * rate) model.setGlide(1.0f);
    float* at[kOutputs];
    for (int l = 0; l < kOutputs; ++l) at[l] = outs[l] + done;
    model.process(in.data() + done, at, n);
  }
  FILE* f = std::fopen(argv[6], "wb");
  if (!f || std::fwrite(out.data(), sizeof(float), out.size(), f) != out.size()) return 1;
  std::fclose(f);
  return 0;
}
