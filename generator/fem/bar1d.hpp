#pragma once
// Zhu's 1-D bar element (Zhu, "Physical Based Sound Rendering: Simple Bar Element"): the smallest analytic test of the generalized eigen path.
#include <Eigen/Core>

#include "fem/assembly.hpp"

namespace mesh2dsp {

// Element mass ρAl/6·[2 1; 1 2] and stiffness EA/l·[1 −1; −1 1] (Zhu, "Sound generation of 1D bar element").
void bar1d_element_matrices(double youngs_modulus_pa, double area_m2, double density_kg_m3,
                            double length_m, Eigen::Matrix2d& stiffness, Eigen::Matrix2d& mass);

// A free-free bar of `elements` equal elements: lower triangles of K and M (one DOF per node).
FemMatrices assemble_bar1d(int elements, double youngs_modulus_pa, double area_m2,
                           double density_kg_m3, double length_m);

}  // namespace mesh2dsp
