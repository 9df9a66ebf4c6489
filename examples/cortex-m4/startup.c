/* The least a Cortex-M4F needs before main: the vector table (initial stack pointer, reset and
 * the fault handlers), the FPU switched on, .data copied from flash, .bss zeroed and the C++
 * static constructors run. The symbols come from the linker script. */
#include <stdint.h>

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
extern void (*__init_array_start[])(void);
extern void (*__init_array_end[])(void);
int main(void);
void SysTick_Handler(void);

#define SCB_CPACR (*(volatile uint32_t*)0xE000ED88u)

void Reset_Handler(void) {
  /* CP10 and CP11 full access (Armv7-M ARM, B3.2.20) before any floating-point instruction. */
  SCB_CPACR |= 0xFu << 20;
  __asm__ volatile("dsb\n isb" ::: "memory");
  for (uint32_t *from = &_sidata, *to = &_sdata; to < &_edata;) *to++ = *from++;
  for (uint32_t* to = &_sbss; to < &_ebss;) *to++ = 0;
  for (void (**init)(void) = __init_array_start; init < __init_array_end; ++init) (*init)();
  main();
  for (;;) {
  }
}

/* A fault stops here; a debugger shows where it came from. */
void Default_Handler(void) {
  for (;;) {
  }
}

__attribute__((section(".isr_vector"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))&_estack, Reset_Handler,
    Default_Handler, /* NMI */
    Default_Handler, /* HardFault */
    Default_Handler, /* MemManage */
    Default_Handler, /* BusFault */
    Default_Handler, /* UsageFault */
    0, 0, 0, 0,
    Default_Handler, /* SVCall */
    Default_Handler, /* DebugMonitor */
    0,
    Default_Handler, /* PendSV */
    SysTick_Handler,
};
