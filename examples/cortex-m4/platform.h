/* What the example needs from the machine it runs on: a place for the samples, a console line,
 * a tick counter, and an exit. semihosting.c implements it on a Cortex-M (a debugger or QEMU
 * does the I/O), host.c with stdio, so the same main.cpp runs on both and the outputs compare. */
#ifndef PLATFORM_H
#define PLATFORM_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int platform_open(const char* path);  /* a file for writing on the host; < 0 on failure */
int platform_write(int handle, const void* data, unsigned bytes);  /* 0 when all was written */
void platform_close(int handle);
void platform_print(const char* text);  /* a line on the console (debugger, QEMU's stdout) */
/* A free-running counter: the core clock's cycles on a board (SysTick at the processor clock);
 * under QEMU with -icount shift=0, one tick per instructions_per_tick() instructions. */
uint64_t platform_ticks(void);
/* Ticks taken by a loop of a known number of instructions (0 on the host): what one tick is. */
uint64_t platform_calibration_ticks(uint32_t* instructions);
void platform_exit(int status) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif
#endif
