#pragma once
// From a file on disk to a checked linear tet mesh: surface meshes are read, checked, oriented
// and tetrahedralized; TetGen .node/.ele meshes are read as they are. Shared by the generator
// and the reference solver.
#include <filesystem>
#include <optional>

#include "fem/material.hpp"
#include "fem/tet_mesh.hpp"
#include "util/stage_timer.hpp"

namespace mesh2dsp {

struct MeshInputOptions {
  double scale = 1.0;
  std::optional<double> max_tet_volume_m3;  // none: derived from size and fmax
  double fmax_hz = 20000;                   // for the default resolution
  // Surface resolution: remesh to this edge length; none: remesh only when the surface is more
  // than twice as fine as the default edge length (with a notice); `keep_surface`: never.
  std::optional<double> surface_edge_m;
  bool keep_surface = false;
  bool repair = false;  // --repair: repair_surface() before the checks
};

// Throws mesh2dsp::Error naming the file and the problem. When the surface was remeshed,
// TetMesh::input_vertices holds the vertices as read, so `vertex:I` can still name them.
TetMesh load_tet_mesh(const std::filesystem::path& path, const Material& material,
                      const MeshInputOptions& options, StageTimer* timer = nullptr);

}  // namespace mesh2dsp
