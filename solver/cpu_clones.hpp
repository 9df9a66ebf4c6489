#pragma once
// MESH2DSP_CPU_CLONES before a function compiles it twice, for x86-64-v3 (AVX2 and FMA) and for
// the baseline, and lets the loader pick the copy the CPU can run (GCC's target_clones). The
// time loop's kernels are memory- and FMA-bound: the AVX2 copy reads four doubles a lane and
// fuses each multiply-add. Only plain functions: the clones must not inline Eigen objects
// compiled for another instruction set.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MESH2DSP_CPU_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MESH2DSP_CPU_CLONES
#endif
