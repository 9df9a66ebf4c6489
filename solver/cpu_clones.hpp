#pragma once
// Vector helpers for the time loop's kernels, compiled under MESH2DSP_CPU_CLONES (AVX2 + FMA and
// the baseline): memory- and FMA-bound, the AVX2 copy reads four doubles a lane and fuses each
// multiply-add. Only plain functions: the clones must not inline Eigen objects compiled for
// another instruction set.
#include "util/vector_clones.hpp"

#include <cstring>

namespace mesh2dsp {

// Four doubles, one AVX2 register in an x86-64-v3 clone, two SSE2 ones in the baseline
// (the helpers are always inlined, so the ABI note GCC gives for them does not apply).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
using Double4 = double __attribute__((vector_size(32)));
[[gnu::always_inline]] inline Double4 load4(const double* p) {
  Double4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
// Element by element: GCC lowers a whole-vector float → double conversion to SSE halves before
// it knows the clone's instruction set; this form becomes one vcvtps2pd in the AVX2 clone.
[[gnu::always_inline]] inline Double4 load4(const float* p) {
  return Double4{static_cast<double>(p[0]), static_cast<double>(p[1]), static_cast<double>(p[2]),
                 static_cast<double>(p[3])};
}

[[gnu::always_inline]] inline void store4(double* p, Double4 v) { std::memcpy(p, &v, sizeof v); }
#pragma GCC diagnostic pop

}  // namespace mesh2dsp
