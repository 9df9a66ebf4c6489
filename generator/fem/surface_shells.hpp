#pragma once
// Meshes with several closed shells: a cavity (an inward shell inside the material), separate
// bodies that touch nothing, and shells that overlap (refused).
#include "fem/surface_mesh.hpp"

namespace mesh2dsp {

// For a surface that passed the edge, manifold and orientation checks, with outward total
// volume: throws mesh2dsp::Error when two shells intersect or touch, or when one lies inside
// another's material (naming both shells), or when an inward (cavity) shell is not inside
// any material or an outward one just inside (RepairableSurfaceErrors: --repair orients them
// to bound a volume). Separate bodies are counted and described in the report.
// One shell: returns at once.
ShellReport check_shells(const SurfaceMesh& mesh);

}  // namespace mesh2dsp
