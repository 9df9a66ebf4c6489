#pragma once
// Coarsening a tetrahedral mesh by edge collapses, toward an element edge wanted per vertex.
// What it is for: a Delaunay mesh of a thin wall keeps about one cell across the wall and
// samples each skin at about the wall's thickness, whatever size is asked (the surface must be
// sampled finer than its local feature size for refinement to recover it). Cubic elements
// need no such sampling in the wall's plane: a layer of tetrahedra a few walls long resolves
// bending (a 5 mm plate's 30 modes within 0.8 % at 20 mm). Collapsing the short edges of each
// skin along the skin turns the Delaunay mesh into such a layer: an edge across the wall joins
// the two skins through the body and is never collapsed, so the wall keeps its cells.
#include <Eigen/Core>
#include <array>
#include <functional>
#include <vector>

namespace mesh2dsp {

struct EdgeCollapseOptions {
  // The element edge wanted at each vertex, m. An edge shorter than `collapse_below` of the
  // smaller of its two ends' is collapsed when the result passes every check below.
  Eigen::VectorXd target_edge_m;
  double collapse_below = 0.8;
  // No edge made by a collapse longer than this many times the wanted edge at its ends.
  double longest_new_edge = 1.6;
  // How far a boundary vertex's removal may move the boundary, m, per vertex (the removed
  // vertex's bound), and the distance from a point to the input surface, m.
  Eigen::VectorXd max_boundary_distance_m;
  std::function<double(const Eigen::Vector3d&)> distance_to_input_m;
  // A boundary triangle made by a collapse turns from the one it replaces by at most this.
  double max_normal_turn_deg = 25;
  // Every element made: no dihedral angle above this (a sliver's approach 180°; interpolation
  // error grows without bound as the largest angle nears 180°, not as the smallest nears 0, so
  // a flat element spanning a wall is fine), and a normalised quality (tet_quality) above this.
  double max_dihedral_deg = 160;
  double min_quality = 0.02;
};

// The cells (corner indices into `vertices`, positively oriented) after collapsing; vertices
// are not moved (an edge collapses onto one of its ends, so the boundary vertices stay on the
// input surface) and the ones collapsed no longer appear. A boundary vertex collapses only
// along a boundary edge, onto a boundary vertex; the link condition keeps the mesh a manifold
// with a manifold boundary.
std::vector<std::array<int, 4>> collapse_short_edges(const Eigen::MatrixXd& vertices,
                                                     std::vector<std::array<int, 4>> cells,
                                                     const EdgeCollapseOptions& options);

// The largest dihedral angle of a tetrahedron, radians (π for a flat one).
double max_dihedral_angle_rad(const Eigen::Vector3d& a, const Eigen::Vector3d& b, const Eigen::Vector3d& c,
                              const Eigen::Vector3d& d);

}  // namespace mesh2dsp
