/* Minimal Faust architecture for the embedded compile test: the C class alone, with the UI and
 * metadata glue types it refers to (CInterface.h needs only <stdlib.h>). */
#include "faust/gui/CInterface.h"

/* Faust's C backend leaves min/max on ints to the architecture (as its own minimal.c does). */
#define max(a, b) (((a) < (b)) ? (b) : (a))
#define min(a, b) (((a) < (b)) ? (a) : (b))

/* Faust's C API functions take a `dsp` argument some of them do not use; that is upstream's
 * generated code, not ours: everything else is held to -Wall -Wextra -Werror. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

<<includeIntrinsic>>

<<includeclass>>
