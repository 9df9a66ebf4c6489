#pragma once
// Excitation points and their gains: gainₙ = φₙ(x)·d for the mass-normalised shape
// φₙ and the strike direction d (the outward surface normal by default).
#include <Eigen/Core>
#include <array>
#include <string>
#include <vector>

#include "fem/tet_mesh.hpp"
#include "modal/modal_model.hpp"

namespace mesh2dsp {

// "auto:K" (K surface vertices spread by farthest-point sampling), "vertex:I,J,…" (surface
// vertex indices) or "point:X,Y,Z;…" (nearest surface vertex to each point). Throws
// mesh2dsp::Error on a malformed spec or an index that is not a surface vertex.
std::vector<int> select_excitation_vertices(const std::string& spec, const TetMesh& mesh);

// A notice naming the chosen vertices that lie on an edge or corner of the surface, where the
// strike direction (the normal) is the average of the faces' normals there. For points the
// user picked (vertex:, point:), not for auto: sampling.
void notice_edge_or_corner_excitations(const std::vector<int>& vertices, const TetMesh& mesh);

// Surface vertices spread evenly: farthest-point sampling from the vertex farthest from the
// centroid (deterministic), over the smooth surface vertices (face interiors, not edges and
// corners) when there are at least `count` of them.
std::vector<int> farthest_point_samples(const TetMesh& mesh, int count);

// True for surface vertices whose incident faces all lie within max_angle_rad of the vertex's
// (angle-weighted) normal.
std::vector<bool> smooth_surface_vertices(const TetMesh& mesh, double max_angle_rad);

// One excitation per vertex with gains from the shapes (3N × modes over all nodes; corner
// node i is mesh vertex i), struck along the angle-weighted normal (vertex_normals). `normalization`: "physical" keeps φ·d as it is; "per-point"
// scales each point's gains so the largest magnitude is 1 (Mesh2Faust's practice).
std::vector<ModalExcitation> excitation_gains(const std::vector<int>& vertices, const TetMesh& mesh,
                                              const Eigen::MatrixXd& shapes,
                                              const std::string& normalization);

// Triangles over the excitation points (indices into `points`) for the barycentric gain
// interpolation of a moving contact (van den Doel & Pai, "Modal Synthesis for Vibrating Objects",
// 2003, section 2.3 and Fig. 4: gains at sampled locations, interpolated over a triangulation of
// them), over the surface itself: the dual of the points' geodesic Voronoi regions on the
// surface mesh (a restricted Delaunay triangulation), so neighbours are neighbours along the
// surface and no triangle crosses the interior; triangles whose points face apart (normals more
// than 90° apart) are left out. `points[i].vertex` are vertices of `mesh`. Empty for fewer than
// three points.
std::vector<std::array<int, 3>> triangulate_excitations(const std::vector<ModalExcitation>& points,
                                                        const TetMesh& mesh);

}  // namespace mesh2dsp
