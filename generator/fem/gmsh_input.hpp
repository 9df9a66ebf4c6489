#pragma once
// Gmsh .msh tetrahedral meshes (format 2.2 and 4.1, ASCII and binary), what FEM users and
// research datasets ship.
#include <filesystem>

#include "fem/tetgen_files.hpp"

namespace mesh2dsp {

// Reads the nodes and the tetrahedra (4-node, and the corners of 10/20/35/56-node ones) of a
// .msh file, coordinates times `scale`. Vertices follow the $Nodes order of the file; nodes no
// tetrahedron corner uses are dropped with a notice (as for TetGen files). Lower-dimensional
// elements (boundary triangles, lines, points) and physical groups are ignored; other volume
// elements (hexahedra, prisms, pyramids) are refused, since leaving them out would cut holes
// into the body. Format 4.0 and 1.0 are refused with a word on how to save 4.1 or 2.2. Throws
// mesh2dsp::Error naming the file, the line where it has one, and the problem.
TetMeshFile read_gmsh_mesh(const std::filesystem::path& path, double scale = 1.0);

}  // namespace mesh2dsp
