#pragma once
// A graph partition of a FEM mesh's nodes for the distributed eigen solve (--solver slepc): each
// rank owns one part's rows, so only the parts' boundaries couple ranks. METIS's multilevel k-way
// partitioner (Karypis & Kumar 1998) on the node graph (two nodes adjacent when they share an
// element), the partitioner PETSc itself would call.
#include <Eigen/Core>
#include <vector>

namespace mesh2dsp {

// The part (0 .. parts-1) of each of `node_count` nodes; `elements` index nodes (one row per
// element, any node count). Parts are balanced within METIS's default 3 %. Returns an empty
// vector when METIS fails or leaves a part empty (the caller keeps its own partition then).
std::vector<int> partition_nodes(const Eigen::MatrixXi& elements, int node_count, int parts);

// Graph edges (node pairs sharing an element) whose ends lie in different parts.
long long cut_edges(const Eigen::MatrixXi& elements, int node_count, const std::vector<int>& part);

}  // namespace mesh2dsp
