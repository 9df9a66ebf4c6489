#pragma once
// Separate bodies of one mesh: each free body has its own six rigid-body modes, so a model of
// k bodies shows 6k zero frequencies (surface_shells.hpp says so when reading).
#include <Eigen/Core>

namespace mesh2dsp {

// The number of connected components of the elements (rows of node indices, any width), over
// the nodes some element uses.
int count_connected_bodies(const Eigen::MatrixXi& elements, Eigen::Index node_count);

}  // namespace mesh2dsp
