#pragma once
// Linear tetrahedral meshes: tetrahedralization of a checked surface with the TetGen library,
// and the element-quality check that rejects near-zero-volume elements (which silently give
// wrong modes in Mesh2Faust on the bowl and bar_2p5mm benchmark meshes).
#include <Eigen/Core>
#include <optional>

#include "fem/surface_mesh.hpp"

namespace mesh2dsp {

struct TetMesh {
  Eigen::MatrixXd vertices;     // n × 3; the first `surface_vertex_count` are the surface's own
  Eigen::MatrixXi tets;         // t × 4, positively oriented
  Eigen::MatrixXi surface_faces;  // boundary triangles, outward, indices into `vertices`
  int surface_vertex_count = 0;
  // The surface vertices as read when the surface was remeshed before meshing (empty when the
  // input surface was kept: then surface vertex i is input vertex i).
  Eigen::MatrixXd input_vertices;
  // The input's triangles over input_vertices, when the analysis surface only approximates
  // the input (a volume mesh sized by the physics, a remesh): quadratic elements then place
  // their boundary edge nodes on it (fem_mesh.hpp). Empty: the boundary is the input's own.
  Eigen::MatrixXi input_faces;
  // The highest frequency the mesh was sized to resolve, Hz (0: not known, a tet mesh file).
  double resolved_frequency_hz = 0;
  // The element order the mesh was made for: 3 when a walled body's skins were coarsened for
  // cubic elements (edge_collapse.hpp), whose elements are too long along the walls for
  // quadratic ones; 0 when any order suits it.
  int element_order = 0;
  // Points TetGen added on the surface to mesh sliver triangles (0 when it kept it as it was).
  int surface_steiner_points = 0;
};

struct TetrahedralizeOptions {
  std::optional<double> max_tet_volume_m3;  // none: no volume bound (fem/resolution.hpp sizes it)
  double radius_edge_ratio = 1.5;           // TetGen -q bound
  double min_dihedral_deg = 12;             // TetGen -q second bound
  // -Y: keep the surface triangles as they are (every surface vertex a node, nothing added).
  // Off, TetGen may split surface triangles with points on them — the shape stays exactly the
  // same, and sliver triangles (CAD and STL exports) stop forcing flat tetrahedra.
  bool keep_surface_triangles = true;
};

// Tetrahedralizes with TetGen ("pq…a…YQ": PLC, quality bound, volume bound, surface preserved
// so every surface vertex stays a node and no Steiner point lands on the surface; without Y
// when keep_surface_triangles is off: then the input vertices still come first, in order).
// TetGen's failures (self-intersecting surface, tiny features, …) become mesh2dsp::Error.
TetMesh tetrahedralize(const SurfaceMesh& surface, const TetrahedralizeOptions& options);

// A tet mesh given directly (TetGen .node/.ele); boundary faces are extracted and oriented.
TetMesh tet_mesh_from_elements(Eigen::MatrixXd vertices, Eigen::MatrixXi tets);

// Signed volume of element t (positive when positively oriented), m³.
double signed_tet_volume(const Eigen::MatrixXd& vertices, const Eigen::MatrixXi& tets, int t);

// Normalised quality in [0, 1]: 6√2·V / ℓ_rms³ (1 for a regular tetrahedron, 0 for a flat one).
double tet_quality(const Eigen::Matrix<double, 4, 3>& corners);

struct TetQualityReport {
  double min_quality = 1;
  int worst_tet = -1;
  int near_degenerate = 0;  // below the rejection threshold
};
TetQualityReport tet_quality_report(const TetMesh& mesh, double reject_below);

// Below this normalised quality an element is too flat to solve (its stiffness is dominated by
// round-off: Mesh2Faust's negative eigenvalues on the bowl and bar_2p5mm benchmark meshes).
inline constexpr double kRejectTetQuality = 1e-3;

// Throws mesh2dsp::Error when any element is inverted or has quality below `reject_below`.
void check_tet_quality(const TetMesh& mesh, double reject_below = kRejectTetQuality);

}  // namespace mesh2dsp
