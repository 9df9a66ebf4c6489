// Minimal Faust architecture for the agreement test harness: the C++ class alone.
#include <faust/dsp/dsp.h>
#include <faust/gui/MapUI.h>
#include <faust/gui/meta.h>

<<includeIntrinsic>>

<<includeclass>>
