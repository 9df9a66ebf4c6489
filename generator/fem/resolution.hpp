#pragma once
// How fine the mesh must be for what is asked: the frequency the analysis has to resolve.
// A large object's 50 lowest modes may all lie far below --fmax; sizing the mesh for --fmax then
// costs 100× the elements the modes need (a 0.7 m bell: 92 000 P2 tetrahedra for modes below
// 3 kHz). So the mesh is sized for the N-th mode, estimated before meshing.
#include "fem/material.hpp"
#include "fem/surface_mesh.hpp"

namespace mesh2dsp {

// Bulk wave speeds of the material, m/s.
double pressure_wave_speed_m_s(const Material& material);
double shear_wave_speed_m_s(const Material& material);

// The object's thickness measure 3·volume/area, m: the radius for a sphere, 1.5 × the wall for
// plates and shells, within a factor 1.5 for bars. Infinite for an empty surface.
double thickness_measure(const SurfaceMesh& surface);

// Weyl's law for the elastic (Navier) operator on a body of volume V (H. Weyl, "Das
// asymptotische Verteilungsgesetz der Eigenschwingungen eines beliebig gestalteten elastischen
// Körpers", 1915): the number of modes below f is
//   N(f) ≈ (4π/3)·V·f³·(1/c_p³ + 2/c_s³).
// It is the leading term: free surfaces add modes (the Neumann correction is positive) and thin
// parts (plates, shells, bars) have many more low bending modes, so for real objects it
// over-estimates the frequency of the N-th mode. That is the safe side for mesh sizing.
double weyl_mode_count(double volume_m3, const Material& material, double frequency_hz);
double weyl_frequency_hz(double volume_m3, const Material& material, double mode_count);

// The element edge length that resolves modes up to `frequency_hz` with quadratic elements:
//  - a third of the shear wavelength (P2 elements resolve a wavelength with about three);
//  - through thin parts, half the thickness measure — unless the bending wavelength at that
//    frequency is long: P2 elements resolve bending to about 0.5 % with 14 edges per bending
//    wavelength (measured on the benchmark bar, 20 mm thick: with 17 mm edges, z1..z4 at 23, 14,
//    10 and 8 edges per wavelength are within 0.16, 0.57, 1.13 and 1.79 %), so a thin wall
//    analysed only for its low modes needs no element smaller than that.
// The bending wavelength of a plate of thickness h (Kirchhoff):
//   λ_b = √(2π·c_pl·h / (√12·f)),  c_pl = √(E / (ρ(1 − ν²))),
// with h = 2V/A (exact for a plate, smaller than the thickness for bars: the safe side).
double plate_bending_wavelength_m(const Material& material, double thickness_m, double frequency_hz);
double default_edge_length(const SurfaceMesh& surface, const Material& material, double frequency_hz);
// The same rule for a wall of thickness `wall_m` (the local thickness of a part, where the
// above takes the whole body's 2/3 · 3V/A, the wall of a plate or shell): min(λ_s/3,
// max(¾·wall, λ_b(wall)/14)).
double element_edge_length(const Material& material, double frequency_hz, double wall_m);

// The same for cubic elements in a body meshed as walls, whose skins are coarsened by edge
// collapses (edge_collapse.hpp) to a layer of elements longer than the wall is thick:
// min(λ_s/3, max(kCubicEdgePerWall·wall, λ_b(wall)/kCubicEdgesPerBendingWavelength)).
// Measured on a free 0.2 m steel plate 5 mm thick, one layer of cubic elements, 30 modes
// against a converged reference: at 20 mm in-plane (4 walls) worst 0.80 %, median 0.26 %; at
// 10 mm worst 0.049 %. On a quad-scanned sword (4.5 mm blade), 50 modes against a P2
// reference of 1.5 M DOF: 5 edges a wavelength gave 246 k DOF, worst 1.03 %, median 0.09 %;
// 5.9 gave 264 k, 0.78 % and 0.09 %.
inline constexpr double kCubicEdgePerWall = 1.5;
inline constexpr double kCubicEdgesPerBendingWavelength = 6.0;
double cubic_wall_edge_length(const Material& material, double frequency_hz, double wall_m);

// The TetGen volume bound for that edge: the volume of a regular tetrahedron.
double default_max_tet_volume(const SurfaceMesh& surface, const Material& material,
                              double frequency_hz);

// The mesh resolves modes up to `frequency_hz · kResolutionMargin` at the accuracy the default
// sizing gives (an edge of a third of the shear wavelength): the estimated N-th mode gets this
// much headroom, and a solve whose N-th mode lands above the sized frequency is refined once.
inline constexpr double kResolutionMargin = 1.5;

// The frequency the mesh is sized for when `modes` elastic modes are wanted below `fmax_hz`:
// min(fmax, margin · Weyl's estimate of the N-th mode).
double sizing_frequency_hz(double volume_m3, const Material& material, int modes, double fmax_hz);

// A sizing frequency measured on a mesh (the coarse pass's N-th mode), to six significant
// digits. The parallel assembly adds each element's entries to K and M with atomics, in an order
// that depends on the threads' timing, so the measured frequency moves in its last bits from run
// to run (a CAD bell's by 4e-12), and Delaunay refinement, asked for sizes at the last bit, made
// another mesh of the same input now and then (one vertex more or less). Rounded, the same input
// gives the same mesh but for a value within about 1e-11 of a rounding boundary.
double reproducible_frequency_hz(double measured_hz);

}  // namespace mesh2dsp
