#pragma once
// A volume mesh sized by the physics, not by the input's triangles: Delaunay refinement of the
// domain the closed input surface bounds (CGAL Mesh_3), with an element size that comes from the
// wavelength and the local thickness, a bound on how far the boundary may leave the input, and
// creases followed within that bound like any other curved part. Its surface vertices lie on the
// input surface, and every element is well shaped by construction (no self-intersection, no
// slivers after exudation), whatever the input's triangles are: a scan's 14 000 vertices, a CAD
// export's slivers or a quad-dominant scan fan-triangulated.
#include <functional>

#include "fem/surface_mesh.hpp"
#include "fem/tet_mesh.hpp"

namespace mesh2dsp {

// The wall thickness at each vertex of a closed, outward surface, m: the distance from the
// vertex along its inward normal to the first other face hit (a ray cast through the body).
// Where nothing is hit (a ray grazing out of an open corner), the body's thickness measure
// 3·V/A stands in. Scan noise makes single rays jumpy, so each value is the median of the
// vertex's own ray and its neighbours'.
Eigen::VectorXd local_thickness(const SurfaceMesh& surface);

struct VolumeMeshOptions {
  // The largest element edge wanted at a point, m, given the local wall thickness there (m):
  // the wavelength's and the thickness's rules (fem/resolution.hpp). Called often: keep it cheap.
  std::function<double(double thickness_m)> edge_length_m;
  // How far the boundary of the mesh may leave the input surface at a point, given the local
  // thickness there, m (Mesh_3's facet distance: the sag of a boundary facet).
  std::function<double(double thickness_m)> max_boundary_distance_m;
  // local_thickness(surface), when the caller has it already; computed when empty.
  Eigen::VectorXd vertex_thickness_m;
  // The bound on each cell's circumradius over its shortest edge (Delaunay refinement is
  // guaranteed to end from 2 up; lower is tried and usually ends too).
  double cell_radius_edge_bound = 3.0;
  // Below a bound of 2 refinement may not end (near sharp input features): at this many
  // vertices it stops and the mesh is made again at 3 (a million vertices is ~6 million
  // elements, far beyond what the eigen solve takes).
  std::size_t max_refinement_vertices = 1'000'000;
};

// Whether the walls set the element edge (edge_length_m of the local thickness below that of a
// thick part's, edge_length_m(∞)) at more than half of the vertices: a bell, a blade, a bracket's
// plates; not a statue or a scanned cow, whose thin parts are limbs.
bool walls_set_elements(const Eigen::VectorXd& vertex_thickness_m,
                        const std::function<double(double thickness_m)>& edge_length_m);

// The tetrahedra of the domain bounded by `surface` (closed, outward, not self-intersecting:
// check_and_orient_surface). The surface vertices of the result come first
// (TetMesh::surface_vertex_count), its boundary triangles are TetMesh::surface_faces, and
// TetMesh::input_vertices and input_faces hold the input (so `vertex:I` can still name its
// vertices, and quadratic elements place their boundary edge nodes on it).
// Throws mesh2dsp::Error when the domain yields no element.
TetMesh mesh_volume(const SurfaceMesh& surface, const VolumeMeshOptions& options);

// The point of `surface` nearest to each row of `points` (for curved quadratic boundaries).
Eigen::MatrixXd nearest_surface_points(const SurfaceMesh& surface, const Eigen::MatrixXd& points);

}  // namespace mesh2dsp
