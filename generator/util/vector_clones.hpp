#pragma once
// Hot loops compiled for newer instruction sets as well as the baseline x86-64, the version
// chosen when the program loads (GCC's target_clones): the binary stays portable. Each clone
// must inline what it calls (always_inline), or the callee stays baseline code.
// - MESH2DSP_CPU_CLONES: AVX2 + FMA and the baseline (the time loop's sweeps, where AVX-512 was
//   no faster).
// - MESH2DSP_VECTOR_CLONES: AVX-512 too (the Lanczos step's kernels).
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

// Eight doubles as two vectors of four. As one vector of eight, only the AVX-512 clone kept a
// row in a register: GCC 12 lowered it for the AVX2 clone through the stack, moving halves
// through general registers (store-forwarding stalls): on an AVX2-only machine the sword scan's
// 50 modes spent 5.8 s in triangular solves and 4.8 s in mass products, 1.5 and 0.5 s with two
// halves (the same modes to 7e-10). Two halves are two registers in the AVX2 and AVX-512 clones.
struct __attribute__((may_alias, aligned(8))) EightDoubles {
  typedef double Half __attribute__((vector_size(32), aligned(8), may_alias));
  Half lo, hi;
  MESH2DSP_INLINE EightDoubles& operator+=(const EightDoubles& o) {
    lo += o.lo, hi += o.hi;
    return *this;
  }
  MESH2DSP_INLINE EightDoubles& operator-=(const EightDoubles& o) {
    lo -= o.lo, hi -= o.hi;
    return *this;
  }
  MESH2DSP_INLINE EightDoubles& operator*=(double s) {
    lo *= s, hi *= s;
    return *this;
  }
  MESH2DSP_INLINE friend EightDoubles operator+(EightDoubles a, const EightDoubles& b) { return a += b; }
  MESH2DSP_INLINE friend EightDoubles operator-(EightDoubles a, const EightDoubles& b) { return a -= b; }
  MESH2DSP_INLINE friend EightDoubles operator*(double s, EightDoubles a) { return a *= s; }
  MESH2DSP_INLINE friend EightDoubles operator*(EightDoubles a, double s) { return a *= s; }
};
template <>
struct RowOf<8> {
  typedef EightDoubles type;
};

}  // namespace mesh2dsp
