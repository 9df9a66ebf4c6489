#pragma once
// Isotropic remeshing of a closed surface that is much finer than the analysis needs, bounded
// by how far it may move the shape. The cost of the FEM grows with the surface resolution
// TetGen must keep (-Y), so a 1.7 mm scan of a 30 cm bar costs minutes where 5 mm gives the
// same modes within 0.5 %; but coarsening a curved surface cuts its chords inward, and a
// listener hears that (a sphere's degenerate modes split, every mode moves up).
#include <optional>

#include "fem/surface_mesh.hpp"

namespace mesh2dsp {

// Mean edge length of the surface, m.
double mean_edge_length(const SurfaceMesh& mesh);

// Remeshes to about `target_edge_m` with CGAL's isotropic remeshing; sharp edges (dihedral
// angle beyond 60°) are kept as constraints, so the corners and creases of the shape stay
// where they are; the vertices are then moved along their normals to keep the enclosed volume
// (coarser chords of a curved surface cut inward). The result is checked and oriented like any
// input surface.
SurfaceMesh remesh_surface(const SurfaceMesh& mesh, double target_edge_m);

// How far a remeshed surface is from the input: the largest distance of either's vertices and
// face centroids to the other surface (a symmetric Hausdorff distance sampled at those points,
// which is where a chord of a curved surface deviates most), and the relative volume change.
struct SurfaceDeviation {
  double max_distance_m = 0;
  double relative_volume_change = 0;  // (V' − V) / V
};
SurfaceDeviation surface_deviation(const SurfaceMesh& input, const SurfaceMesh& remeshed);

// How far remeshing may move the shape. A mode's frequency moves by about the relative change
// of the dimension that sets it (the size of a solid, the wall of a shell), so the distance is
// bounded by 1e-3 of the object's bounding box, 1e-2 of its thickness measure (3V/A: for a
// shell 1.5× the wall) and 1/100 of the shortest wavelength analysed; the volume change by
// 2e-3. The 5 cm test sphere then keeps its surface (a remesh at twice its edge moves it by
// 0.4 mm, its bound is 0.17 mm) and its modes; a 1.5 m scan coarsens to the wavelength.
struct RemeshBounds {
  double max_distance_m = 0;
  double max_relative_volume_change = 0;
};
RemeshBounds remesh_bounds(const SurfaceMesh& input, double shortest_wavelength_m);

bool within(const SurfaceDeviation& deviation, const RemeshBounds& bounds);

// The coarsest remesh between `target_edge_m` and the input's own resolution that stays within
// `bounds` (a few trials, the edge shrunk by the measured deviation: a chord's sag grows with
// the square of its length). None when even a remesh at twice the input's mean edge would move
// the shape too far: then the input surface is the one to mesh.
struct BoundedRemesh {
  SurfaceMesh surface;
  double edge_m = 0;
  SurfaceDeviation deviation;
};
std::optional<BoundedRemesh> remesh_within_bounds(const SurfaceMesh& input, double target_edge_m,
                                                  const RemeshBounds& bounds);

}  // namespace mesh2dsp
