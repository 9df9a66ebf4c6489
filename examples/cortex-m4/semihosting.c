/* platform.h on a Cortex-M: Arm semihosting (the host does the I/O for a halted core: QEMU with
 * -semihosting, or OpenOCD/pyOCD with a debug probe attached) and the SysTick timer. On a board
 * without a debugger, replace platform_write with your codec's DMA buffer. */
#include "platform.h"

#include <stddef.h>

/* Arm, "Semihosting for AArch32 and AArch64" (2.0), section 6: operation numbers. */
enum { SYS_OPEN = 0x01, SYS_CLOSE = 0x02, SYS_WRITE0 = 0x04, SYS_WRITE = 0x05, SYS_EXIT = 0x18 };
enum { ADP_STOPPED_APPLICATION_EXIT = 0x20026, ADP_STOPPED_RUN_TIME_ERROR = 0x20023 };

static int semihost(int operation, const void* argument) {
  register int r0 __asm__("r0") = operation;
  register const void* r1 __asm__("r1") = argument;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

static size_t length(const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  return n;
}

int platform_open(const char* path) {
  const uint32_t args[3] = {(uint32_t)path, 5 /* "wb" */, (uint32_t)length(path)};
  return semihost(SYS_OPEN, args);
}

int platform_write(int handle, const void* data, unsigned bytes) {
  const uint32_t args[3] = {(uint32_t)handle, (uint32_t)data, bytes};
  return semihost(SYS_WRITE, args);  /* the number of bytes NOT written */
}

void platform_close(int handle) {
  const uint32_t args[1] = {(uint32_t)handle};
  semihost(SYS_CLOSE, args);
}

void platform_print(const char* text) { semihost(SYS_WRITE0, text); }

void platform_exit(int status) {
  /* AArch32: the reason code itself is the argument; QEMU exits 0 for ApplicationExit, 1 else. */
  semihost(SYS_EXIT, (const void*)(status == 0 ? ADP_STOPPED_APPLICATION_EXIT : ADP_STOPPED_RUN_TIME_ERROR));
  for (;;) {
  }
}

/* SysTick (Armv7-M ARM, B3.3): 24 bits down-counting at the processor clock; the interrupt
 * counts wraps so the ticks extend to 64 bits. */
#define SYST_CSR (*(volatile uint32_t*)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t*)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t*)0xE000E018u)
static volatile uint32_t systick_wraps;

void SysTick_Handler(void) { ++systick_wraps; }

uint64_t platform_ticks(void) {
  if (!(SYST_CSR & 1u)) {
    SYST_RVR = 0xFFFFFFu;
    SYST_CVR = 0;
    SYST_CSR = 7u; /* enable, interrupt, processor clock */
    while (SYST_CVR == 0) {
    } /* the first tick loads the reload value without counting a wrap */
  }
  uint32_t wraps, count;
  do {
    wraps = systick_wraps;
    count = SYST_CVR;
  } while (wraps != systick_wraps);
  return ((uint64_t)wraps << 24) + (0xFFFFFFu - count);
}

uint64_t platform_calibration_ticks(uint32_t* instructions) {
  const uint32_t loops = 1000000u;
  uint32_t n = loops;
  const uint64_t start = platform_ticks();
  __asm__ volatile("1: subs %0, %0, #1\n bne 1b" : "+r"(n) : : "cc");
  const uint64_t ticks = platform_ticks() - start;
  *instructions = 2u * loops; /* subs + bne per loop */
  return ticks;
}
