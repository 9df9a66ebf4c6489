#include "analysis/analysis_options.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "util/error.hpp"

namespace mesh2dsp {

Material resolve_material(const AnalysisOptions& o) {
  Material m = apply_overrides(find_material_preset(o.material_name), o.material_overrides);
  validate_material(m);
  return m;
}

namespace {

void check_one_of(const std::string& option, const std::string& value, std::initializer_list<const char*> allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return;
  std::string list;
  for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  throw Error(fmt::format("{}: \"{}\" is not one of {}", option, value, list));
}

}  // namespace

void check_analysis_options(const AnalysisOptions& o) {
  // What the command line's validators check, for callers that fill the struct themselves.
  if (o.element_order < 0 || o.element_order > 3)
    throw Error(fmt::format("--element-order: {} is not 1 (linear), 2 (quadratic) or 3 (cubic)",
                            o.element_order));
  check_one_of("--resolution", o.resolution, {"modes", "band"});
  check_one_of("--normalize", o.normalize, {"physical", "per-point"});
  check_one_of("--solver", o.solver, {"default", "slepc"});
  check_one_of("--radiation", o.radiation, {"obrien", "bem"});
  if (!(o.max_memory_bytes >= 0)) throw Error("--max-memory must not be negative");
}

int element_order_for(const AnalysisOptions& o, const TetMesh& tets) {
  if (o.element_order != 0) return o.element_order;
  return tets.element_order != 0 ? tets.element_order : 2;
}

MeshInputOptions mesh_input_options(const AnalysisOptions& o) {
  MeshInputOptions mesh;
  mesh.scale = o.scale;
  mesh.repair = o.repair;
  mesh.max_tet_volume_m3 = o.max_tet_volume_m3;
  mesh.fmax_hz = o.fmax_hz;
  mesh.surface_edge_m = o.surface_edge_m;
  mesh.keep_surface = o.keep_surface;
  mesh.element_scale = o.element_scale;
  mesh.element_order = o.element_order;
  mesh.boundary_distance_m = o.boundary_distance_m;
  return mesh;
}

}  // namespace mesh2dsp
