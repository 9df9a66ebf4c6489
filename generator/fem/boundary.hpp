#pragma once
// Clamped boundary conditions from half-space predicates (`--fix "x<=0.0"`).
#include <Eigen/Core>
#include <string>
#include <vector>

#include "fem/assembly.hpp"

namespace mesh2dsp {

struct HalfSpace {
  int axis = 0;  // 0 = x, 1 = y, 2 = z
  bool less = true;  // "<=" / "<" when true, ">=" / ">" otherwise
  double value_m = 0;
  std::string text;
};

// Parses "x<=0.0", "y >= 0.2", "z<-1e-3" (< and <= are the same up to the tolerance).
HalfSpace parse_half_space(const std::string& text);

// Nodes inside any of the half-spaces, with a tolerance of 1e-9 of the bounding-box diagonal
// so that vertices lying on the plane count. Throws when a predicate selects no vertex.
std::vector<bool> clamped_nodes(const Eigen::MatrixXd& nodes, const std::vector<HalfSpace>& fix);

// Maps full DOFs (3·node + c) to reduced ones (−1 where clamped).
std::vector<int> free_dof_map(const std::vector<bool>& clamped, int& free_count);

// Keeps the rows and columns of free DOFs of a lower-triangular matrix.
SparseMatrix restrict_to_free(const SparseMatrix& lower, const std::vector<int>& dof_map,
                              int free_count);
// Both matrices, in place.
void restrict_to_free(FemMatrices& fem, const std::vector<int>& dof_map, int free_count);

}  // namespace mesh2dsp
