#include "radiation/bem_kernels.hpp"

#include <algorithm>
#include <cmath>

namespace mesh2dsp {

namespace {

constexpr double kPi = 3.14159265358979323846;

// sin and cos by Cody–Waite reduction to [−π/4, π/4] (π/2 split in a 33-bit head, exact
// against quadrant counts below 2^20, and its tail) and the minimax polynomials of fdlibm's
// __kernel_sin/__kernel_cos (Sun Microsystems 1993). Branch-free, so a loop of it vectorises.
// (Not glibc's vector sincos, libmvec: GCC calls it only under -ffast-math, whose other
// assumptions — no NaN, no infinity, reassociation — the solve's checks cannot take.)
inline void sincos_poly(double x, double& s, double& c) {
  constexpr double kTwoOverPi = 6.36619772367581382433e-01;
  constexpr double kPio2Head = 1.57079632673412561417e+00, kPio2Tail = 6.07710050650619224932e-11;
  constexpr double kRound = 6755399441055744.0;  // 1.5·2^52: adding it rounds to an integer
  const double q = (x * kTwoOverPi + kRound) - kRound;
  const double r = (x - q * kPio2Head) - q * kPio2Tail;
  const double z = r * r;
  const double sr =
      r + r * z *
              (-1.66666666666666324348e-01 +
               z * (8.33333333332248946124e-03 +
                    z * (-1.98412698298579493134e-04 +
                         z * (2.75573137070700676789e-06 +
                              z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10)))));
  const double cr =
      1.0 - 0.5 * z +
      z * z *
          (4.16666666666666019037e-02 +
           z * (-1.38888888888741095749e-03 +
                z * (2.48015872894767294178e-05 +
                     z * (-2.75573143513906633035e-07 +
                          z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))));
  // The quadrant's swap and signs as arithmetic, not selects: GCC leaves a loop with selects
  // here unvectorised ("control flow in loop").
  const int n = static_cast<int>(q);
  const double swap = n & 1;
  const double sign_s = 1.0 - (n & 2), sign_c = 1.0 - ((n + 1) & 2);
  s = sign_s * (sr * (1 - swap) + cr * swap);  // exact: one product is 0, the other unchanged
  c = sign_c * (cr * (1 - swap) + sr * swap);
}

}  // namespace

// (The loops below vectorise only without errno from sqrt: CMakeLists.txt compiles this file
// with -fno-math-errno, which changes no result.)
// AVX2 + FMA where the processor has it, plain x86-64 otherwise.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MESH2DSP_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MESH2DSP_CLONES
#endif

MESH2DSP_CLONES
void sincos_batch(int count, const double* x, double* s, double* c) {
#pragma omp simd
  for (int p = 0; p < count; ++p) sincos_poly(x[p], s[p], c[p]);
}

MESH2DSP_CLONES
void burton_miller_kernels(const Eigen::Vector3d& x, const Eigen::Vector3d& normal_x, double k,
                           double a, const BemPoints& pts, const BemKernelOut& out) {
  // G' = G(ik − 1/r), G'' = G(−k² − 2ik/r + 2/r²), e = (y − x)/r (as bem.cpp's scalar kernels),
  // complex arithmetic written out in real and imaginary parts.
  const double x0 = x.x(), x1 = x.y(), x2 = x.z();
  const double m0 = normal_x.x(), m1 = normal_x.y(), m2 = normal_x.z();
  const double k2 = k * k, inv4pi = 1.0 / (4 * kPi);
#pragma omp simd
  for (int p = 0; p < pts.count; ++p) {
    const double d0 = pts.x[p] - x0, d1 = pts.y[p] - x1, d2 = pts.z[p] - x2;
    const double r = std::sqrt(d0 * d0 + d1 * d1 + d2 * d2), inv_r = 1.0 / r;
    const double en_x = (d0 * m0 + d1 * m1 + d2 * m2) * inv_r;
    const double en_y = (d0 * pts.nx[p] + d1 * pts.ny[p] + d2 * pts.nz[p]) * inv_r;
    const double nn = m0 * pts.nx[p] + m1 * pts.ny[p] + m2 * pts.nz[p];
    double sn, cs;
    sincos_poly(k * r, sn, cs);
    const double w = pts.weight[p] * inv4pi * inv_r;
    const double gr = w * cs, gi = w * sn;  // weight·G
    const double g1r = -gr * inv_r - gi * k, g1i = gr * k - gi * inv_r;
    const double ar = 2 * inv_r * inv_r - k2, ai = -2 * k * inv_r;
    const double g2r = gr * ar - gi * ai, g2i = gr * ai + gi * ar;
    const double t = (en_x * en_y - nn) * inv_r;
    const double hr = -g2r * en_x * en_y + g1r * t, hi = -g2i * en_x * en_y + g1i * t;  // ∂²G
    // α·z = i·a·z = (−a·z_i, a·z_r).
    out.k1_re[p] = g1r * en_y - a * hi;
    out.k1_im[p] = g1i * en_y + a * hr;
    out.k2_re[p] = gr + a * g1i * en_x;  // ∂G/∂n_x = −G'·e·n_x
    out.k2_im[p] = gi - a * g1r * en_x;
  }
}

MESH2DSP_CLONES
void complex_rows_times_vectors(const float* a, int rows, int n, const float* forms, int columns, double* out) {
  // The row in chunks that stay in the L1 cache while every vector's two dot products pass
  // over them; float sums per chunk (the matrix itself is single precision), double across.
  constexpr int kChunk = 1024;
  const long width = 2L * n;
  for (int r = 0; r < rows; ++r) {
    const float* row = a + r * width;
    double* row_out = out + 2L * r * columns;
    for (int c = 0; c < 2 * columns; ++c) row_out[c] = 0;
    for (long t0 = 0; t0 < width; t0 += kChunk) {
      const int length = static_cast<int>(std::min<long>(kChunk, width - t0));
      for (int c = 0; c < columns; ++c) {
        const float* re_form = forms + 2 * width * c + t0;
        const float* im_form = re_form + width;
        float sum_re = 0, sum_im = 0;
#pragma omp simd reduction(+ : sum_re, sum_im)
        for (int t = 0; t < length; ++t) {
          sum_re += row[t0 + t] * re_form[t];
          sum_im += row[t0 + t] * im_form[t];
        }
        row_out[2 * c] += sum_re;
        row_out[2 * c + 1] += sum_im;
      }
    }
  }
}

MESH2DSP_CLONES
std::complex<double> far_field_sum(const Eigen::Vector3d& d, const Eigen::Vector3d& o, double k,
                                   const BemPoints& pts, const double* p_re, const double* p_im,
                                   const double* q_re, const double* q_im) {
  const double d0 = d.x(), d1 = d.y(), d2 = d.z();
  const double phase0 = k * d.dot(o);
  double sum_re = 0, sum_im = 0;
#pragma omp simd reduction(+ : sum_re, sum_im)
  for (int p = 0; p < pts.count; ++p) {
    const double dn = d0 * pts.nx[p] + d1 * pts.ny[p] + d2 * pts.nz[p];
    // −ik·dn·P − Q
    const double dr = k * dn * p_im[p] - q_re[p], di = -k * dn * p_re[p] - q_im[p];
    double sn, cs;
    sincos_poly(phase0 - k * (d0 * pts.x[p] + d1 * pts.y[p] + d2 * pts.z[p]), sn, cs);
    sum_re += pts.weight[p] * (dr * cs - di * sn);
    sum_im += pts.weight[p] * (dr * sn + di * cs);
  }
  return {sum_re, sum_im};
}

}  // namespace mesh2dsp
