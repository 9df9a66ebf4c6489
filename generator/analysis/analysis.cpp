#include "analysis/analysis.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "fem/boundary.hpp"
#include "fem/fem_mesh.hpp"
#include "fem/mesh_input.hpp"
#include "fem/resolution.hpp"
#include "fem/surface_repair.hpp"
#include "fem/volume_mesh.hpp"
#include "modal/excitation.hpp"
#include "modal/modal_analysis.hpp"
#include "modal/surface_shapes.hpp"
#include "radiation/listener_gains.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {

bool is_modal_model_path(const std::string& path) {
  return path.ends_with(".json") || path.ends_with(".JSON");
}

Eigen::Vector3d parse_listener_position(const std::string& text) {
  std::array<double, 3> xyz{};
  std::stringstream ss(text);
  std::string item;
  int count = 0;
  while (std::getline(ss, item, ',')) {
    if (count == 3) break;
    char* end = nullptr;
    xyz[count] = std::strtod(item.c_str(), &end);
    if (end == item.c_str() || *end != '\0' || !std::isfinite(xyz[count])) break;
    ++count;
  }
  if (count != 3 || ss.rdbuf()->in_avail() > 0)
    throw Error(fmt::format("cannot read --listener \"{}\": expected X,Y,Z in metres", text));
  return {xyz[0], xyz[1], xyz[2]};
}

ModalAnalysisRequest analysis_request(const AnalysisOptions& o) {
  ModalAnalysisRequest request;
  request.modes = o.modes;
  request.fmin_hz = o.fmin_hz;
  request.fmax_hz = o.fmax_hz;
  for (const auto& f : o.fix) request.fix.push_back(parse_half_space(f));
  request.max_memory_bytes = o.max_memory_bytes;
  request.solver = o.solver;
  return request;
}

std::optional<double> refinement_frequency_hz(const ModalAnalysisResult& modes,
                                              const TetMesh& tets,
                                              const ModalAnalysisRequest& request) {
  const double sized_hz = tets.resolved_frequency_hz;
  if (!(sized_hz > 0) || sized_hz >= request.fmax_hz) return std::nullopt;
  // Fewer modes than asked in the band: the coarse mesh pushed some above --fmax.
  if (modes.eigenvalues.size() < request.modes) return request.fmax_hz;
  const double highest_hz = frequency_hz_of_eigenvalue(modes.eigenvalues.maxCoeff());
  if (highest_hz <= sized_hz) return std::nullopt;
  return std::min(request.fmax_hz, reproducible_frequency_hz(kResolutionMargin * highest_hz));
}

namespace {

// What the report says of a solve.
void record_solve(const ModalModel& model, const ModalAnalysisResult& modes, AnalysisReport& r) {
  r.tet_vertices = model.mesh.vertices;
  r.tetrahedra = model.mesh.tetrahedra;
  r.dof = modes.dof;
  r.rigid_modes = modes.rigid_modes;
  r.eigen_estimate = modes.estimate;
  r.solved_vectors = modes.solved_vectors;
  r.triangular_solve_s = modes.triangular_solve_s;
  r.mass_products = modes.mass_products;
  r.mass_product_s = modes.mass_product_s;
  r.solved = true;
}

// Notices and progress off for a scope (the coarse pass is an estimate, not the analysis).
class QuietScope {
 public:
  QuietScope() : was_quiet_(is_quiet()) { set_quiet(true); }
  ~QuietScope() { set_quiet(was_quiet_); }

 private:
  bool was_quiet_;
};

double mesh_volume_m3(const TetMesh& tets) {
  double volume = 0;
  for (int t = 0; t < tets.tets.rows(); ++t) volume += signed_tet_volume(tets.vertices, tets.tets, t);
  return volume;
}

}  // namespace

std::optional<double> coarse_pass_sizing_hz(const TetMeshSource& source, const AnalysisOptions& o,
                                            const Material& material,
                                            const ModalAnalysisRequest& request,
                                            const MeshInputOptions& mesh_options,
                                            AnalysisReport& r, std::optional<TetMesh>* sized_mesh,
                                            const SurfaceMesh* surface, SurfaceMeshingCache* cache) {
  // Weyl's law knows only the volume: thin walls and slender parts have far more low modes
  // than it counts (a 0.7 m bell's 50 modes lie below 3 kHz, Weyl puts the 50th above 20 kHz),
  // and for solids it is a leading term with a 1.5× margin on top (a torus wheel's 300th mode:
  // Weyl 8.8 kHz, true 6.85 kHz, mesh sized for 13.2 kHz). When the mesh it sizes is large, a
  // coarse pass finds the N-th mode instead: the surface remeshed and the interior filled at
  // about kCoarseTetsPerMode quadratic elements a mode (at least kCoarseTets), a few seconds.
  // A coarse conforming mesh is stiffer than the fine one, so its N-th mode lies above the true
  // one (Rayleigh–Ritz): sizing for it with a margin is on the safe side, and the refinement
  // check after the solve remains.
  constexpr int kCoarseTets = 1000, kCoarseTetsPerMode = 10, kWorthItTets = 3000;
  // The margin over the coarse N-th mode. P2 elements of a third of the shear wavelength at
  // 1.25× the N-th mode left the 0.8 m test block 0.67 % off, at 1.7× still 0.68 % (its 5 cm
  // surface grid coarsened to 11 cm), at 1.9× 0.18 %: solids need it. Slender and thin objects
  // need less (a torus wheel sized for 1.17× its 300th mode was 0.29 % off at worst): walled
  // bodies are told apart below; slender ones keep the solid's margin.
  constexpr double kCoarseMargin = 1.9;
  // Except for a thick solid whose N-th mode is short beside the body: when a third of the shear
  // wavelength at kThickSolidMargin × the coarse N-th mode is at most a quarter of the thickness
  // measure (3·volume/area), the elements are set by the wavelength with several across the body,
  // and P2 converges fast there (O(h^4) in the eigenvalues). Measured on the 1.5 m statue-like
  // blob at 300 modes (true 300th mode 3 042 Hz): sized for 3 945 Hz (1.3×) no mode moved more
  // than 0.10 % from the mesh sized for 5 311 Hz (1.75×), with 41 331 tets instead of 59 577 and
  // a factor of 1.8 GB instead of 3.6. The block above (thickness bound active) keeps 1.9.
  constexpr double kThickSolidMargin = 1.3;
  // And except for a walled body (a blade, a shell: meshed_as_walls), whose elements come from
  // its walls: through the wall ¾ of it, which no margin changes, or 1/14 of the bending
  // wavelength, which grows only as the inverse square root of the frequency, so a margin buys
  // little there. Measured on a quad-scanned sword (a 1.5-4.5 mm blade), 50 modes: sized for
  // 1.5× the coarse 50th mode, its modes moved at most 0.11 % (median 0.05 %) from the mesh sized
  // for 1.9×, with 74 000 tets instead of 96 000 (43 s instead of 58, 2.8 GB instead of 3.7); a
  // CAD-revolved bell 126 000 instead of 142 000 (104 s, 6.4 GB instead of 124, 7.0). Not 1.3
  // (the sword 0.18 %, 37 s): the coarse pass's rough boundary can thin a wall, and a finely drawn
  // 2 mm plate's coarse 20th mode came out 25 % low (1 122 Hz, true 1 501): at 1.3× the solve
  // found its modes above the mesh's and meshed and solved again (75 s); at 1.5× it did not (43 s,
  // within 0.1 % of a mesh sized for 3× its true 20th mode).
  constexpr double kWalledMargin = 1.5;
  // The Weyl-sized mesh is made as the analysis makes it (its notices shown, its errors the
  // analysis's own): without a gain it is the analysis mesh, not meshed again.
  // With the surface at hand, the Weyl-sized mesh's size is estimated instead of made: a
  // bell's Weyl mesh (sized for --fmax) would take longer than its whole analysis.
  std::optional<TetMesh> sized;
  double weyl_hz = 0, volume_m3 = 0;
  bool worth_it = false;
  if (surface) {
    volume_m3 = std::abs(signed_volume(*surface));
    weyl_hz = mesh_options.sizing_frequency_hz
                  ? *mesh_options.sizing_frequency_hz
                  : sizing_frequency_hz(volume_m3, material, request.modes, mesh_options.fmax_hz);
    const double edge_m = default_edge_length(*surface, material, weyl_hz);
    const double estimated_tets = volume_m3 / (edge_m * edge_m * edge_m / (6 * std::sqrt(2.0)));
    // A volume meshed for the physics is often larger than its element edge says: the solid's
    // cell and boundary bounds set it (a statue scan's 10-mode mesh, estimated at under 3 000
    // tets, had 33 000 and was made only to be thrown away after the coarse pass, 3 s of 15).
    worth_it = estimated_tets >= kWorthItTets ||
               (estimated_tets >= kWorthItTets / 10 &&
                volume_meshed_from_the_start(*surface, mesh_options.element_scale * edge_m, mesh_options));
  }
  if (!worth_it) {
    sized = source(mesh_options, &r.timer);
    weyl_hz = sized->resolved_frequency_hz;
    volume_m3 = mesh_volume_m3(*sized);
    worth_it = sized->tets.rows() >= kWorthItTets && weyl_hz > 0;
  }
  r.timer.start("coarse pass");
  std::optional<double> sizing_hz;
  double margin = kCoarseMargin;
  if (worth_it) {
    try {
      QuietScope quiet;
      const int coarse_tets = std::max(kCoarseTets, kCoarseTetsPerMode * request.modes);
      const double coarse_volume_m3 = volume_m3 / (0.8 * coarse_tets);
      MeshInputOptions coarse = mesh_options;
      coarse.sizing_frequency_hz = weyl_hz;
      coarse.max_tet_volume_m3 = coarse_volume_m3;
      coarse.rough_boundary = true;
      // A surface finer than these elements is meshed for them (mesh_input.hpp), so a scan's
      // triangles do not make the "coarse" mesh as large as the real one.
      const TetMesh tets = source(coarse, nullptr);
      ModalAnalysisRequest frequencies = request;
      frequencies.frequencies_only = true;
      // Cubic elements on the coarse mesh cost more than the estimate is worth (a bell's coarse
      // pass: 17 s in P3) and, on walls coarsened for them, put the bell's 50th mode below its
      // true frequency (1 550 against 1 948 Hz, where quadratic ones, stiffer, said 1 853); the
      // margins above were measured with quadratic ones.
      const ModalAnalysisResult found =
          analyze_modes(make_fem_mesh(tets, o.element_order == 1 ? 1 : 2), material, frequencies);
      const double highest_hz = frequency_hz_of_eigenvalue(found.eigenvalues.maxCoeff());
      // The sizing's own edge there: it is the third of the shear wavelength exactly when that
      // is at most a quarter of the thickness (the through-thickness bound is at least half).
      const SurfaceMesh boundary =
          surface ? *surface : SurfaceMesh{sized->vertices, sized->surface_faces};
      const bool thick_solid = default_edge_length(boundary, material, kThickSolidMargin * highest_hz) <=
                               thickness_measure(boundary) / 4;
      bool walled = false;
      if (!thick_solid && surface) {
        // The wall thickness is the one the meshing casts and keeps for this surface.
        walled = meshed_as_walls(*surface, surface_wall_thickness(*surface, cache), [&](double wall_m) {
          return element_edge_length(material, kWalledMargin * highest_hz, wall_m);
        });
      }
      margin = thick_solid ? kThickSolidMargin : walled ? kWalledMargin : kCoarseMargin;
      if (static_cast<int>(found.eigenvalues.size()) == request.modes &&
          margin * highest_hz < 0.9 * weyl_hz)
        sizing_hz = reproducible_frequency_hz(margin * highest_hz);
    } catch (const Error&) {
      // No estimate: the mesh stays sized by Weyl's law.
    }
  }
  if (!sizing_hz && sized_mesh && sized) *sized_mesh = std::move(*sized);
  r.timer.stop();
  if (sizing_hz)
    notice(fmt::format("a coarse pass puts mode {} near {:.0f} Hz: mesh sized for {:.0f} Hz",
                       request.modes, *sizing_hz / margin, *sizing_hz));
  return sizing_hz;
}

ModalModel analyze_tet_mesh(const AnalysisOptions& o, const Material& material, const TetMesh& tets,
                            const FemMesh& fem, StageTimer* timer, ModalAnalysisResult* solved) {
  // Parse the excitation before the expensive solve, so a typo fails fast.
  const auto excite_vertices = select_excitation_vertices(o.excite, tets);
  if (!o.excite.starts_with("auto:")) notice_edge_or_corner_excitations(excite_vertices, tets);
  ModalAnalysisResult local;
  ModalAnalysisResult& modes = solved ? *solved : local;
  modes = analyze_modes(fem, material, analysis_request(o), timer);

  ModalModel model;
  model.name = o.name.empty() ? std::filesystem::path(o.input).stem().string() : o.name;
  model.mesh.source = o.input;
  model.mesh.vertices = static_cast<int>(tets.vertices.rows());
  model.mesh.tetrahedra = static_cast<int>(tets.tets.rows());
  model.mesh.element_order = fem.order;
  model.mesh.scale = o.scale;
  model.material = material;
  model.analysis.fmin_hz = o.fmin_hz;
  model.analysis.fmax_hz = o.fmax_hz;
  model.analysis.requested_modes = o.modes;
  model.analysis.fixed = o.fix;
  model.analysis.normalization = o.normalize;
  for (double lambda : modes.eigenvalues) model.modes.push_back({0, 0, 0, lambda});
  model.excitations = excitation_gains(excite_vertices, tets, modes.shapes, o.normalize);
  model.excitation_triangles = triangulate_excitations(model.excitations, tets);
  for (const auto& text : o.listeners)
    model.listeners.push_back(
        listener_gains(tets, modes.shapes, modes.eigenvalues, parse_listener_position(text)));
  if (o.radiation == "bem") {
    if (timer) timer->start("radiation");
    bem_radiation(model, tets, fem, modes.shapes, modes.eigenvalues);
    if (timer) timer->stop();
  }
  // Cheap beside the solve (V·N values); written only where asked (modes --surface-data, view).
  model.surface = std::make_shared<SurfaceShapes>(surface_shapes(tets, modes.shapes, o.normalize));
  apply_rayleigh_damping(model);
  return model;
}

namespace {

// The whole analysis from a tet-mesh source: sizing (coarse pass), meshing, solve, and one
// refinement when the modes asked reach above what the mesh was sized for.
ModalModel analyze_source(const TetMeshSource& source, const AnalysisOptions& o, AnalysisReport* report,
                          const SurfaceMesh* surface = nullptr, SurfaceMeshingCache* cache = nullptr) {
  check_analysis_options(o);
  AnalysisReport local;
  AnalysisReport& r = report ? *report : local;
  const Material material = resolve_material(o);
  const ModalAnalysisRequest request = analysis_request(o);
  // Read the listeners before the expensive work, so a typo fails fast.
  for (const auto& text : o.listeners) parse_listener_position(text);

  MeshInputOptions mesh_options = mesh_input_options(o);
  mesh_options.modes = o.resolution == "band" ? 0 : o.modes;

  std::optional<TetMesh> sized_mesh;
  if (o.resolution == "modes" && !o.max_tet_volume_m3)
    mesh_options.sizing_frequency_hz =
        coarse_pass_sizing_hz(source, o, material, request, mesh_options, r, &sized_mesh, surface, cache);

  ModalModel model;
  ModalAnalysisResult modes;
  for (int pass = 0;; ++pass) {
    const TetMesh tets = (pass == 0 && sized_mesh) ? std::move(*sized_mesh)
                                                   : source(mesh_options, &r.timer);
    r.timer.start("fem mesh");
    const FemMesh fem = make_fem_mesh(tets, element_order_for(o, tets));
    r.timer.stop();
    model = analyze_tet_mesh(o, material, tets, fem, &r.timer, &modes);
    const auto refine_hz = refinement_frequency_hz(modes, tets, request);
    if (!refine_hz || pass == 1) break;
    notice(fmt::format(
        "the modes asked reach above the {:.0f} Hz the mesh was sized for: meshing again for "
        "{:.0f} Hz",
        tets.resolved_frequency_hz, *refine_hz));
    mesh_options.sizing_frequency_hz = *refine_hz;
  }

  record_solve(model, modes, r);
  return model;
}

}  // namespace

ModalModel analyze_mesh(const AnalysisOptions& o, AnalysisReport* report) {
  if (is_modal_model_path(o.input)) throw Error(fmt::format("{} is a model file, not a mesh", o.input));
  const Material material = resolve_material(o);
  if (is_tet_mesh_path(o.input))
    return analyze_source(
        [&](const MeshInputOptions& mesh, StageTimer* timer) { return load_tet_mesh(o.input, material, mesh, timer); },
        o, report);
  // A surface is read and checked once; the coarse pass and each meshing start from it.
  AnalysisReport local;
  AnalysisReport& r = report ? *report : local;
  check_analysis_options(o);
  const MeshInputOptions read = mesh_input_options(o);
  check_mesh_input(o.input, read);
  r.timer.start("read mesh");
  const SurfaceMesh surface = read_checked_surface_mesh(o.input, read.scale, read.repair);
  r.timer.stop();
  SurfaceMeshingCache cache;
  return analyze_source(
      [&](const MeshInputOptions& mesh, StageTimer* timer) {
        StageTimer unused;
        return mesh_surface(surface, material, mesh, timer ? *timer : unused, &cache);
      },
      o, &r, &surface, &cache);
}

namespace {

// A model made from memory is named by options.name, else by options.input's stem, else "model".
AnalysisOptions named(AnalysisOptions o) {
  if (o.name.empty() && o.input.empty()) o.name = "model";
  return o;
}

}  // namespace

ModalModel analyze(const SurfaceMesh& surface, const AnalysisOptions& options, AnalysisReport* report) {
  const AnalysisOptions o = named(options);
  const Material material = resolve_material(o);
  if (!(o.scale > 0) || !std::isfinite(o.scale))
    throw Error(fmt::format("--scale must be a positive number (got {})", o.scale));
  // The checks a file's surface gets (surface_mesh.hpp), once: remeshing checks again.
  SurfaceMesh checked = surface;
  checked.vertices *= o.scale;
  try {
    if (o.repair) repair_surface(checked);
    if (const auto shells = check_and_orient_surface(checked); !shells.bodies_notice.empty())
      notice(shells.bodies_notice);
  } catch (const RepairableSurfaceError& e) {
    throw Error(fmt::format("surface: {}{}", e.what(), o.repair ? " (left after --repair)" : "; try --repair"));
  }
  SurfaceMeshingCache cache;
  return analyze_source(
      [&](const MeshInputOptions& mesh, StageTimer* timer) {
        StageTimer local;
        return mesh_surface(checked, material, mesh, timer ? *timer : local, &cache);
      },
      o, report, &checked, &cache);
}

ModalModel analyze(const TetMesh& tets, const AnalysisOptions& options, AnalysisReport* report) {
  const AnalysisOptions o = named(options);
  check_analysis_options(o);
  AnalysisReport local;
  AnalysisReport& r = report ? *report : local;
  const Material material = resolve_material(o);
  for (const auto& text : o.listeners) parse_listener_position(text);
  r.timer.start("fem mesh");
  const FemMesh fem = make_fem_mesh(tets, element_order_for(o, tets));
  r.timer.stop();
  ModalAnalysisResult modes;
  ModalModel model = analyze_tet_mesh(o, material, tets, fem, &r.timer, &modes);
  record_solve(model, modes, r);
  return model;
}

void retune(ModalModel& model, const AnalysisOptions& o) {
  if (!o.material_given && !o.material_overrides.any()) return;
  Material m = o.material_given ? find_material_preset(o.material_name) : model.material;
  m = apply_overrides(m, o.material_overrides);
  // A preset whose ν differs from the model's (steel 0.29 → iron 0.28): re-tuning is exact
  // only at fixed ν, so E, ρ and the damping are taken from the preset and ν is kept, said
  // in a notice and in the material's name. An explicit --poisson-ratio is never bent.
  if (!o.material_overrides.poisson_ratio && m.poisson_ratio != model.material.poisson_ratio) {
    notice(fmt::format(
        "{} has Poisson ratio {}, the model was solved with {}: re-tuned with E, density and "
        "damping of {} and the model's Poisson ratio (frequencies off by roughly the ratio's "
        "relative change); analyse the mesh again for the exact result",
        m.name, m.poisson_ratio, model.material.poisson_ratio, m.name));
    m.poisson_ratio = model.material.poisson_ratio;
    m.name += fmt::format(" (nu {})", m.poisson_ratio);
  }
  retune_material(model, m);
}

ModalModel analyze(const AnalysisOptions& o, AnalysisReport* report) {
  if (!is_modal_model_path(o.input)) return analyze_mesh(o, report);
  // A model file stores modes and gains, not shapes: what needs the shapes needs the mesh.
  if (!o.listeners.empty())
    throw Error("--listener needs the mesh, not a model file: listener gains come from the mode "
                "shapes, which the model does not store");
  if (!o.fix.empty())
    throw Error("--fix needs the mesh, not a model file: clamping changes the modes");
  ModalModel model = read_modal_model(o.input);
  retune(model, o);
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
