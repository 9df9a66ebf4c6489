#pragma once
// The boundary-element solve's inner loops over many quadrature points at once: the
// Burton–Miller kernels of one collocation point against a batch of source points, and the
// far-field sum of one direction. Written on plain arrays (structure of arrays) with their own
// sine and cosine so that the compiler vectorises them (glibc's scalar sincos was a quarter of
// the solve's time, and std::complex products outside -ffast-math call a library routine).
#include <Eigen/Core>
#include <complex>

namespace mesh2dsp {

// Source points of one batch: positions, unit normals and quadrature weights (m²).
struct BemPoints {
  const double *x, *y, *z, *nx, *ny, *nz, *weight;
  int count;
};

// Per source point y, times its weight, with G(x, y) = e^{ikr}/(4πr), α = i·alpha_over_i:
//   k1 = ∂G/∂n_y + α ∂²G/∂n_x∂n_y   (the pressure's coefficient in collocation row x)
//   k2 = G + α ∂G/∂n_x              (the normal derivative's coefficient in row x)
// Each output is re/im arrays of `points.count`.
struct BemKernelOut {
  double *k1_re, *k1_im, *k2_re, *k2_im;
};
void burton_miller_kernels(const Eigen::Vector3d& x, const Eigen::Vector3d& normal_x, double k,
                           double alpha_over_i, const BemPoints& points, const BemKernelOut& out);

// Σ_p w_p·(−ik (d·n_p) P_p − Q_p)·e^{−ik d·(y_p − o)} over a batch of points (the far-field
// pattern's integrand, Colton & Kress 2013, Theorem 2.6, before its 1/4π), P and Q the
// pressure and its normal derivative of the element each point belongs to.
std::complex<double> far_field_sum(const Eigen::Vector3d& direction, const Eigen::Vector3d& origin,
                                   double k, const BemPoints& points, const double* p_re,
                                   const double* p_im, const double* q_re, const double* q_im);

// Rows of a complex single-precision row-major matrix (`rows` × n, as interleaved re/im floats)
// times `columns` vectors at once, each row read once for all of them (the products are bound
// by memory bandwidth). Vector c is given in two real forms of 2n floats each, at
// forms + 4n·c: (re₀, −im₀, re₁, −im₁, …) and (im₀, re₀, im₁, re₁, …), whose real dot products
// with a row are the complex product's real and imaginary parts. out[(r·columns + c)·2 + 0/1]
// is row r's re/im for vector c.
void complex_rows_times_vectors(const float* rows_data, int rows, int n, const float* forms, int columns,
                                double* out);

// sin and cos of x for |x| < 2^19, to about 1e-16 absolute (exposed for its test).
void sincos_batch(int count, const double* x, double* sin_out, double* cos_out);

}  // namespace mesh2dsp
