#pragma once
// Hot loops compiled for newer instruction sets as well as the baseline x86-64, the version
// chosen when the program loads (GCC's target_clones): the binary stays portable. Each clone
// must inline what it calls (always_inline), or the callee stays baseline code.
// - MESH2DSP_CPU_CLONES: AVX2 + FMA and the baseline (the time loop's sweeps, where AVX-512 was
//   no faster).
// - MESH2DSP_VECTOR_CLONES: AVX-512 too (the Lanczos step's kernels, whose rows of eight doubles
//   are then one register).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define MESH2DSP_CPU_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#define MESH2DSP_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define MESH2DSP_CPU_CLONES
#define MESH2DSP_VECTOR_CLONES
#endif
#define MESH2DSP_INLINE __attribute__((always_inline)) inline

namespace mesh2dsp {

// W doubles as one vector value (GCC's vector extension), lowered by each clone to its own
// registers; unaligned and free to alias the doubles it is read from.
template <int W>
struct RowOf {
  typedef double type __attribute__((vector_size(8 * W), aligned(8), may_alias));
};

}  // namespace mesh2dsp
