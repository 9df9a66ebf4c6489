#pragma once
// Structured tetrahedral meshes of a box, for tests and the benchmark: nx × ny × nz cells,
// each split into six tetrahedra around a cell diagonal (Kuhn), the diagonal mirrored in the
// upper half of each axis so the mesh is symmetric about the box's mid-planes (a strike at the
// centre of a plate then leaves modes with a nodal line through it exactly silent).
#include <Eigen/Core>
#include <filesystem>

#include "fem/tet_mesh.hpp"

namespace mesh2dsp {

TetMesh structured_box(const Eigen::Vector3d& origin_m, const Eigen::Vector3d& size_m, int nx,
                       int ny, int nz);

// Writes a TetGen .node/.ele pair (`stem`.node, `stem`.ele, 0-based) that load_tet_mesh reads.
void write_tetgen_files(const TetMesh& mesh, const std::filesystem::path& stem);

}  // namespace mesh2dsp
