#pragma once
// Flush-to-zero for the thread that computes audio: subnormal results become 0 and subnormal
// inputs count as 0 while a ScopedFlushToZero lives (x86 MXCSR FTZ and DAZ; AArch64 FPCR FZ).
// A decaying resonance passes through the subnormal range on its way to silence, where each
// operation can cost a hundred times a normal one; the generated programs do not need those
// values (they lie 700 dB below full scale). The previous mode is restored on destruction.
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace mesh2dsp::runtime {

class ScopedFlushToZero {
 public:
  ScopedFlushToZero() {
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
    saved_ = _mm_getcsr();
    _mm_setcsr(saved_ | 0x8040u);  // FTZ (bit 15) and DAZ (bit 6)
#elif defined(__aarch64__)
    unsigned long fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    saved_ = fpcr;
    __asm__ volatile("msr fpcr, %0" : : "r"(fpcr | (1ul << 24)));  // FZ
#endif
  }
  ~ScopedFlushToZero() {
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
    _mm_setcsr(static_cast<unsigned>(saved_));
#elif defined(__aarch64__)
    __asm__ volatile("msr fpcr, %0" : : "r"(saved_));
#endif
  }
  ScopedFlushToZero(const ScopedFlushToZero&) = delete;
  ScopedFlushToZero& operator=(const ScopedFlushToZero&) = delete;

  // True when the calling thread flushes subnormals to zero now.
  static bool active() {
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
    return (_mm_getcsr() & 0x8040u) == 0x8040u;
#elif defined(__aarch64__)
    unsigned long fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    return (fpcr >> 24) & 1u;
#else
    return false;
#endif
  }

 private:
  unsigned long saved_ = 0;
};

}  // namespace mesh2dsp::runtime
