// validate_model (`mesh2dsp validate`): a generated model (or its Faust program) against a reference render or a
// recording (issue 6). Three ways in:
//   validate MESH [analysis options] --strike S [--listener X,Y,Z] --report DIR
//       renders the reference (time-domain FEM), analyses the mesh for the same strike and
//       listener, emits and JIT-renders the Faust program, compares;
//   validate MESH --model M.modal.json ...   the reference from MESH against an existing model
//       (checked to come from the same tet mesh and strike point);
//   validate --model M.modal.json [--dsp X.dsp] --reference ref.wav   existing artefacts, or any
//       recording (then level and onset are reported, not judged).
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "analysis/analysis.hpp"
#include "emit/emit_model.hpp"
#include "emit/emitters.hpp"
#include "validate/validate.hpp"
#include "fem/boundary.hpp"
#include "fem/fem_mesh.hpp"
#include "fem/mesh_input.hpp"
#include "fem/surface_mesh.hpp"
#include "filters.hpp"
#include "forces.hpp"
#include "radiation/radiation.hpp"
#include "reference.hpp"
#include "runtime/render/sound_files.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"
#include "util/stage_timer.hpp"
#include "util/atomic_file.hpp"
#include "validate/analytic_check.hpp"
#include "validate/comparison.hpp"
#include "validate/contact_reference.hpp"
#include "validate/generated_render.hpp"
#include "validate/model_from_mesh.hpp"
#include "validate/plots.hpp"
#include "validate/recording_fit.hpp"
#include "validate/report.hpp"

namespace mesh2dsp {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using namespace validate;



std::string point_text(const Eigen::Vector3d& p) { return fmt::format("{},{},{}", p.x(), p.y(), p.z()); }

// One channel of a sound file, whole.
std::vector<float> read_channel(const fs::path& path, int channel, int* rate_hz) {
  runtime::SoundFileReader reader(path);
  if (channel < 0 || channel >= reader.channels())
    throw Error(fmt::format("{} has {} channel(s); --reference-channel {} does not exist", path.string(),
                            reader.channels(), channel));
  if (reader.frames() < 1) throw Error(fmt::format("{} is empty", path.string()));
  std::vector<std::vector<float>> channels(reader.channels(), std::vector<float>(reader.frames()));
  std::vector<float*> pointers;
  for (auto& c : channels) pointers.push_back(c.data());
  reader.read(pointers.data(), static_cast<int>(reader.frames()));
  *rate_hz = reader.sample_rate_hz();
  for (float v : channels[channel])
    if (!std::isfinite(v)) throw Error(fmt::format("{} holds NaN or infinite samples", path.string()));
  return std::move(channels[channel]);
}

// A float WAV through libsndfile's writer, which commits by rename: never half-written.
void write_wav(const fs::path& path, const std::vector<float>& samples, int rate_hz) {
  runtime::SoundFileWriter writer(path, 1, rate_hz, runtime::SampleFormat::float32);
  const float* p = samples.data();
  writer.write(&p, static_cast<int>(samples.size()));
  writer.commit();
}

// What the reference side of the comparison is.
struct ReferenceSide {
  std::vector<float> samples;
  int rate_hz = 48000;
  bool physical = false;           // in the model's units: level judged
  std::optional<double> delay_s;   // expected acoustic delay: onset judged
  double newmark_dt_s = 0;         // a Newmark render's time step (its known period shift), 0: none
  double dc_alpha = 0;             // the DC blocker the reference went through (eq. 9)
  ForceProfile force;              // the excitation to drive the generated program with
  std::string description;
};

// validate MESH --analytic: the model (analysed here, or --model) against the continuum theory
// of MESH's shape. Where the render comparison proves the modal model and its code against the
// same discretization, this checks the discretization and the element against physics.
ValidationVerdict run_analytic(const ValidateOptions& o) {
  if (o.analysis.input.empty())
    throw Error("--analytic needs the MESH: the theory comes from its shape (a bar or a thin plate)");
  if (is_modal_model_path(o.analysis.input))
    throw Error(fmt::format("{} is a model: pass it as --model, with the MESH it was made from", o.analysis.input));
  if (!o.reference.empty() || !o.dsp.empty())
    throw Error("--analytic compares the model's modes with theory: --reference and --dsp do not apply");
  if (!o.analysis.fix.empty())
    throw Error("--analytic knows free objects only (a free-free bar, a free plate): drop --fix");
  if (!(o.analytic_tolerance_percent > 0) || !std::isfinite(o.analytic_tolerance_percent))
    throw Error(fmt::format("--analytic-tolerance must be positive (got {})", o.analytic_tolerance_percent));
  for (const auto* path : {&o.analysis.input, &o.model})
    if (!path->empty() && !fs::exists(*path)) throw Error(fmt::format("{}: no such file", *path));
  check_report_directory(o.report);

  const SurfaceMesh surface = read_checked_surface_mesh(o.analysis.input, o.analysis.scale, o.analysis.repair);
  const Eigen::Vector3d extent = surface.vertices.colwise().maxCoeff() - surface.vertices.colwise().minCoeff();
  const double fill = signed_volume(surface) / extent.prod();
  if (std::abs(fill - 1) > 0.01)
    throw Error(fmt::format("{} is not an axis-aligned box (it fills {:.1f} % of its bounding box): --analytic "
                            "knows bars and thin plates", o.analysis.input, 100 * fill));
  const BoxShape box = classify_box(extent.x(), extent.y(), extent.z());
  if (box.kind.empty())
    throw Error(fmt::format("{} is a {:.4g} x {:.4g} x {:.4g} mm box: neither a bar (longest side at least 4 x "
                            "the middle one) nor a thin plate (thinnest side at most 1/10 of the middle one), "
                            "so no theory applies", o.analysis.input, 1e3 * box.extent_m[0], 1e3 * box.extent_m[1],
                            1e3 * box.extent_m[2]));
  ModalModel model;
  if (!o.model.empty()) {
    AnalysisOptions a = o.analysis;
    a.input = o.model;
    a.material_given = o.analysis.material_given || o.analysis.material_overrides.any();
    model = analyze(a);
    if (!model.analysis.fixed.empty())
      throw Error(fmt::format("{} was analysed with --fix: --analytic knows free objects only", o.model));
  } else {
    model = analyze_mesh(o.analysis);
  }
  const AnalyticComparison c = compare_with_analytic(model, box, o.analytic_tolerance_percent / 100);
  std::error_code ec;
  fs::create_directories(o.report, ec);
  if (ec) throw Error(fmt::format("cannot create the report directory {}: {}", o.report, ec.message()));
  const fs::path json_path = fs::path(o.report) / "analytic.json";
  write_text_atomically(json_path, analytic_json(c, o.analysis.input, model));
  return {c.passed, fmt::format("validate --analytic: {} ({} {:.4g} x {:.4g} x {:.4g} mm, {}: {} theory modes within {} %) -> {}\n{}",
             c.passed ? "PASS" : "FAIL", box.kind, 1e3 * box.extent_m[0], 1e3 * box.extent_m[1],
             1e3 * box.extent_m[2], model.material.name, c.rows.size(), o.analytic_tolerance_percent,
             json_path.string(), analytic_table(c))};
}

// A recording struck at an unknown place and picked up by an unknown microphone: the model's
// excitation point (and, with several outputs, its output) whose gains explain its partials best
// (validate::choose_strike_point), among those not given. A mode's spectral height is taken as
// its gain × the integral of its decay over the recording (a decaying sinusoid's peak), so a
// long-ringing mode counts for what it shows.
void choose_place_for_recording(const ModalModel& model, const EmitModel& emit, const ReferenceSide& ref,
                                const ValidateOptions& o, int& point, int& output, std::vector<std::string>& notes) {
  std::vector<std::pair<int, int>> places;  // (point, output); the given (or default) one first
  places.push_back({point, output});
  for (int l = 0; l < emit.output_count; ++l)
    for (int k = 0; k < emit.point_count; ++k)
      if ((o.point_given ? k == point : true) && (o.output_given ? l == output : true) &&
          !(k == point && l == output))
        places.push_back({k, l});
  if (places.size() < 2) return;  // nothing to choose
  validate::FitSettings fs;
  fs.tolerance = fs.pair_spread = o.frequency_tolerance_percent / 100;
  fs.band_lo_hz = std::max(20.0, o.analysis.fmin_hz * 0.9);
  fs.band_hi_hz = std::min({20000.0, o.analysis.fmax_hz, 0.49 * ref.rate_hz});
  std::vector<double> frequency_hz;
  for (const auto& m : model.modes) frequency_hz.push_back(m.frequency_hz);
  const auto found = validate::partials_for_model(
      {o.reference, ref.samples, static_cast<double>(ref.rate_hz)},
      *std::min_element(frequency_hz.begin(), frequency_hz.end()),
      *std::max_element(frequency_hz.begin(), frequency_hz.end()), fs);
  if (found.partials.empty()) return;  // the comparison says what it finds
  const double length_s = static_cast<double>(ref.samples.size() - found.prepared.onset) / ref.rate_hz;
  std::vector<std::vector<double>> level(places.size(), std::vector<double>(model.modes.size()));
  for (std::size_t c = 0; c < places.size(); ++c)
    for (std::size_t n = 0; n < model.modes.size(); ++n) {
      const double sigma = std::isfinite(model.modes[n].t60_s) ? std::log(1000.0) / model.modes[n].t60_s : 0;
      const double ringing_s = sigma > 0 ? (1 - std::exp(-sigma * length_s)) / sigma : length_s;
      level[c][n] = std::abs(emit.gain(places[c].second, places[c].first, static_cast<int>(n))) * ringing_s;
    }
  const auto choice = validate::choose_strike_point(frequency_hz, level, found.partials, fs, o.spurious_db);
  const auto [k, l] = places[choice.point];
  notes.push_back(fmt::format(
      "The recording was compared with a strike at the model's excitation point {} of {}{}: it leaves {} strong "
      "mode(s) unexplained (point {}, output {}: {}) and its levels follow the recording's with correlation "
      "{:.2f}. Give --point{} to choose.", k, emit.point_count,
      emit.output_count > 1 ? fmt::format(", output {} of {}", l, emit.output_count) : "",
      choice.strong_missing[choice.point], point, output, choice.strong_missing[0],
      choice.level_correlation[choice.point], emit.output_count > 1 ? " and --output" : ""));
  point = k, output = l;
}

}  // namespace

ValidationVerdict validate_model(const ValidateOptions& o) {
  if (o.analytic) return run_analytic(o);
  StageTimer timer;
  const bool have_mesh = !o.analysis.input.empty();
  const bool have_model = !o.model.empty();
  const bool have_reference = !o.reference.empty();
  const bool material_given = o.analysis.material_given || o.analysis.material_overrides.any();
  const bool rate_given = o.sample_rate_hz.has_value();

  // Cheap checks first: a typo fails before any render.
  if (!have_mesh && !have_model)
    throw Error("nothing to validate: give a MESH (reference rendered here) or --model (with --reference)");
  if (!have_mesh && !have_reference)
    throw Error("--model without a MESH needs --reference WAV (or give the MESH to render the reference)");
  if (have_mesh && have_reference)
    throw Error("give either a MESH (the reference is rendered from it) or --reference, not both");
  if (have_mesh && is_modal_model_path(o.analysis.input))
    throw Error(fmt::format("{} is a model: pass it as --model, with a MESH or a --reference", o.analysis.input));
  if (!o.dsp.empty() && !have_model && !have_mesh)
    throw Error("--dsp needs --model (the model it was generated from: its modes are what is matched)");
  if (!(o.duration_s > 0) || !std::isfinite(o.duration_s))
    throw Error(fmt::format("--duration must be positive (got {} s)", o.duration_s));
  if (!(o.dc_alpha >= 0 && o.dc_alpha <= 1))
    throw Error(fmt::format("--dc-alpha must lie in [0, 1] (got {})", o.dc_alpha));
  for (const auto& [name, v] : std::initializer_list<std::pair<const char*, double>>{
           {"--frequency-tolerance", o.frequency_tolerance_percent}, {"--t60-tolerance", o.t60_tolerance_percent},
           {"--lsd-bound", o.lsd_bound_db}, {"--level-tolerance", o.level_tolerance_db},
           {"--onset-tolerance", o.onset_tolerance_ms}})
    if (!(v > 0) || !std::isfinite(v)) throw Error(fmt::format("{} must be positive (got {})", name, v));
  for (const auto* path : {&o.model, &o.dsp, &o.reference})
    if (!path->empty() && !fs::exists(*path)) throw Error(fmt::format("{}: no such file", *path));
  if (have_mesh && !fs::exists(o.analysis.input)) throw Error(fmt::format("{}: no such file", o.analysis.input));
  check_report_directory(o.report);
  std::vector<Eigen::Vector3d> listeners;
  for (const auto& l : o.analysis.listeners) listeners.push_back(parse_listener_position(l));
  if (listeners.size() > 1) throw Error("validate compares one listener at a time: give one --listener");

  ModalModel model;
  if (have_model) {
    // --listener and --fix describe the reference here (the model keeps its own).
    AnalysisOptions a = o.analysis;
    a.input = o.model;
    a.listeners.clear();
    a.fix.clear();
    a.material_given = material_given && !have_mesh;
    model = analyze(a);
  }
  ReferenceSide ref;
  ref.rate_hz = o.sample_rate_hz.value_or(48000);
  json inputs;
  std::string title;
  std::vector<std::string> notes;
  int point = o.point, output = o.output;

  if (have_mesh) {
    // The reference from the mesh: the solver's tet mesh, strike and listener.
    timer.start("mesh");
    const Material material = have_model && !material_given ? model.material : resolve_material(o.analysis);
    const MeshInputOptions mesh_options = mesh_input_options(o.analysis);
    ref.force = parse_force(o.force, o.force_amplitude);
    const TetMesh tets = load_tet_mesh(o.analysis.input, material, mesh_options);
    std::vector<HalfSpace> fix;
    for (const auto& f : o.analysis.fix) fix.push_back(parse_half_space(f));
    const FemMesh fem = make_fem_mesh(tets, element_order_for(o.analysis, tets));
    const std::vector<bool> clamped = fix.empty() ? std::vector<bool>{} : clamped_nodes(fem.nodes, fix);
    std::vector<bool> clamped_vertices;
    if (!clamped.empty()) clamped_vertices.assign(clamped.begin(), clamped.begin() + tets.vertices.rows());

    std::string strike_spec = o.strike;
    if (strike_spec.empty()) {
      if (have_model) {
        if (point < 0 || point >= static_cast<int>(model.excitations.size()))
          throw Error(fmt::format("{} has {} excitation point(s); --point {} does not exist", o.model,
                                  model.excitations.size(), point));
        strike_spec = "vertex:" + std::to_string(model.excitations[point].vertex);
      } else {
        strike_spec = o.analysis.excite != "auto:8" ? o.analysis.excite : "auto";
      }
    }
    if (listeners.empty() && have_model && output < static_cast<int>(model.listeners.size()))
      listeners.push_back(model.listeners[output].position);

    ReferenceSettings settings;
    settings.sample_rate_hz = ref.rate_hz;
    settings.duration_s = o.duration_s;
    settings.max_memory_bytes = o.analysis.max_memory_bytes;
    // One step per audio sample by default (issue 12): Newmark's average acceleration is the
    // bilinear transform of every mode, so the render's warp is known exactly and the generated
    // side is pre-warped to it below; --oversampling or --dt only move the warp.
    settings.dt_s = o.dt_s ? *o.dt_s : 1.0 / (o.oversampling * static_cast<double>(ref.rate_hz));
    settings.single_precision = o.single_precision;
    settings.on_estimate = [](double loop_s, long long steps) {
      if (!is_quiet()) fmt::print(stderr, "reference render: about {:.0f} s for {} steps (from the first steps' pace)\n",
                                 loop_s, steps);
    };
    settings.fmax_hz = o.analysis.fmax_hz;
    settings.dc_alpha = o.dc_alpha;
    settings.force = ref.force;
    settings.strike = parse_strike(strike_spec, "", tets, clamped_vertices);
    settings.listeners_m = listeners;
    settings.show_progress = true;
    const int dof_estimate = 3 * static_cast<int>(fem.nodes.rows());
    if (dof_estimate > 30000) settings.solver = LinearSolverKind::cholmod_supernodal;
    timer.stop();

    if (have_model) {
      // The model must come from this tet mesh and be struck where the reference is.
      if (model.mesh.vertices != tets.vertices.rows() || model.mesh.tetrahedra != tets.tets.rows() ||
          model.mesh.element_order != fem.order)
        throw Error(fmt::format(
            "{} does not match {}: the model was made from {} vertices, {} tetrahedra (P{}); the mesh "
            "gives {} vertices, {} tetrahedra (P{}) with these options",
            o.model, o.analysis.input, model.mesh.vertices, model.mesh.tetrahedra, model.mesh.element_order,
            tets.vertices.rows(), tets.tets.rows(), fem.order));
      if (point < 0 || point >= static_cast<int>(model.excitations.size()))
        throw Error(fmt::format("{} has {} excitation point(s); --point {} does not exist", o.model,
                                model.excitations.size(), point));
      const double size = (tets.vertices.colwise().maxCoeff() - tets.vertices.colwise().minCoeff()).norm();
      if ((model.excitations[point].position - settings.strike.position_m).norm() > 1e-3 * size)
        throw Error(fmt::format("{} does not match the strike: its excitation point {} is at ({}) but {} "
                                "strikes ({})", o.model, point, point_text(model.excitations[point].position),
                                strike_spec, point_text(settings.strike.position_m)));
      if (!listeners.empty() && model.listeners.empty())
        throw Error(fmt::format("{} has no listener gains (contact microphone); drop --listener or "
                                "regenerate the model with --listener", o.model));
    } else {
      // The analysis for exactly this strike and listener: one excitation point, one output.
      timer.start("analysis");
      AnalysisOptions a = o.analysis;
      // The same spec where the analysis reads it the same way (vertex:I names the mesh as
      // read, in both); "auto" differs between solver and generator, so its result is passed
      // on as the point it chose.
      a.excite = strike_spec.starts_with("vertex:") || strike_spec.starts_with("point:")
                     ? strike_spec
                     : "point:" + point_text(settings.strike.position_m);
      a.listeners.clear();
      for (const auto& l : listeners) a.listeners.push_back(point_text(l));
      // The reference radiates with O'Brien's time-domain weights: the model must use the same
      // radiation to compare like with like.
      if (a.radiation != "obrien")
        notice("validate compares with the reference's own radiation (O'Brien et al. 2001): the "
               "model is analysed with --radiation obrien");
      a.radiation = "obrien";
      // The tet mesh the reference uses, not a second tetrahedralization of the surface.
      model = mesh2dsp::analyze_tet_mesh(a, material, tets, fem);
      point = 0;
      output = 0;
      timer.stop();
    }

    timer.start("reference render");
    if (listeners.empty()) {
      ref.samples = render_contact_velocity(fem, material, clamped, settings, &ref.newmark_dt_s);
    } else {
      auto r = render_reference(tets, fem, material, clamped, settings);
      ref.samples = std::move(r.channels.at(0));
      ref.newmark_dt_s = r.dt_s;
    }
    timer.stop();
    ref.physical = true;
    ref.dc_alpha = o.dc_alpha;
    // Expected lag of the reference: the model's mean propagation delay from the radiating
    // surface (the generated program does not delay), else strike-to-listener; 0 for contact.
    if (listeners.empty()) ref.delay_s = 0;
    else if (!model.listeners.empty() && model.listeners.at(output).delay_s > 0) ref.delay_s = model.listeners.at(output).delay_s;
    else ref.delay_s = (listeners[0] - settings.strike.position_m).norm() / kSpeedOfSoundMS;
    ref.description = listeners.empty()
        ? "time-domain FEM (Newmark), surface velocity at the struck point along the strike (contact microphone)"
        : "time-domain FEM (Newmark) radiated to the listener (O'Brien et al. 2001, eq. 10)";
    title = fmt::format("{}: {}, strike {}, {}", fs::path(o.analysis.input).filename().string(), material.name,
                        strike_spec, listeners.empty() ? "contact microphone" : "listener (" + point_text(listeners[0]) + ")");
    inputs["mesh"] = o.analysis.input;
    inputs["tet mesh"] = fmt::format("{} vertices, {} tetrahedra, P{}, {} DOF", tets.vertices.rows(),
                                     tets.tets.rows(), fem.order, 3 * fem.nodes.rows());
    inputs["material"] = fmt::format("{} (E {:.4g} Pa, nu {}, rho {} kg/m3, alpha {} 1/s, beta {:.3g} s)",
                                     material.name, material.youngs_modulus_pa, material.poisson_ratio,
                                     material.density_kg_m3, material.rayleigh_mass_per_s,
                                     material.rayleigh_stiffness_s);
    inputs["strike"] = fmt::format("{} at ({})", strike_spec, point_text(settings.strike.position_m));
    inputs["force"] = fmt::format("{}, amplitude {}", o.force, o.force_amplitude);
    inputs["output"] = listeners.empty() ? "contact microphone: surface velocity (m/s)"
                                         : "pressure at listener (" + point_text(listeners[0]) + "), eq. 10 units (Pa m)";
  } else {
    // Existing artefacts: a reference WAV (a mesh2dsp render with its sidecar, or a recording).
    timer.start("reference read");
    int rate = 0;
    ref.samples = read_channel(o.reference, o.reference_channel, &rate);
    if (rate_given && rate != *o.sample_rate_hz)
      throw Error(fmt::format("{} is at {} Hz but --sample-rate is {} Hz (no resampling: convert the file "
                              "or drop --sample-rate)", o.reference, rate, *o.sample_rate_hz));
    ref.rate_hz = rate;
    const fs::path sidecar = fs::path(o.reference).replace_extension(".json");
    json side;
    if (fs::exists(sidecar)) {
      std::ifstream in(sidecar);
      side = json::parse(in, nullptr, false);
    }
    if (!side.is_discarded() && side.is_object() && side.value("format", "") == "mesh2dsp-reference-render") {
      // A mesh2dsp reference: same units as the model; drive the program with its force.
      ref.physical = true;
      Eigen::Vector3d strike;
      json listener_list;
      try {
        ref.force = parse_force(side.at("force").value("spec", "impulse"), side.at("force").value("amplitude", 1.0));
        ref.dc_alpha = side.at("audio").value("dc_alpha", 0.1);
        ref.newmark_dt_s = side.at("integrator").value("dt_s", 0.0);
        const auto& s = side.at("strike").at("position");
        strike = Eigen::Vector3d(s.at(0).get<double>(), s.at(1).get<double>(), s.at(2).get<double>());
        listener_list = side.value("listeners", json::array());
        if (side.value("pickup", "") == "contact") ref.delay_s = 0;
      } catch (const json::exception& e) {
        throw Error(fmt::format("{}: a malformed reference sidecar ({})", sidecar.string(), e.what()));
      }
      if (point < 0 || point >= static_cast<int>(model.excitations.size()))
        throw Error(fmt::format("{} has {} excitation point(s); --point {} does not exist", o.model,
                                model.excitations.size(), point));
      if ((model.excitations[point].position - strike).norm() > 1e-4)
        throw Error(fmt::format("{} does not match {}: the reference was struck at ({}), the model's "
                                "excitation point {} is at ({})", o.model, o.reference, point_text(strike), point,
                                point_text(model.excitations[point].position)));
      const auto& ls = listener_list;
      const int channel = o.reference_channel;
      if (ls.is_array() && channel < static_cast<int>(ls.size())) {
        const Eigen::Vector3d l(ls[channel].at(0).get<double>(), ls[channel].at(1).get<double>(),
                                ls[channel].at(2).get<double>());
        ref.delay_s = (l - strike).norm() / kSpeedOfSoundMS;
        if (model.listeners.empty())
          notes.push_back("The reference is the pressure at a listener but the model has no listener "
                          "gains: its output is the contact velocity, so levels and spectral balance differ.");
        else if ((model.listeners.at(output).position - l).norm() > 1e-4)
          throw Error(fmt::format("{} does not match {}: the reference listener is at ({}), the model's "
                                  "listener {} at ({})", o.model, o.reference, point_text(l), output,
                                  point_text(model.listeners.at(output).position)));
      }
      ref.description = "mesh2dsp reference render (" + sidecar.string() + ")";
    } else {
      // A recording: unknown units, unknown latency; the strike is taken as a unit impulse.
      ref.force = parse_force("impulse", 1.0);
      ref.dc_alpha = o.dc_alpha_given ? o.dc_alpha : 0;
      ref.description = "recording (no mesh2dsp sidecar): level, onset and spectral distance are reported, not judged";
      notes.push_back("The reference is a recording: its partial frequencies are judged after one material "
                      "scale (E/rho) fitted to it, the raw errors beside them; decays where they stand above the "
                      "recording's noise floor; strong model modes it lacks and strong peaks no mode explains. "
                      "Level, onset and the log-spectral distance are reported, not judged (unknown "
                      "calibration, latency, room and microphone). `mesh2dsp fit` writes the fitted model.");
    }
    timer.stop();
    title = fmt::format("{} vs {}", fs::path(o.model).filename().string(), fs::path(o.reference).filename().string());
    inputs["model"] = o.model;
    inputs["reference"] = fmt::format("{} (channel {}, {} Hz, {:.3f} s)", o.reference, o.reference_channel,
                                      rate, ref.samples.size() / static_cast<double>(rate));
  }

  // The generated side.
  if (point < 0 || point >= static_cast<int>(model.excitations.size()))
    throw Error(fmt::format("the model has {} excitation point(s); --point {} does not exist",
                            model.excitations.size(), point));
  // A Newmark reference shows every mode at the integrator's exact warp: the generated program
  // is rendered from the model warped the same way, so the two compare bin for bin, and the
  // frequencies are judged mapped back (mode_matching.cpp).
  // (A given --dsp is rendered as it is: then only the reference's frequencies are mapped back.)
  const bool prewarp = ref.newmark_dt_s > 0 && o.dsp.empty();
  const ModalModel shown = prewarp ? newmark_warped_model(model, ref.newmark_dt_s) : model;
  const EmitModel emit = make_emit_model(shown);
  if (output < 0 || output >= emit.output_count)
    throw Error(fmt::format("the model has {} output(s); --output {} does not exist", emit.output_count, output));
  double lowest_hz = INFINITY;
  for (const auto& m : model.modes) lowest_hz = std::min(lowest_hz, m.frequency_hz);
  if (!ref.physical && !(o.point_given && o.output_given))
    choose_place_for_recording(shown, emit, ref, o, point, output, notes);
  if (!(lowest_hz < 0.5 * ref.rate_hz))
    throw Error(fmt::format("at {} Hz every mode of the model lies above Nyquist (lowest {:.1f} Hz): "
                            "nothing to compare", ref.rate_hz, lowest_hz));
  if (signal::peak_abs(ref.samples) < 1e-20)
    throw Error(fmt::format("the reference{} is silent", have_reference ? " " + o.reference : ""));

  timer.start("JIT render");
  GeneratedRequest request;
  EmitSettings emit_settings;
  emit_settings.source = model.mesh.source;
  emit_settings.file_name = emit.name + ".dsp";
  if (o.dsp.empty()) {
    request.source = emit_faust(emit, FaustVariant::effect, emit_settings);
    request.name = emit.name;
  } else {
    std::ifstream in(o.dsp);
    request.source.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    request.name = o.dsp;
    request.include_dir = fs::absolute(o.dsp).parent_path();
  }
  request.sample_rate_hz = ref.rate_hz;
  request.frames = static_cast<long long>(ref.samples.size());
  request.output = output;
  request.point = point;
  request.force_momentum = momentum_per_sample(ref.force, ref.rate_hz, request.frames);
  double momentum = 0;
  for (float v : request.force_momentum) momentum += v;
  request.strike_momentum = momentum;
  request.compile = o.compile;
  GeneratedRender generated = render_generated(request);
  // Back to physical units (the emitted gains carry one normalisation), then through the same
  // measurement chain as the reference: the solver's DC blocker (O'Brien et al. eq. 9).
  DcBlocker dc_blocker(1, ref.dc_alpha);
  Eigen::VectorXd frame(1);
  for (float& v : generated.samples) {
    frame[0] = v / emit.normalization;
    dc_blocker.process(frame);
    v = static_cast<float>(frame[0]);
  }
  timer.stop();
  if (!generated.driven_by_input)
    notes.push_back(fmt::format("{} has no audio input: it was struck by its own first button (its own "
                                "hammer shape), scaled to the reference's momentum {:.3g} N s.", o.dsp, momentum));
  if (signal::peak_abs(generated.samples) <= 0)
    throw Error("the generated program renders silence (is the excitation point or output right?)");

  timer.start("comparison");
  std::vector<ExpectedMode> modes;
  for (std::size_t n = 0; n < shown.modes.size(); ++n)
    modes.push_back({shown.modes[n].frequency_hz, shown.modes[n].t60_s,
                     std::abs(emit.gain(output, point, static_cast<int>(n)))});
  CompareSettings settings;
  settings.sample_rate_hz = ref.rate_hz;
  settings.band_lo_hz = std::max(20.0, have_model && !have_mesh ? 20.0 : o.analysis.fmin_hz * 0.9);
  settings.band_hi_hz = std::min(20000.0, o.analysis.fmax_hz);
  settings.judge_level = ref.physical;
  settings.expected_delay_s = ref.delay_s;
  settings.align_fundamental = o.align_fundamental;
  settings.recording = !ref.physical;
  settings.matching.judge_floor_db = o.judge_floor_db;
  settings.matching.reference_newmark_dt_s = ref.newmark_dt_s;
  settings.matching.generated_prewarped = prewarp;
  if (ref.newmark_dt_s > 0 && !prewarp) {
    const double top_hz = std::min(settings.band_hi_hz, 0.45 * ref.rate_hz);
    const double shift = 1 - std::atan(M_PI * top_hz * ref.newmark_dt_s) / (M_PI * top_hz * ref.newmark_dt_s);
    notes.push_back(fmt::format(
        "The program given with --dsp was rendered as it is, not pre-warped to the reference's integrator "
        "(dt = {:.4g} s): only the reference's frequencies are mapped back; its decays and spectral balance "
        "keep the warp ({:.2f} % at {:.0f} Hz). Render the reference with --oversampling 4 or more, or omit "
        "--dsp (the program is then emitted from --model and pre-warped), for a full comparison.",
        ref.newmark_dt_s, 100 * shift, top_hz));
  }
  if (ref.newmark_dt_s > 0 && prewarp)
    notes.push_back(fmt::format(
        "The reference is a Newmark (average acceleration = trapezoidal) render with dt = {:.4g} s: the "
        "bilinear transform of every mode, which shows a mode at f at atan(pi f dt)/(pi dt) ({:+.2f} % at 5 kHz) "
        "and scales its decay rate the same way, exactly. The generated program was rendered from the model "
        "warped the same way (frequencies, decays and gains), so the spectra compare directly; frequencies are "
        "judged after mapping both back, f = tan(pi f~ dt)/(pi dt).",
        ref.newmark_dt_s, 100 * (std::atan(M_PI * 5000 * ref.newmark_dt_s) / (M_PI * 5000 * ref.newmark_dt_s) - 1)));
  Tolerances tol;
  tol.frequency = o.frequency_tolerance_percent / 100;
  tol.t60 = o.t60_tolerance_percent / 100;
  tol.lsd_db = o.lsd_bound_db;
  tol.level_db = o.level_tolerance_db;
  tol.onset_ms = o.onset_tolerance_ms;
  tol.missing = o.max_missing;
  tol.spurious_db = o.spurious_db;
  const Comparison comparison = compare(ref.samples, generated.samples, modes, settings, tol);

  ReportInput report;
  report.title = title;
  report.comparison = comparison;
  report.tolerances = tol;
  report.modes = modes;
  report.notes = notes;
  std::vector<ModeMark> marks;
  for (const auto& g : comparison.match.groups)
    for (int m : g.modes)
      marks.push_back({shown.modes[m].frequency_hz,
                       g.status == MatchStatus::matched ? kMatchedColour
                       : g.status == MatchStatus::weak  ? kWeakColour
                                                        : kFailedColour,
                       fmt::format("mode {}: {:.2f} Hz, {}", m, model.modes[m].frequency_hz, to_string(g.status))});
  // The plots start an octave below the lowest mode (the band below holds no mode, only the
  // measurement chain's rolled-off rigid motion).
  const double plot_lo_hz = std::max(comparison.band_lo_hz, std::min(0.5 * lowest_hz, 0.5 * comparison.band_hi_hz));
  report.spectrum_svg = spectrum_svg(comparison.reference_spectrum, comparison.generated_spectrum,
                                     plot_lo_hz, comparison.band_hi_hz, marks);
  {
    const std::size_t frame = comparison.decay_frame, hop = std::max<std::size_t>(frame / 4,
        static_cast<std::size_t>(comparison.length / 400));
    const std::vector<float> r(ref.samples.begin() + comparison.reference_start, ref.samples.end());
    const std::vector<float> g(generated.samples.begin() + comparison.generated_start, generated.samples.end());
    const auto sr = signal::spectrogram(r, ref.rate_hz, frame, hop);
    const auto sg = signal::spectrogram(g, ref.rate_hz, frame, hop);
    auto top = [](const signal::Spectrogram& s) {
      double m = 1e-300;
      for (const auto& f : s.power) for (float p : f) m = std::max(m, static_cast<double>(p));
      return 10 * std::log10(m);
    };
    report.reference_spectrogram_svg = spectrogram_svg(sr, plot_lo_hz, comparison.band_hi_hz, top(sr), "reference");
    report.generated_spectrogram_svg = spectrogram_svg(sg, plot_lo_hz, comparison.band_hi_hz, top(sg), "generated");
  }
  timer.stop();

  inputs["generated"] = o.dsp.empty()
      ? fmt::format("Faust effect emitted from the model ({} modes, {} excitation point(s), {} output(s)), "
                    "JIT-compiled{}; excitation point {}, output {}", model.modes.size(), emit.point_count,
                    emit.output_count, generated.from_cache ? " (from cache)" : "", point, output)
      : fmt::format("{} (JIT-compiled{})", o.dsp, generated.from_cache ? ", from cache" : "");
  inputs["reference kind"] = ref.description;
  inputs["sample rate"] = fmt::format("{} Hz", ref.rate_hz);
  inputs["measurement chain"] = fmt::format("generated output / normalisation {:.6g}, then the DC blocker of "
                                            "eq. 9 with alpha {}", emit.normalization, ref.dc_alpha);
  inputs["command"] = "mesh2dsp validate";
  report.inputs = inputs;
  report.stages = timer.records();
  report.audio = {{"reference", "reference.wav"}, {"generated", "generated.wav"}};

  std::vector<std::pair<std::string, std::string>> files;
  std::error_code ec;
  fs::create_directories(o.report, ec);
  if (ec) throw Error(fmt::format("cannot create the report directory {}: {}", o.report, ec.message()));
  // The renders first, the pages last: report.html exists only when everything else does.
  fs::remove(fs::path(o.report) / "report.html", ec);
  write_wav(fs::path(o.report) / "reference.wav", ref.samples, ref.rate_hz);
  write_wav(fs::path(o.report) / "generated.wav", generated.samples, ref.rate_hz);
  {
    // A sidecar in the reference solver's format, so reference.wav can be validated again with
    // --reference (e.g. against another model or a hand-edited .dsp).
    json side;
    side["format"] = "mesh2dsp-reference-render";
    side["version"] = 1;
    side["written_by"] = "mesh2dsp validate";
    side["pickup"] = listeners.empty() && have_mesh ? "contact" : "listener";
    side["force"] = {{"spec", ref.force.spec.empty() ? o.force : ref.force.spec}, {"amplitude", ref.force.amplitude}};
    const auto& e = model.excitations.at(point).position;
    side["strike"] = {{"position", {e.x(), e.y(), e.z()}}};
    json ls = json::array();
    for (const auto& l : listeners) ls.push_back({l.x(), l.y(), l.z()});
    side["listeners"] = ls;
    side["integrator"] = {{"dt_s", ref.newmark_dt_s}};
    side["audio"] = {{"sample_rate_hz", ref.rate_hz}, {"dc_alpha", ref.dc_alpha}};
    if (ref.physical) files.emplace_back("reference.json", side.dump(2) + "\n");
  }
  if (prewarp) {
    // The program to use is the model's; the one rendered here was pre-warped to the reference.
    files.emplace_back("generated.dsp", emit_faust(make_emit_model(model), FaustVariant::effect, emit_settings));
    files.emplace_back("generated-prewarped.dsp", request.source);
  } else {
    files.emplace_back("generated.dsp", request.source);
  }
  files.emplace_back("model.modal.json", modal_model_to_json(model));
  write_report(o.report, report, files);

  std::string stages;
  for (const auto& s : timer.records()) stages += fmt::format("{}{} {:.2f} s", stages.empty() ? "" : ", ", s.name, s.wall_s);
  ValidationVerdict verdict{comparison.passed, fmt::format("validate: {} ({}) -> {}\n", comparison.passed ? "PASS" : "FAIL",
                                                           stages, (fs::path(o.report) / "report.html").string())};
  for (const auto& f : comparison.failures) verdict.text += fmt::format("  {}\n", f);
  return verdict;
}

}  // namespace mesh2dsp
