#pragma once
// A volume mesh sized by the physics, not by the input's triangles: Delaunay refinement of the
// domain the closed input surface bounds (CGAL Mesh_3), with an element size that comes from the
// wavelength and the local thickness, a bound on how far the boundary may leave the input, and
// creases followed within that bound like any other curved part (re-entrant ones, which a
// boundary fills in when it cuts them, within a bound of their own). Its surface vertices lie on the
// input surface, and every element is well shaped by construction (no self-intersection, no
// slivers after exudation), whatever the input's triangles are: a scan's 14 000 vertices, a CAD
// export's slivers or a quad-dominant scan fan-triangulated.
#include <array>
#include <functional>
#include <vector>

#include "fem/surface_mesh.hpp"
#include "fem/tet_mesh.hpp"

namespace mesh2dsp {

// The wall thickness at each vertex of a closed, outward surface, m: the distance from the
// vertex along its inward normal to the first other face hit (a ray cast through the body).
// Where nothing is hit (a ray grazing out of an open corner), the body's thickness measure
// 3·V/A stands in. Scan noise makes single rays jumpy, so each value is the median of the
// vertex's own ray and its neighbours'.
Eigen::VectorXd local_thickness(const SurfaceMesh& surface);

// The edges (vertex pairs) of a closed, outward surface that are re-entrant creases: where the
// surface folds inward (each face's far vertex above the other face's plane) with the two
// faces' normals more than `min_turn_rad` apart: a neck, a joint without a fillet, the root of
// a blade. With `vertex_scale_m` (per vertex, m), only the folds the surface still makes seen
// that far away on either side (the chord between the surface points that far along each face
// passing outside the edge): a groove or a scan's back-and-forth folds narrower than that are
// not creases at that scale. (A depth test on the two faces' far vertices also passed over a
// finely tessellated crease.)
std::vector<std::array<int, 2>> reentrant_crease_edges(const SurfaceMesh& surface, double min_turn_rad,
                                                      const Eigen::VectorXd& vertex_scale_m = {});

struct VolumeMeshOptions {
  // The largest element edge wanted at a point, m, given the local wall thickness there (m):
  // the wavelength's and the thickness's rules (fem/resolution.hpp). Called often: keep it cheap.
  std::function<double(double thickness_m)> edge_length_m;
  // How far the boundary of the mesh may leave the input surface at a point, given the local
  // thickness there, m (Mesh_3's facet distance: the sag of a boundary facet).
  std::function<double(double thickness_m)> max_boundary_distance_m;
  // The same within an element edge of a re-entrant crease (reentrant_crease_edges), where a
  // boundary that cuts the corner fills it in and stiffens what bends there; empty:
  // max_boundary_distance_m.
  std::function<double(double thickness_m)> max_crease_boundary_distance_m;
  // After refinement, collapse the edges much shorter than edge_length_m (edge_collapse.hpp):
  // for cubic elements in a walled body, whose skins need no sampling at the wall's scale.
  bool collapse_short_edges = false;
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

// The wall under the median of the surface's area (each vertex weighted by a third of its faces'
// area, so a scan's finely tessellated detail does not outvote its plain parts), over the
// diagonal of the surface's bounding box: a bell's is about 1/80, a blade's 1/230, a
// bracket's plates 1/21, a statue's or a tube's 1/12 to 1/9, a scanned cow's 1/4.
double median_wall_per_size(const SurfaceMesh& surface, const Eigen::VectorXd& vertex_thickness_m);

// Whether the body is meshed with the walls' looser cell and boundary bounds: the walls set the
// elements (walls_set_elements) and the body is walled, its median wall under 1/15 of its size
// (median_wall_per_size). Which rule sets the elements depends on the frequency: at 50 modes a
// statue scan's elements come from the shear wavelength, at 10, 20 or 30 from its limbs'
// thickness, and with the walls' bounds its modes were 1.4, 3.4 and 2.5 % off a converged
// reference (-1.7 % of its volume), against 0.28-0.39 % with the solid's. Its median wall is
// 1/12 of its size, a tube's 1/9; a bracket's plates are 1/21, a bell's 1/80, a blade's 1/230.
bool meshed_as_walls(const SurfaceMesh& surface, const Eigen::VectorXd& vertex_thickness_m,
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
