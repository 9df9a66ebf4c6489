#pragma once
// Isotropic remeshing of a closed surface: a surface much coarser than the analysis needs is
// refined before TetGen, and --surface-edge remeshes to the user's edge. Coarsening a curved
// surface cuts its chords inward, and a listener hears that (a sphere's degenerate modes split,
// every mode moves up): surface_deviation says by how much.
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

}  // namespace mesh2dsp
