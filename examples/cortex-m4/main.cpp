// One strike of a generated model on a Cortex-M4F: prepare, strike, process in blocks, and the
// samples out through the platform (semihosting on the target, stdio on the host). Also counts
// the ticks spent in process(), which a board reads as cycles and QEMU -icount as instructions.
#include "platform.h"

#ifndef MODEL_HEADER
#define MODEL_HEADER "bar.hpp"
#define MODEL_CLASS Bar
#endif
#include MODEL_HEADER

namespace {

constexpr float kRateHz = 48000.0f;
constexpr int kBlock = 64;       // an audio callback's block
constexpr int kSamples = 48000;  // one second
using Model = mesh2dsp_models::MODEL_CLASS;

Model model;  // static storage: its state is in .bss, no heap
float channel[Model::kOutputs][kBlock];
float interleaved[kBlock * Model::kOutputs];

// "name value\n" on the console without printf (which would be most of the firmware).
void print_number(const char* name, uint64_t value) {
  char text[48];
  int n = 0;
  while (*name) text[n++] = *name++;
  text[n++] = ' ';
  char digits[21];
  int d = 0;
  do digits[d++] = static_cast<char>('0' + value % 10);
  while ((value /= 10) != 0);
  while (d) text[n++] = digits[--d];
  text[n++] = '\n';
  text[n] = 0;
  platform_print(text);
}

}  // namespace

int main() {
  const int out = platform_open("samples.f32");
  if (out < 0) {
    platform_print("cannot open samples.f32 on the host\n");
    platform_exit(1);
  }
  uint64_t busy = 0;
  const uint64_t start = platform_ticks();
  model.prepare(kRateHz);
  model.trigger(1.0f);  // a momentum of 1 N s at the default point, the model's loudest
  const uint64_t setup = platform_ticks() - start;
  float* outs[Model::kOutputs];
  for (int c = 0; c < Model::kOutputs; ++c) outs[c] = channel[c];
  for (int done = 0; done < kSamples; done += kBlock) {
    const uint64_t before = platform_ticks();
    model.process(nullptr, outs, kBlock);
    busy += platform_ticks() - before;
    for (int i = 0; i < kBlock; ++i)
      for (int c = 0; c < Model::kOutputs; ++c) interleaved[i * Model::kOutputs + c] = channel[c][i];
    if (platform_write(out, interleaved, sizeof interleaved) != 0) {
      platform_print("cannot write samples.f32\n");
      platform_exit(1);
    }
  }
  platform_close(out);
  uint32_t instructions = 0;
  const uint64_t calibration = platform_calibration_ticks(&instructions);
  print_number("modes", Model::kModes);
  print_number("samples", kSamples);
  print_number("model_state_bytes", sizeof(Model));
  print_number("prepare_strike_ticks", setup);
  print_number("process_ticks", busy);
  print_number("calibration_instructions", instructions);
  print_number("calibration_ticks", calibration);
  platform_exit(0);
}
