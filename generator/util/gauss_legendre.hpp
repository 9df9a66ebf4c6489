#pragma once
// Gauss–Legendre quadrature: the boundary-element integrals and the plate theory's Legendre
// series share it.
#include <vector>

namespace mesh2dsp {

// The n nodes and weights of Gauss–Legendre quadrature on [-1, 1] (Newton's method on P_n from
// Chebyshev-like first guesses); exact for polynomials of degree 2n − 1.
void gauss_legendre(int n, std::vector<double>& nodes, std::vector<double>& weights);

}  // namespace mesh2dsp
