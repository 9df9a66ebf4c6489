// Renders one strike of a generated model to a WAV file: the whole use of a mesh2dsp header.
//   mesh2dsp generate meshes/bar.obj --material steel --cpp bar.hpp --name bar
//   c++ -std=c++17 -O2 -I. render_strike.cpp $(pkg-config --cflags --libs sndfile) -o render_strike
//   ./render_strike strike.wav [seconds] [rate_hz] [excitation_point]
// Another model: -DMODEL_HEADER='"bowl.hpp"' -DMODEL_CLASS=Bowl (the class is the capitalised name).
#include <sndfile.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#ifndef MODEL_HEADER
#define MODEL_HEADER "bar.hpp"
#define MODEL_CLASS Bar
#endif
#include MODEL_HEADER

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: %s out.wav [seconds] [rate_hz] [point]\n", argv[0]), 2;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 2.0;
  const int rate = argc > 3 ? std::atoi(argv[3]) : 48000;
  using Model = mesh2dsp_models::MODEL_CLASS;
  static Model model;  // ~10 KiB of state or more: static, not on the stack
  model.prepare(static_cast<float>(rate));
  if (argc > 4) model.strike(static_cast<float>(std::atof(argv[4])), 1.0f);  // 1 N s at that point
  else model.trigger(1.0f);  // 1 N s at the default point, the model's loudest

  SF_INFO info{};
  info.samplerate = rate;
  info.channels = Model::kOutputs;  // one per listener (one: the contact microphone)
  info.format = SF_FORMAT_WAV | SF_FORMAT_FLOAT;
  SNDFILE* wav = sf_open(argv[1], SFM_WRITE, &info);
  if (!wav) return std::fprintf(stderr, "cannot write %s: %s\n", argv[1], sf_strerror(nullptr)), 1;
  const int block = 256;
  std::vector<float> channel(Model::kOutputs * block), frames(Model::kOutputs * block);
  float* outs[Model::kOutputs];
  for (int c = 0; c < Model::kOutputs; ++c) outs[c] = &channel[c * block];
  for (long done = 0, total = static_cast<long>(seconds * rate); done < total; done += block) {
    model.process(nullptr, outs, block);  // nullptr: no live input
    for (int i = 0; i < block; ++i)
      for (int c = 0; c < Model::kOutputs; ++c) frames[i * Model::kOutputs + c] = outs[c][i];
    sf_writef_float(wav, frames.data(), block);
  }
  return sf_close(wav);
}
