#pragma once
// `--repair`: the usual defects of exported and scanned surfaces fixed with CGAL Polygon Mesh
// Processing, each change counted and reported.
#include <string>

#include "fem/surface_mesh.hpp"

namespace mesh2dsp {

struct SurfaceRepairReport {
  int merged_vertices = 0;      // vertices at (almost) the same position as another
  int dropped_faces = 0;        // faces repeating a vertex, duplicates of another face
  int removed_degenerate = 0;   // zero-area faces removed by edge collapses and flips
  int split_vertices = 0;       // non-manifold vertices duplicated
  int stitched_edges = 0;       // pairs of border edges sewn together
  int reoriented_faces = 0;     // faces turned to agree with their neighbours (or outwards)
  int filled_holes = 0, hole_faces = 0;
  int unfilled_holes = 0;       // holes too large to be a defect (left for the check to name)
  int unused_vertices = 0;      // vertices no face used
  bool changed() const;
  // "merged 16 duplicate vertices, filled 1 hole (+2 faces)" or "nothing to repair".
  std::string summary() const;
};

// Repairs `mesh` in place: merges vertices closer than 1e-7 of the bounding-box diagonal,
// drops faces repeating a vertex and duplicate faces, orients the faces consistently
// (duplicating non-manifold vertices), stitches matching borders, removes zero-area faces,
// fills holes whose area is at most a quarter of the surface's (triangulated and refined,
// CGAL), orients closed shells to bound a volume, and drops unused vertices. Prints the
// summary as a notice. Vertex numbers afterwards count the repaired mesh's vertices.
SurfaceRepairReport repair_surface(SurfaceMesh& mesh);

}  // namespace mesh2dsp
