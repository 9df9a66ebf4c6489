#include "cli/analysis_options.hpp"

#include <CLI/CLI.hpp>

#include "modal/memory_estimate.hpp"

namespace mesh2dsp {

void add_analysis_options(CLI::App& c, AnalysisOptions& o) {
  c.add_option("input", o.input, "surface mesh (OBJ, STL, OFF, PLY, TetGen .node/.ele) or model")
      ->required();
  c.add_option("--material", o.material_name, "material preset")->capture_default_str();
  c.add_option("--youngs-modulus", o.material_overrides.youngs_modulus_pa, "Young's modulus E (Pa)");
  c.add_option("--poisson-ratio", o.material_overrides.poisson_ratio, "Poisson ratio nu");
  c.add_option("--density", o.material_overrides.density_kg_m3, "density rho (kg/m^3)");
  c.add_option("--rayleigh-mass", o.material_overrides.rayleigh_mass_per_s,
               "Rayleigh alpha (1/s), multiplies M");
  c.add_option("--rayleigh-stiffness", o.material_overrides.rayleigh_stiffness_s,
               "Rayleigh beta (s), multiplies K");
  c.add_option("--scale", o.scale, "multiply mesh coordinates (e.g. 0.001 for millimetres)")
      ->capture_default_str();
  c.add_option("--modes", o.modes, "number of modes")->capture_default_str();
  c.add_option("--fmin", o.fmin_hz, "lowest frequency kept (Hz)")->capture_default_str();
  c.add_option("--fmax", o.fmax_hz, "highest frequency kept (Hz)")->capture_default_str();
  c.add_option("--element-order", o.element_order, "1 (linear) or 2 (quadratic tetrahedra)")
      ->capture_default_str()
      ->check(CLI::IsMember({1, 2}));
  c.add_option("--max-tet-volume", o.max_tet_volume_m3, "largest tetrahedron volume (m^3)");
  c.add_option("--surface-edge", o.surface_edge_m,
               "remesh the surface to this edge length (m) before tetrahedralization");
  c.add_flag("--keep-surface", o.keep_surface,
             "never remesh the surface (by default a surface more than twice as fine as the "
             "analysis needs is remeshed)");
  c.add_option("--fix", o.fix, "clamp vertices matching a half-space predicate, e.g. \"x<=0\"");
  c.add_option("--excite", o.excite, "auto:K | vertex:I,J,... | point:X,Y,Z;...")
      ->capture_default_str();
  c.add_option("--listener", o.listeners, "listener position X,Y,Z (may repeat)");
  c.add_option("--normalize", o.normalize, "gain normalisation: physical | per-point")
      ->capture_default_str()
      ->check(CLI::IsMember({"physical", "per-point"}));
  c.add_option("--name", o.name, "model name (default: the mesh file's stem)");
  c.add_option_function<std::string>(
      "--max-memory", [&o](const std::string& text) { o.max_memory_bytes = parse_memory_size(text); },
      "memory the eigen solve may use (e.g. 2G, 500M, bytes; default: what the machine has free)");
}

Material resolve_material(const AnalysisOptions& o) {
  Material m = apply_overrides(find_material_preset(o.material_name), o.material_overrides);
  validate_material(m);
  return m;
}

}  // namespace mesh2dsp
