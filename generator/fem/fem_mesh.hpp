#pragma once
// The finite element mesh: nodes and element connectivity for linear (4-node, P1) or
// quadratic (10-node, P2) or cubic (20-node, P3) tetrahedra built on a TetMesh. Corner nodes
// keep the TetMesh vertex indices, so surface vertex i is node i; edge (and face) nodes follow.
#include <Eigen/Core>

#include <array>
#include <vector>

#include "fem/tet_mesh.hpp"

namespace mesh2dsp {

struct FemMesh {
  int order = 2;
  Eigen::MatrixXd nodes;     // N × 3
  Eigen::MatrixXi elements;  // t × 4 (P1) or t × 10 (P2): corners 0-3, then edge nodes on
                             // (0,1) (1,2) (0,2) (0,3) (1,3) (2,3); t × 20 (P3): corners,
                             // then two nodes on each of those edges (4 + 2e nearer its first
                             // corner, 5 + 2e nearer its second), then the node of the face
                             // opposite corner k at 16 + k
  int corner_count = 0;
  // Boundary edges curved onto the input surface (P2: their node moved off the midpoint; P3:
  // its nodes on the same quadratic curve).
  int curved_edges = 0;
};

// For each node, the corners (mesh vertices) of the entity it lies on: a corner node itself, an
// edge node its edge's two ends, a P3 face node its face's three corners; −1 where fewer. For
// a fill-reducing ordering of the corners' graph that the other nodes follow.
using NodeCorners = std::vector<std::array<int, 3>>;
NodeCorners node_corners(const FemMesh& fem);

// The local corner pairs of the six P2 edge nodes, in element order.
inline constexpr int kTetEdges[6][2] = {{0, 1}, {1, 2}, {0, 2}, {0, 3}, {1, 3}, {2, 3}};

// The edge node on each edge of `faces` (triangles over the corner nodes; rows 3j + e: the edge
// from corner e to corner (e + 1) mod 3 of face j), or an empty vector for a linear mesh.
Eigen::VectorXi face_edge_nodes(const FemMesh& fem, const Eigen::MatrixXi& faces);

// P3: the P2 mesh's map, its nodes at the thirds of each (possibly curved) edge and at the
// faces' centres, so the cubic elements have the quadratic ones' curved boundary.
// P2: when the tet mesh's boundary approximates an input surface (TetMesh::input_faces), the
// edge nodes of boundary edges are placed on that surface (isoparametric curved boundary), so
// coarse elements follow its curvature; an edge whose node would move by more than a third of
// its length, or fold an element, stays straight.
FemMesh make_fem_mesh(const TetMesh& tets, int order);

}  // namespace mesh2dsp
