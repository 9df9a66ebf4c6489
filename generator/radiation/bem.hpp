#pragma once
// Exterior acoustic radiation of a vibrating closed surface by a boundary-element solve of the
// Helmholtz equation (Burton & Miller 1971): the surface pressure from the surface's normal
// velocity at one frequency, then the pressure anywhere outside (near or far) and the far-field
// directivity as a real spherical-harmonic expansion. Plain functions on Eigen types.
//
// Conventions: time dependence e^{−iωt}; outgoing free-space Green's function
// G(x, y) = e^{ik|x−y|} / (4π|x−y|); unit normals point out of the body into the air;
// Euler's equation gives the Neumann data ∂p/∂n = iωρ·v_n. Piecewise-constant pressure on flat
// or quadratic (curved) triangles, collocation at the triangles' parametric centroids.
#include <Eigen/Core>
#include <complex>
#include <memory>
#include <vector>

#include "radiation/radiation.hpp"

namespace mesh2dsp {

// The radiating surface: a closed, outward-oriented triangle mesh, each triangle a quadratic
// (6-node) patch through its corners and one point on each edge.
struct BemSurface {
  Eigen::MatrixXd vertices;  // V × 3 (m)
  Eigen::MatrixXi faces;     // F × 3
  // Row 3j + e: the point on face j's edge from corner e to corner (e + 1) mod 3 (the edge's
  // midpoint for a flat triangle).
  Eigen::MatrixXd edge_points_m;
  // Per triangle on its patch: the collocation point (the image of the reference centroid), the
  // outward unit normal there, and the patch's area.
  TriangleGeometry geometry;
  Eigen::VectorXd diameters_m;  // longest corner-to-corner distance of each triangle
  int straightened = 0;         // curved triangles made flat as folded (bem_surface)
};
// Without edge points (an empty matrix) the triangles are flat; with them (3F × 3, rows as in
// BemSurface::edge_points_m) curved: a quadratic finite-element mesh's boundary, whose edge
// nodes lie on the object's surface, gives the solve that surface to second order instead of its
// inscribed polyhedron. Throws mesh2dsp::Error for degenerate triangles, and for triangles
// folded by their edge points unless `straighten_folded`, which makes those flat instead
// (counted in BemSurface::straightened).
BemSurface bem_surface(const Eigen::MatrixXd& vertices_m, const Eigen::MatrixXi& faces,
                       const Eigen::MatrixXd& edge_points_m = {}, bool straighten_folded = false);

struct BemOptions {
  double density_kg_m3 = kAirDensityKgM3;
  double speed_of_sound_m_s = kSpeedOfSoundMS;
  // GMRES relative residual: the matrix is held in single precision (about 1e-7), so much
  // below 1e-6 is not reachable; the discretisation's own error is ~1 %.
  double tolerance = 1e-6;
  // The hypersingular (normal-derivative) equation's share. Without it the solve is the plain
  // Helmholtz integral equation, which fails at the interior Dirichlet eigenfrequencies; kept as
  // a switch so that the tests can show that it matters.
  bool burton_miller = true;
  // Up to this many elements the dense system is factorised (LU); above it GMRES.
  int direct_below = 0;
  // GMRES's preconditioner: the matrix's diagonal blocks on spatial clusters of up to this many
  // neighbouring elements, factorised (block Jacobi); 0 for the diagonal scaling alone.
  int preconditioner_block = 128;
};

struct BemSolution {
  double wavenumber_rad_m = 0;
  Eigen::VectorXcd pressure_pa;    // per triangle
  Eigen::VectorXcd normal_derivative_pa_m;  // ∂p/∂n per triangle (= iωρ v_n)
  int iterations = 0;              // GMRES iterations; 0 for the direct solve
  bool factorised = false;         // solved by the dense LU: direct_below, or GMRES stagnated
};

// Solves for the surface pressure at `frequency_hz` given each triangle's normal velocity
// (m/s, complex amplitude). Throws mesh2dsp::Error for a non-positive frequency or sizes that
// do not match.
BemSolution bem_solve(const BemSurface& surface, double frequency_hz,
                      const Eigen::VectorXcd& normal_velocity_m_s, const BemOptions& options = {});

// The same for several velocity patterns at one frequency (one column each): the matrix is
// assembled once (modes of equal frequency, e.g. the pairs of an axisymmetric object).
std::vector<BemSolution> bem_solve_many(const BemSurface& surface, double frequency_hz,
                                        const Eigen::MatrixXcd& normal_velocities_m_s,
                                        const BemOptions& options = {});

// A sequence of solves on one surface (the modes of one object): what does not depend on the
// frequency (every element's quadrature points, the preconditioner's clusters) is prepared once,
// and the dense matrix (8F² bytes) is allocated by the first solve and overwritten by the next
// instead of allocated afresh (every page faulted in and zeroed) per frequency. Holds a copy of
// the surface. bem_solve_many is one solve of a fresh one.
class BemSolver {
 public:
  explicit BemSolver(const BemSurface& surface, const BemOptions& options = {});
  ~BemSolver();
  BemSolver(BemSolver&&) noexcept;
  BemSolver& operator=(BemSolver&&) noexcept;
  // As bem_solve_many.
  std::vector<BemSolution> solve(double frequency_hz, const Eigen::MatrixXcd& normal_velocities_m_s);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The pressure at points outside the surface (P × 3), by the representation formula.
Eigen::VectorXcd bem_field_pressure(const BemSurface& surface, const BemSolution& solution,
                                    const Eigen::MatrixXd& points_m);

// The far-field pattern F about `origin_m` in unit directions (D × 3):
// p(origin + r·d) ≈ F(d)·e^{ikr}/r as r → ∞.
Eigen::VectorXcd bem_far_field(const BemSurface& surface, const BemSolution& solution,
                               const Eigen::MatrixXd& directions, const Eigen::Vector3d& origin_m);

// Real spherical harmonics, orthonormal over the sphere (∫ Y² dΩ = 1), without the
// Condon–Shortley phase, in ACN order (index l² + l + m): Y_lm ∝ P_l^|m|(cos θ)·cos(mφ) for
// m ≥ 0 and ·sin(|m|φ) for m < 0, θ from +z, φ from +x towards +y.
Eigen::VectorXd real_spherical_harmonics(int order, const Eigen::Vector3d& direction);

// A far-field pattern as F(d) = Σ c_lm·Y_lm(d), complex coefficients in ACN order.
struct Directivity {
  int order = 0;
  Eigen::VectorXcd coefficients;  // (order + 1)² entries, Pa·m per unit of the velocity given
  std::complex<double> evaluate(const Eigen::Vector3d& direction) const;
};

// The order a far-field pattern needs: ceil(ka) + 2 for a source of radius a about the
// origin, capped at kMaxDirectivityOrder.
inline constexpr int kMaxDirectivityOrder = 16;
int directivity_order(double wavenumber_rad_m, double radius_m);

// The expansion of the far-field pattern about `origin_m` to `order`, by Gauss–Legendre ×
// trapezoidal quadrature over the sphere of directions.
Directivity bem_directivity(const BemSurface& surface, const BemSolution& solution, int order,
                            const Eigen::Vector3d& origin_m);

// Exact spherical Hankel function of the first kind h_n(x) and its derivative, for the checks.
std::complex<double> spherical_hankel1(int n, double x);
std::complex<double> spherical_hankel1_derivative(int n, double x);

}  // namespace mesh2dsp
