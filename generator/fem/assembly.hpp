#pragma once
// Global stiffness K and consistent mass M (3 DOF per node, DOF 3·node + component).
// Only the lower triangle is stored: both are symmetric, and CHOLMOD reads one triangle, which
// halves the memory.
#include <Eigen/SparseCore>

#include "fem/fem_mesh.hpp"
#include "fem/material.hpp"

namespace mesh2dsp {

using SparseMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

struct FemMatrices {
  SparseMatrix stiffness;  // lower triangle
  SparseMatrix mass;       // lower triangle
};

FemMatrices assemble_fem_matrices(const FemMesh& mesh, const Material& material);

// Throws Error naming the first inverted or flat tetrahedron (assembly checks it; so does the
// distributed assembly of the SLEPc solver, which does not call assemble_fem_matrices).
void check_element_orientation(const FemMesh& mesh);

// The full symmetric matrix from its lower triangle (tests, small problems).
SparseMatrix symmetric_from_lower(const SparseMatrix& lower);

}  // namespace mesh2dsp
