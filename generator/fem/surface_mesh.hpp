#pragma once
// Closed triangle surface meshes: reading (OBJ, STL ascii/binary, OFF, PLY with faces or triangle
// strips, glTF 2.0) and the checks a surface must pass before tetrahedralization.
#include <Eigen/Core>
#include <filesystem>
#include <string>

#include "util/error.hpp"

namespace mesh2dsp {

struct SurfaceMesh {
  Eigen::MatrixXd vertices;  // n × 3, metres
  Eigen::MatrixXi faces;     // m × 3, counter-clockwise seen from outside once checked
};

// Reads a triangle mesh by extension (.obj, .stl, .off, .ply, .gltf, .glb; case-insensitive) and multiplies
// coordinates by `scale`. Polygons are fan-triangulated. Vertex indices follow the file's own
// order (for STL, which has none, the order of first appearance of each exact position), so
// `--excite vertex:I` means vertex I of the file. Throws mesh2dsp::Error naming file and problem.
SurfaceMesh read_surface_mesh(const std::filesystem::path& path, double scale = 1.0);

// Checks, in this order, each failure one mesh2dsp::Error naming the problem and where:
// finite coordinates; no face repeating a vertex, no degenerate (zero-area) face; every edge in
// exactly two faces ("edge (12, 57) is shared by 3 faces" / "... by 1 face (hole)"); manifold
// at vertices (one fan of faces around each vertex); consistent orientation (each edge used
// once in each direction); positive enclosed volume — a consistently inverted mesh is flipped
// in place with a notice. Unreferenced vertices are reported as an error too (they would become
// free-floating nodes). Several shells go through check_shells (surface_shells.hpp): cavities,
// separate bodies (ShellReport::bodies_notice), overlapping shells (an error). Self-intersections within one
// shell are left to TetGen, which detects them. Problems --repair can fix throw
// RepairableSurfaceError.
// Returns what it found about the shells; the separate-bodies notice is for the caller to
// print once (read_checked_surface_mesh does), since remeshing checks the surface again.
struct ShellReport {
  int shells = 1;  // closed shells (cavities included)
  int bodies = 1;  // separate bodies: outward shells in no material
  std::string bodies_notice;  // for more than one body: what they are and what it means
};
ShellReport check_and_orient_surface(SurfaceMesh& mesh);

// A failed check that repair_surface() (--repair) can fix: holes, duplicate vertices,
// degenerate faces, non-manifold vertices, orientation.
struct RepairableSurfaceError : Error {
  using Error::Error;
};

// read_surface_mesh, a notice when the size is implausible (mesh_units.hpp), repair_surface
// when `repair`, then check_and_orient_surface, with the file name in front of a failed
// check's message ("meshes/x.obj: surface mesh: edge (12, 57) is shared by 3 faces ..."); a
// problem --repair could fix ends with "; try --repair".
SurfaceMesh read_checked_surface_mesh(const std::filesystem::path& path, double scale = 1.0,
                                      bool repair = false);

// Signed enclosed volume (positive for outward-oriented faces), m³.
double signed_volume(const SurfaceMesh& mesh);

// Angle-weighted outward vertex normals (unit length).
Eigen::MatrixXd vertex_normals(const SurfaceMesh& mesh);

}  // namespace mesh2dsp
