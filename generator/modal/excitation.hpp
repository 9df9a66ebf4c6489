#pragma once
// Excitation points and their gains (DESIGN.md): gainₙ = φₙ(x)·d for the mass-normalised shape
// φₙ and the strike direction d (the outward surface normal by default).
#include <Eigen/Core>
#include <string>
#include <vector>

#include "fem/tet_mesh.hpp"
#include "modal/modal_model.hpp"

namespace mesh2dsp {

// "auto:K" (K surface vertices spread by farthest-point sampling), "vertex:I,J,…" (surface
// vertex indices) or "point:X,Y,Z;…" (nearest surface vertex to each point). Throws
// mesh2dsp::Error on a malformed spec or an index that is not a surface vertex.
std::vector<int> select_excitation_vertices(const std::string& spec, const TetMesh& mesh);

// Surface vertices spread evenly: farthest-point sampling from the vertex farthest from the
// centroid (deterministic).
std::vector<int> farthest_point_samples(const TetMesh& mesh, int count);

// One excitation per vertex with gains from the shapes (3N × modes over all nodes; corner
// node i is mesh vertex i). `normalization`: "physical" keeps φ·d as it is; "per-point"
// scales each point's gains so the largest magnitude is 1 (Mesh2Faust's practice).
std::vector<ModalExcitation> excitation_gains(const std::vector<int>& vertices, const TetMesh& mesh,
                                              const Eigen::MatrixXd& shapes,
                                              const std::string& normalization);

}  // namespace mesh2dsp
