#include "reference_job.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "analysis/analysis.hpp"
#include "fem/boundary.hpp"
#include "fem/fem_mesh.hpp"
#include "fem/mesh_input.hpp"
#include "reference.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"
#include "wav_output.hpp"

namespace mesh2dsp {
namespace {

using json = nlohmann::ordered_json;

double newmark_frequency_shift(double frequency_hz, double dt_s) {
  return newmark_discrete_mode({frequency_hz, INFINITY}, dt_s).frequency_hz / frequency_hz - 1;
}

}  // namespace

void check_reference_job(const ReferenceJob& o) {
  parse_force(o.force, o.force_amplitude);
  if (!(o.duration_s > 0) || !std::isfinite(o.duration_s))
    throw Error(fmt::format("--duration must be positive (got {} s)", o.duration_s));
  if (o.dt_s && !(*o.dt_s > 0 && std::isfinite(*o.dt_s)))
    throw Error(fmt::format("--dt must be positive (got {} s)", *o.dt_s));
  if (o.dt_s && *o.dt_s > 1.0 / o.sample_rate_hz)
    throw Error(fmt::format("--dt {} s is longer than the audio sample period {} s", *o.dt_s,
                            1.0 / o.sample_rate_hz));
  if (!(o.dc_alpha >= 0 && o.dc_alpha <= 1))
    throw Error(fmt::format("--dc-alpha must lie in [0, 1] (got {})", o.dc_alpha));
  for (const auto& l : o.analysis.listeners) parse_listener_position(l);
}

ReferenceRender render_reference_job(const ReferenceJob& o) {
  check_reference_job(o);
  const ForceProfile force = parse_force(o.force, o.force_amplitude);
  std::vector<Eigen::Vector3d> given_listeners;
  for (const auto& l : o.analysis.listeners) given_listeners.push_back(parse_listener_position(l));
  const Material material = resolve_material(o.analysis);
  std::vector<HalfSpace> fix;
  for (const auto& f : o.analysis.fix) fix.push_back(parse_half_space(f));
  const TetMesh tets = load_tet_mesh(o.analysis.input, material, mesh_input_options(o.analysis));
  const FemMesh fem = make_fem_mesh(tets, element_order_for(o.analysis, tets));
  const std::vector<bool> clamped = fix.empty() ? std::vector<bool>{} : clamped_nodes(fem.nodes, fix);
  std::vector<bool> clamped_vertices;
  if (!clamped.empty()) clamped_vertices.assign(clamped.begin(), clamped.begin() + tets.vertices.rows());

  ReferenceSettings settings;
  settings.sample_rate_hz = o.sample_rate_hz;
  settings.duration_s = o.duration_s;
  settings.dt_s = o.dt_s;
  if (o.oversampling > 0) settings.dt_s = 1.0 / (o.oversampling * static_cast<double>(o.sample_rate_hz));
  settings.single_precision = o.single_precision;
  settings.max_memory_bytes = o.analysis.max_memory_bytes;
  settings.fmax_hz = o.analysis.fmax_hz;
  settings.dc_alpha = o.dc_alpha;
  settings.nonlinear = o.nonlinear;
  settings.visibility = !o.no_visibility;
  settings.force = force;
  // --excite (the shared analysis option) stands in for --strike when only it is given.
  std::string strike_spec = o.strike;
  if (!o.strike_given && o.analysis.excite != "auto:8") strike_spec = o.analysis.excite;
  settings.strike = parse_strike(strike_spec, o.force_direction, tets, clamped_vertices);
  const bool default_listener_used = given_listeners.empty();
  if (default_listener_used) given_listeners.push_back(default_listener(tets));
  const Eigen::Vector3d centre =
      0.5 * (tets.vertices.colwise().minCoeff() + tets.vertices.colwise().maxCoeff()).transpose();
  for (const auto& l : given_listeners) {
    if (o.stereo) {
      const auto [left, right] = stereo_pair(l, centre);
      settings.listeners_m.push_back(left);
      settings.listeners_m.push_back(right);
    } else {
      settings.listeners_m.push_back(l);
    }
  }
  // CHOLMOD's supernodal factor solved faster than Eigen's simplicial one and than Jacobi-
  // preconditioned CG (30–140 iterations a step) at every size measured (solver/bench), so
  // auto means CHOLMOD.
  if (o.solver == "simplicial")
    settings.solver = LinearSolverKind::simplicial;
  else if (o.solver == "cg")
    settings.solver = LinearSolverKind::conjugate_gradient;
  else
    settings.solver = LinearSolverKind::cholmod_supernodal;
  settings.show_progress = true;

  ReferenceRender run;
  run.result = render_reference(tets, fem, material, clamped, settings);
  run.settings = std::move(settings);
  run.material = material;
  run.strike_spec = strike_spec;
  run.default_listener_used = default_listener_used;
  run.vertices = static_cast<int>(tets.vertices.rows());
  run.tetrahedra = static_cast<int>(tets.tets.rows());
  run.element_order = fem.order;
  run.nodes = static_cast<int>(fem.nodes.rows());
  return run;
}


void render_reference_files(const ReferenceJob& o) {
  const auto start = std::chrono::steady_clock::now();
  check_reference_job(o);  // cheap checks first, so a typo fails before tetrahedralization
  const std::filesystem::path output = o.output;
  std::filesystem::path sidecar = o.sidecar.empty() ? std::filesystem::path(output).replace_extension(".json")
                                                    : std::filesystem::path(o.sidecar);
  if (sidecar == output) sidecar += ".json";
  check_writable(output);
  check_writable(sidecar);

  const ReferenceRender run = render_reference_job(o);
  const ReferenceResult& r = run.result;
  const ReferenceSettings& settings = run.settings;
  const Material& material = run.material;
  const std::string& strike_spec = run.strike_spec;
  const bool default_listener_used = run.default_listener_used;

  json j;
  j["format"] = "mesh2dsp-reference-render";
  j["version"] = 1;
  j["command"] = o.command;
  j["output"] = output.string();
  j["mesh"] = {{"source", o.analysis.input},
               {"scale", o.analysis.scale},
               {"vertices", run.vertices},
               {"tetrahedra", run.tetrahedra},
               {"element_order", run.element_order},
               {"nodes", run.nodes},
               {"free_dof", r.free_dofs},
               {"surface_triangles", r.surface_triangles},
               {"fixed", o.analysis.fix}};
  j["material"] = {{"name", material.name},
                   {"density", material.density_kg_m3},
                   {"youngs_modulus", material.youngs_modulus_pa},
                   {"poisson_ratio", material.poisson_ratio},
                   {"rayleigh_mass", material.rayleigh_mass_per_s},
                   {"rayleigh_stiffness", material.rayleigh_stiffness_s}};
  j["strike"] = {{"spec", strike_spec},
                 {"where", settings.strike.description},
                 {"position", {settings.strike.position_m.x(), settings.strike.position_m.y(),
                               settings.strike.position_m.z()}},
                 {"direction", {settings.strike.direction.x(), settings.strike.direction.y(),
                                settings.strike.direction.z()}}};
  j["force"] = {{"spec", o.force},
                {"amplitude", o.force_amplitude},
                {"amplitude_unit", settings.force.kind == ForceKind::impulse ? "N*s" : "N"}};
  json listeners = json::array();
  for (const auto& l : settings.listeners_m) listeners.push_back({l.x(), l.y(), l.z()});
  j["listeners"] = listeners;
  j["listener_note"] = default_listener_used
                           ? "no --listener given: default listener 0.5 m from the bounding-box "
                             "centre along +z"
                           : "as given";
  j["stereo"] = o.stereo;
  j["integrator"] = {{"method", "Newmark average acceleration (implicit, consistent mass)"},
                     {"elasticity", o.nonlinear ? "St. Venant-Kirchhoff (Green strain)" : "linear"},
                     {"linear_solver", settings.solver == LinearSolverKind::simplicial
                                           ? "Eigen SimplicialLLT (AMD)"
                                           : settings.solver == LinearSolverKind::cholmod_supernodal
                                                 ? "CHOLMOD supernodal factor, serial supernodal solves"
                                                 : "conjugate gradients (Jacobi), warm-started"},
                     {"single_precision_factor", single_precision_factor(settings)},
                     {"factor_nonzeros", r.factor_nonzeros},
                     {"dt_s", r.dt_s},
                     {"dt_automatic", !o.dt_s.has_value() && o.oversampling == 0},
                     {"steps", r.steps},
                     {"frequency_shift_at_1khz", newmark_frequency_shift(1000, r.dt_s)},
                     {"frequency_shift_at_5khz", newmark_frequency_shift(5000, r.dt_s)},
                     {"frequency_shift_at_10khz", newmark_frequency_shift(10000, r.dt_s)},
                     {"frequency_shift_note", "the trapezoidal rule is the bilinear transform of every mode: "
                                              "a mode at f sounds at atan(pi f dt)/(pi dt), exactly (shown / true - 1 "
                                              "here); validate maps it back"}};
  if (o.nonlinear) j["integrator"]["max_iterations_per_step"] = r.max_iterations;
  j["audio"] = {{"sample_rate_hz", o.sample_rate_hz},
                {"duration_s", o.duration_s},
                {"lowpass_cutoff_hz", r.cutoff_hz},
                {"dc_alpha", o.dc_alpha},
                {"visibility", !o.no_visibility},
                {"unit", "eq. 10 of O'Brien et al. 2001 (Pa*m): sum of p*a*cos(theta)/r"}};
  json channels = json::array();
  for (const auto& c : r.channels) {
    double peak = 0, sum = 0;
    for (float x : c) peak = std::max(peak, static_cast<double>(std::abs(x))), sum += double(x) * x;
    channels.push_back({{"peak", peak}, {"rms", c.empty() ? 0 : std::sqrt(sum / c.size())}});
  }
  j["channels"] = channels;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  j["wall_time_s"] = {{"total", wall},
                      {"setup", r.setup_s},
                      {"factorization", r.factorization_s},
                      {"time_loop", r.integration_s},
                      {"audio_part_of_loop", r.audio_s},
                      {"per_simulated_second", r.integration_s / o.duration_s}};

  write_wav_float(output, r.channels, o.sample_rate_hz);
  write_text_atomically(sidecar, j.dump(2) + "\n");
  if (!is_quiet())
    fmt::print(stderr, "{}: {} tetrahedra (P{}), {} DOF, {} steps of {:.3g} s, {:.1f} s -> {} ({} ch), {}\n",
               std::filesystem::path(o.analysis.input).filename().string(), run.tetrahedra,
               run.element_order, r.free_dofs, r.steps, r.dt_s, wall, output.string(),
               r.channels.size(), sidecar.string());
}

}  // namespace mesh2dsp
