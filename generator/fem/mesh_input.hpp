#pragma once
// From a file on disk to a checked linear tet mesh: surface meshes are read, checked, oriented
// and tetrahedralized; TetGen .node/.ele meshes are read as they are. Shared by the generator
// and the reference solver.
#include <filesystem>
#include <optional>

#include <Eigen/Core>

#include "fem/material.hpp"
#include "fem/tet_mesh.hpp"
#include "util/stage_timer.hpp"

namespace mesh2dsp {

struct MeshInputOptions {
  double scale = 1.0;
  std::optional<double> max_tet_volume_m3;  // none: derived from size and fmax
  double fmax_hz = 20000;                   // the highest frequency analysed
  // Modes wanted: the mesh is sized for the estimated frequency of the N-th mode when that lies
  // below fmax_hz (fem/resolution.hpp). 0 sizes it for fmax_hz (what the reference solver needs).
  int modes = 0;
  // Overrides the estimate: size for this frequency (the refinement after a solve whose N-th
  // mode lay above what the first mesh was sized for).
  std::optional<double> sizing_frequency_hz;
  // Surface resolution: remesh to this edge length; none: remesh only when the surface is more
  // than twice as fine as the default edge length (with a notice); `keep_surface`: never.
  std::optional<double> surface_edge_m;
  bool keep_surface = false;
  // --element-scale: the element edge the sizing rules give, times this (below 1: finer, for a
  // convergence check; above 1: coarser, for a draft). Not applied to max_tet_volume_m3.
  double element_scale = 1.0;
  // --boundary-distance: a volume meshed for the physics leaves the input by at most this (m),
  // instead of the bound the rules choose (mesh_input.cpp). For references of a tighter shape.
  std::optional<double> boundary_distance_m;
  // The element order the mesh is for: with cubic elements (3), or when the order is left to
  // the mesh (0), a walled body's skins are coarsened to the cubic rule's edge
  // (cubic_wall_edge_length, edge_collapse.hpp) and the mesh says so (TetMesh::element_order).
  int element_order = 0;
  bool repair = false;  // --repair: repair_surface() before the checks
  // Only the frequencies are wanted (the coarse pass): a volume meshed for the physics may
  // leave the input by a tenth of its element edge instead of the analysis's tight bound.
  bool rough_boundary = false;
};

// A checked surface → the tet mesh for the analysis: sized for the frequency asked; a surface
// much finer than that (or with sliver triangles) meshed by volume for the physics
// (fem/volume_mesh.hpp), one as fine kept by TetGen, one much coarser refined first.
// Throws mesh2dsp::Error.
//
// `cache`, when given, keeps what depends on the surface alone between calls on the same
// surface (the coarse pass, then the analysis): its vertices' wall thickness (local_thickness,
// a ray cast from every vertex, about half a second for a 14 k-vertex scan).
struct SurfaceMeshingCache {
  const SurfaceMesh* surface = nullptr;  // what it was computed for (another surface recomputes)
  Eigen::VectorXd vertex_thickness_m;
};
TetMesh mesh_surface(const SurfaceMesh& surface, const Material& material,
                     const MeshInputOptions& options, StageTimer& timer,
                     SurfaceMeshingCache* cache = nullptr);

// The wall thickness at each vertex of `surface` (local_thickness): `cache`'s when it was cast
// for this surface, else cast and kept in `cache` (when given).
Eigen::VectorXd surface_wall_thickness(const SurfaceMesh& surface, SurfaceMeshingCache* cache);

// Whether mesh_surface meshes the volume for the physics from the start, for elements of
// `needed_edge_m`: a free surface (neither --keep-surface nor --surface-edge) much finer than
// that, or one with sliver triangles.
bool volume_meshed_from_the_start(const SurfaceMesh& surface, double needed_edge_m, const MeshInputOptions& options);

// The options' and the file's own checks before reading (scale, volume bound, existence).
void check_mesh_input(const std::filesystem::path& path, const MeshInputOptions& options);

// True for the tet mesh files read as they are (TetGen .node/.ele, Gmsh .msh; any case).
bool is_tet_mesh_path(const std::filesystem::path& path);

// Throws mesh2dsp::Error naming the file and the problem. When the surface was remeshed,
// TetMesh::input_vertices holds the vertices as read, so `vertex:I` can still name them.
TetMesh load_tet_mesh(const std::filesystem::path& path, const Material& material,
                      const MeshInputOptions& options, StageTimer* timer = nullptr);

}  // namespace mesh2dsp
