#pragma once
// Shared by the generated benchmark sources: a noise force input (so no resonator ever decays
// into denormals) and the "modes in real time" counter.
#include <benchmark/benchmark.h>

#include <vector>

namespace emit_bench {

constexpr int kBlock = 256;
constexpr double kSampleRate = 48000;

inline std::vector<float> noise_block() {
  std::vector<float> in(kBlock);
  unsigned state = 1;
  for (float& x : in) {
    state = state * 1103515245u + 12345u;
    x = 1e-3f * (static_cast<float>(state >> 8) / 16777216.0f - 0.5f);
  }
  return in;
}

// N modes x the audio seconds rendered per second of wall time: how many modes this code
// would synthesise in real time at 48 kHz on one core.
inline void count_realtime_modes(benchmark::State& state, int modes) {
  state.counters["modes_realtime"] =
      benchmark::Counter(modes * kBlock / kSampleRate, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace emit_bench
