/* Minimal Faust architecture for the embedded compile test: the C class alone, with the UI and
 * metadata glue types it refers to (CInterface.h needs only <stdlib.h>). */
#include "faust/gui/CInterface.h"

<<includeIntrinsic>>

<<includeclass>>
