#include "cli/analysis_flags.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>

#include "fem/mesh_units.hpp"

#include "modal/memory_estimate.hpp"

namespace mesh2dsp {

void add_scale_options(CLI::App& c, double& scale_factor) {
  auto* scale = c.add_option("--scale", scale_factor,
                             "multiply mesh coordinates (e.g. 0.001 for millimetres)")
                    ->capture_default_str();
  // Added after --scale: CLI11 runs option callbacks in the order the options were added, so
  // --scale is set (and counted) when this one runs.
  c.add_option_function<std::string>(
       "--units",
       [&scale_factor, scale](const std::string& unit) {
         const double metres = *unit_scale(unit);  // IsMember has checked the name
         if (scale->count() > 0 && std::abs(scale_factor / metres - 1) > 1e-12)
           throw CLI::ValidationError(
               "--units", fmt::format("--units {} means --scale {:g}, but --scale {:g} was given; "
                                      "give one of them",
                                      unit, metres, scale_factor));
         scale_factor = metres;
       },
       "the mesh file's length unit: mm | cm | m | in (same as --scale 0.001 | 0.01 | 1 | 0.0254)")
      ->check(CLI::IsMember({"mm", "cm", "m", "in"}));
}

void add_analysis_options(CLI::App& c, AnalysisOptions& o) {
  c.add_option("input", o.input, "surface mesh (OBJ, STL, OFF, PLY, glTF .gltf/.glb), tetrahedral mesh (TetGen "
                 ".node/.ele, Gmsh .msh) or model")
      ->required();
  c.add_option("--material", o.material_name, "material preset")
      ->capture_default_str()
      ->each([&o](const std::string&) { o.material_given = true; });
  c.add_option("--youngs-modulus", o.material_overrides.youngs_modulus_pa, "Young's modulus E (Pa)");
  c.add_option("--poisson-ratio", o.material_overrides.poisson_ratio, "Poisson ratio nu");
  c.add_option("--density", o.material_overrides.density_kg_m3, "density rho (kg/m^3)");
  c.add_option("--rayleigh-mass", o.material_overrides.rayleigh_mass_per_s,
               "Rayleigh alpha (1/s), multiplies M");
  c.add_option("--rayleigh-stiffness", o.material_overrides.rayleigh_stiffness_s,
               "Rayleigh beta (s), multiplies K");
  add_scale_options(c, o.scale);
  c.add_flag("--repair", o.repair,
             "repair the surface first: merge duplicate vertices, drop degenerate faces, stitch "
             "borders, orient, fill small holes (CGAL), and say what changed");
  c.add_option("--modes", o.modes, "number of modes")->capture_default_str();
  c.add_option("--fmin", o.fmin_hz, "lowest frequency kept (Hz)")->capture_default_str();
  c.add_option("--fmax", o.fmax_hz, "highest frequency kept (Hz)")->capture_default_str();
  c.add_option("--element-order", o.element_order,
               "1 (linear), 2 (quadratic) or 3 (cubic tetrahedra); default: cubic for a walled body "
               "meshed for the physics (a shell, a blade: its elements run longer than the wall is "
               "thick), else quadratic")
      ->check(CLI::IsMember({1, 2, 3}));
  c.add_option("--max-tet-volume", o.max_tet_volume_m3, "largest tetrahedron volume (m^3)");
  c.add_option("--surface-edge", o.surface_edge_m,
               "remesh the surface to this edge length (m) before tetrahedralization");
  c.add_flag("--keep-surface", o.keep_surface,
             "never remesh the surface (by default a surface more than twice as fine as the "
             "analysis needs is remeshed)");
  c.add_option("--boundary-distance", o.boundary_distance_m,
               "when the volume is meshed for the physics: the distance (m) its boundary may keep "
               "from the input, instead of the bound chosen from the wall, the size and the "
               "wavelength (smaller for a reference of tighter shape; creases are rounded by about "
               "this much or more)");
  c.add_option("--element-scale", o.element_scale,
               "multiply the element edge the sizing chooses by this: 0.7 for a finer mesh to check "
               "convergence, 1.5 for a quick draft (not applied to --max-tet-volume)")
      ->capture_default_str();
  c.add_option("--resolution", o.resolution,
               "mesh sized for the modes asked (modes: the estimated N-th mode, refined once if "
               "short) or for the whole band up to --fmax (band)")
      ->capture_default_str()
      ->check(CLI::IsMember({"modes", "band"}));
  c.add_option("--fix", o.fix, "clamp vertices matching a half-space predicate, e.g. \"x<=0\"");
  c.add_option("--excite", o.excite, "auto:K | vertex:I,J,... | point:X,Y,Z;...")
      ->capture_default_str();
  c.add_option("--listener", o.listeners, "listener position X,Y,Z (may repeat)");
  c.add_option("--normalize", o.normalize, "gain normalisation: physical | per-point")
      ->capture_default_str()
      ->check(CLI::IsMember({"physical", "per-point"}));
  c.add_option("--radiation", o.radiation,
               "how the modes radiate to listeners: obrien (each surface triangle radiated with "
               "1/r and a cosine, O'Brien et al. 2001) or bem (an exterior Helmholtz "
               "boundary-element solve per mode: the acoustic short circuit, near field, "
               "diffraction; also stores each mode's far-field directivity)")
      ->capture_default_str()
      ->check(CLI::IsMember({"obrien", "bem"}));
  c.add_option("--name", o.name, "model name (default: the mesh file's stem)");
  c.add_option_function<std::string>(
      "--max-memory", [&o](const std::string& text) { o.max_memory_bytes = parse_memory_size(text); },
      "memory the eigen solve may use (e.g. 2G, 500M, bytes; default: what the machine has free; "
      "per rank with --solver slepc)");
}

void add_solver_option(CLI::App& c, std::string& solver) {
  c.add_option("--solver", solver,
               "eigen solver: default (CHOLMOD + block Lanczos, one process) or slepc (PETSc/SLEPc "
               "with MUMPS, run under mpirun -n N for several processes or machines)")
      ->capture_default_str()
      ->check(CLI::IsMember({"default", "slepc"}));
}

}  // namespace mesh2dsp
