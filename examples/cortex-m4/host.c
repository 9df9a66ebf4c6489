/* platform.h with stdio: the host build of the example, whose samples the firmware's must match. */
#include <stdio.h>
#include <stdlib.h>

#include "platform.h"

static FILE* files[4];

int platform_open(const char* path) {
  for (int i = 0; i < 4; ++i)
    if (!files[i]) return (files[i] = fopen(path, "wb")) ? i : -1;
  return -1;
}

int platform_write(int handle, const void* data, unsigned bytes) {
  return (int)(bytes - fwrite(data, 1, bytes, files[handle]));
}

void platform_close(int handle) {
  fclose(files[handle]);
  files[handle] = NULL;
}

void platform_print(const char* text) { fputs(text, stdout); }
uint64_t platform_ticks(void) { return 0; }

uint64_t platform_calibration_ticks(uint32_t* instructions) {
  *instructions = 0;
  return 0;
}

void platform_exit(int status) { exit(status); }
