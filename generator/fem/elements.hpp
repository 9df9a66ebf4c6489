#pragma once
// Element matrices of linear isotropic elasticity on straight-sided tetrahedra.
// DOF order inside an element: node-major, (node a, component i) → 3a + i.
#include <Eigen/Core>

namespace mesh2dsp {

using TetCorners = Eigen::Matrix<double, 4, 3>;
using P2Nodes = Eigen::Matrix<double, 10, 3>;  // corners, then edge nodes in FemMesh order
using P3Nodes = Eigen::Matrix<double, 20, 3>;  // corners, two nodes an edge, a node a face

// Gradients of the four barycentric coordinates (rows) and the signed volume.
double barycentric_gradients(const TetCorners& x, Eigen::Matrix<double, 4, 3>& grad);

// P1 (4-node): constant strain; consistent mass ρV/20·(1 + δ_ab) per component.
void p1_element_matrices(const TetCorners& x, double lambda, double mu, double density,
                         Eigen::Matrix<double, 12, 12>& stiffness,
                         Eigen::Matrix<double, 12, 12>& mass);

// P2 (10-node, nodes ordered as FemMesh): stiffness by the 4-point degree-2 rule, exact for
// straight edges; consistent mass in closed form (ρV/420 scalar matrix ⊗ I₃).
void p2_element_matrices(const TetCorners& x, double lambda, double mu, double density,
                         Eigen::Matrix<double, 30, 30>& stiffness,
                         Eigen::Matrix<double, 30, 30>& mass);

// P2 on an element whose edge nodes may lie off their edges' midpoints (a curved boundary that
// follows the input surface): isoparametric, integrated with a 14-point degree-5 rule. An
// element whose edge nodes are all at the midpoints gets the straight-sided matrices above.
void p2_element_matrices(const P2Nodes& x, double lambda, double mu, double density,
                         Eigen::Matrix<double, 30, 30>& stiffness,
                         Eigen::Matrix<double, 30, 30>& mass);

// The smallest Jacobian determinant of the element's quadratic map over its corners and the
// degree-5 rule's points, divided by that of its straight-sided (corner) map: 1 for a straight
// element, ≤ 0 for one that folds over.
double p2_min_jacobian_ratio(const P2Nodes& x);

// P3 (20-node cubic Lagrange, nodes ordered as FemMesh): isoparametric, so an element whose
// nodes FemMesh placed on a curved P2 element's map has that map exactly. Stiffness by a
// degree-5 rule (exact for straight sides, where ∇N·∇N is quartic), mass by a 64-point
// conical product rule of degree 7 (exact for straight sides: N·N is of degree 6).
void p3_element_matrices(const P3Nodes& x, double lambda, double mu, double density,
                         Eigen::Matrix<double, 60, 60>& stiffness,
                         Eigen::Matrix<double, 60, 60>& mass);

// The P3 shape functions and their derivatives in ξ = (L1, L2, L3) at barycentric point L.
void p3_shape(const double* L, Eigen::Matrix<double, 20, 1>& n, Eigen::Matrix<double, 20, 3>& dn);

}  // namespace mesh2dsp
