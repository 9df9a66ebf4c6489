#pragma once
// Geometric non-linearity (O'Brien et al. §3.1, after O'Brien & Hodgins 1999): Green's strain
// E = ½(FᵀF − I) with the St. Venant–Kirchhoff law S = λ tr(E) I + 2μE. Its linearisation at
// rest is exactly the linear elasticity of the FEM core, so the non-linear solver only needs
// the internal force f_int(u) = Σ_e ∫ P : ∇N dV, P = F·S.
#include <Eigen/Core>

#include "fem/fem_mesh.hpp"
#include "fem/material.hpp"

namespace mesh2dsp {

// Internal elastic force (3N, full DOFs) of displacement `u` (3N). P1: one point (exact);
// P2: the FEM core's 4-point degree-2 rule, so the small-displacement limit matches its K.
// Element loop in parallel.
Eigen::VectorXd stvk_internal_force(const FemMesh& mesh, const Material& material,
                                    const Eigen::VectorXd& u);

}  // namespace mesh2dsp
