#pragma once
// Hot loops compiled for AVX-512 and AVX2 as well as the baseline x86-64, the version chosen when
// the program loads: the binary stays portable, and on this project's 2-core Xeon a row of eight
// doubles is one register. Each clone must inline what it calls (always_inline), or the callee
// stays baseline code. Off where GCC's ifunc clones are unavailable or get in the sanitizers' way.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define MESH2DSP_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
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
