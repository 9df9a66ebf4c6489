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

// a −= σ·b, in a's storage when b's pattern lies within a's (M's, as assembled, lies within
// K's), so no third matrix of their size is alive while K − σM is factorized (the statue
// scan's K is 69 MB); otherwise as a new matrix. Both compressed.
void subtract_scaled_in_place(SparseMatrix& a, double sigma, const SparseMatrix& b);

// The full symmetric matrix from its lower triangle (tests, small problems).
SparseMatrix symmetric_from_lower(const SparseMatrix& lower);

using RowMajorSparse = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;

// Frees a sparse matrix's storage. Eigen 3.4's `m = SparseMatrix()` keeps it (the assignment
// copies into m's arrays, which only grow, and there is no move assignment): the benchmark 5 mm
// bar's eigen solve kept K and a whole copy of M, 41 MB of its 224, that way.
template <class Sparse>
void free_sparse(Sparse& m) {
  Sparse().swap(m);
}

// An isotropic consistent mass matrix couples only equal components of two nodes, with the same
// value for x, y and z: M = Mₙ ⊗ I₃ in the DOF order 3·node + component (clamping removes whole
// nodes, so the free DOFs keep that order). A product with M then reads a third of the entries
// (Mₙ's), each applied to a node's three components. Returns Mₙ (whole, row-major) from the whole
// M, or an empty matrix when M does not have that structure.
RowMajorSparse node_mass_matrix(const RowMajorSparse& mass);
// The same from M's lower triangle as assembled, with the nodes taken in `node_order` (entry k:
// the node taken k-th; empty: as they are): no whole copy of M is made (statue: 0.7 s less).
RowMajorSparse node_mass_from_lower(const SparseMatrix& lower, const Eigen::VectorXi& node_order);

}  // namespace mesh2dsp
