/* The header's float maths through double precision, rounded once to float: newlib (on the
 * board) and glibc (on the host) differ by an ulp in some expf/sinf/cosf results, while their
 * double functions round to the same float (both are within an ulp of a double, far below a
 * float's). With -ffp-contract=off on both builds (the M4 would fuse multiply-adds the host
 * does not), the board and the host then compute the same samples. Only coefficient and
 * contact-model code calls these, not the per-sample mode loop; on the M4 the double functions
 * are software, so leave this out of a build that does not need bit-equality with a host. */
#ifndef SAME_MATHS_H
#define SAME_MATHS_H
#include <math.h>

static inline float same_expf(float x) { return (float)exp((double)x); }
static inline float same_sinf(float x) { return (float)sin((double)x); }
static inline float same_cosf(float x) { return (float)cos((double)x); }
static inline float same_powf(float x, float y) { return (float)pow((double)x, (double)y); }

#endif
