#include "cli/analysis.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "fem/boundary.hpp"
#include "fem/fem_mesh.hpp"
#include "fem/mesh_input.hpp"
#include "modal/excitation.hpp"
#include "modal/modal_analysis.hpp"
#include "util/error.hpp"

namespace mesh2dsp {

bool is_modal_model_path(const std::string& path) {
  return path.ends_with(".json") || path.ends_with(".JSON");
}

ModalModel analyze_mesh(const AnalysisOptions& o, AnalysisReport* report) {
  AnalysisReport local;
  AnalysisReport& r = report ? *report : local;
  const Material material = resolve_material(o);
  std::vector<HalfSpace> fix;
  for (const auto& f : o.fix) fix.push_back(parse_half_space(f));
  if (!o.listeners.empty())
    throw Error("--listener gains are not computed yet; they arrive with the radiation model");

  MeshInputOptions mesh_options;
  mesh_options.scale = o.scale;
  mesh_options.max_tet_volume_m3 = o.max_tet_volume_m3;
  mesh_options.fmax_hz = o.fmax_hz;
  mesh_options.surface_edge_m = o.surface_edge_m;
  mesh_options.keep_surface = o.keep_surface;
  const TetMesh tets = load_tet_mesh(o.input, material, mesh_options, &r.timer);
  // Parse the excitation before the expensive solve, so a typo fails fast.
  const auto excite_vertices = select_excitation_vertices(o.excite, tets);

  r.timer.start("fem mesh");
  const FemMesh fem = make_fem_mesh(tets, o.element_order);
  r.timer.stop();
  ModalAnalysisRequest request;
  request.modes = o.modes;
  request.fmin_hz = o.fmin_hz;
  request.fmax_hz = o.fmax_hz;
  request.fix = fix;
  const ModalAnalysisResult modes = analyze_modes(fem, material, request, &r.timer);

  ModalModel model;
  model.name = o.name.empty() ? std::filesystem::path(o.input).stem().string() : o.name;
  model.mesh.source = o.input;
  model.mesh.vertices = static_cast<int>(tets.vertices.rows());
  model.mesh.tetrahedra = static_cast<int>(tets.tets.rows());
  model.mesh.element_order = o.element_order;
  model.mesh.scale = o.scale;
  model.material = material;
  model.analysis.fmin_hz = o.fmin_hz;
  model.analysis.fmax_hz = o.fmax_hz;
  model.analysis.requested_modes = o.modes;
  model.analysis.fixed = o.fix;
  model.analysis.normalization = o.normalize;
  for (double lambda : modes.eigenvalues) model.modes.push_back({0, 0, 0, lambda});
  model.excitations = excitation_gains(excite_vertices, tets, modes.shapes, o.normalize);
  apply_rayleigh_damping(model);

  r.tet_vertices = model.mesh.vertices;
  r.tetrahedra = model.mesh.tetrahedra;
  r.dof = modes.dof;
  r.rigid_modes = modes.rigid_modes;
  r.solved = true;
  return model;
}

ModalModel load_or_analyze(const AnalysisOptions& o, bool material_given_explicitly,
                           AnalysisReport* report) {
  if (!is_modal_model_path(o.input)) return analyze_mesh(o, report);
  ModalModel model = read_modal_model(o.input);
  if (material_given_explicitly || o.material_overrides.any()) {
    Material m = material_given_explicitly ? find_material_preset(o.material_name) : model.material;
    m = apply_overrides(m, o.material_overrides);
    retune_material(model, m);
  }
  if (!o.name.empty()) model.name = o.name;
  return model;
}

std::string summary_line(const ModalModel& model, const AnalysisReport& r) {
  const double lo = model.modes.empty() ? 0 : model.modes.front().frequency_hz;
  const double hi = model.modes.empty() ? 0 : model.modes.back().frequency_hz;
  if (!r.solved)
    return fmt::format("{}: re-tuned to {}, {} modes {:.1f}-{:.1f} Hz", model.name,
                       model.material.name, model.modes.size(), lo, hi);
  return fmt::format("{}: {} vertices, {} tetrahedra (P{}), {} DOF, {} modes {:.1f}-{:.1f} Hz, {:.2f} s",
                     model.name, r.tet_vertices, r.tetrahedra, model.mesh.element_order, r.dof,
                     model.modes.size(), lo, hi, r.timer.total_s());
}

}  // namespace mesh2dsp
