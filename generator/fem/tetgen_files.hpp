#pragma once
// TetGen tetrahedral mesh files (.node + .ele) as input, for meshes made outside mesh2dsp.
#include <Eigen/Core>
#include <filesystem>
#include <string>

namespace mesh2dsp {

struct TetMeshFile {
  // n × 3, metres (file coordinates × scale): the points the tetrahedra use, in file order.
  Eigen::MatrixXd vertices;
  // m × 4, 0-based, positively oriented: (b−a)·((c−a)×(d−a)) > 0.
  Eigen::MatrixXi tets;
};

// Reads `stem.node` and `stem.ele`, given either path (the other is found by replacing the
// extension). Coordinates are multiplied by `scale`. Indices are 0- or 1-based as the .node
// file's first point number says (the .ele file uses the same base). Ten-node (quadratic)
// elements keep their first four (corner) nodes; attributes and boundary markers are ignored;
// negatively oriented tetrahedra are flipped (two nodes swapped). Points no tetrahedron corner
// uses (10-node elements' midpoints, points TetGen left out) are dropped with a notice, since
// they would be free nodes; the notice says if that shifts the numbering. Zero-volume tetrahedra,
// indices out of range, non-finite coordinates, wrong counts and truncated files throw
// mesh2dsp::Error naming the file and line.
TetMeshFile read_tetgen_mesh(const std::filesystem::path& node_or_ele_path, double scale = 1.0);

// A tetrahedral mesh file by extension: TetGen .node/.ele or Gmsh .msh (case-insensitive).
TetMeshFile read_tet_mesh_file(const std::filesystem::path& path, double scale = 1.0);

// Shared by the tet-mesh readers. orient_tet makes tetrahedron t positively oriented and
// returns what is wrong with it ("" when nothing: a repeated node or zero volume otherwise).
std::string orient_tet(const Eigen::MatrixXd& vertices, Eigen::MatrixXi& tets, Eigen::Index t);
// Drops the points no tetrahedron uses, keeping the order, with a notice naming `source`
// (`base`: the file's first point number, for the notice).
void drop_unused_points(TetMeshFile& mesh, const std::string& source, bool quadratic,
                        long long base);

}  // namespace mesh2dsp
