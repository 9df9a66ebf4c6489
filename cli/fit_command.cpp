// `mesh2dsp fit MODEL|MESH --reference REC.wav [--reference REC2.wav …] -o FITTED.modal.json`
// (issue 29): one E/ρ scale and the Rayleigh pair fitted to recordings of the real object; the
// model re-tuned exactly (no re-solve). Exit 0 fitted, 1 error (bad input, or a recording that
// is not of this object: nothing written).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "analysis/analysis.hpp"
#include "cli/analysis_flags.hpp"
#include "cli/commands.hpp"
#include "modal/modal_model.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"
#include "validate/recording_fit.hpp"

namespace mesh2dsp {

namespace fs = std::filesystem;

namespace {

// --fit-poisson given a model file: the mesh the model names, re-solved with the model's analysis
// settings, material, excitation points and listeners. What a model file does not record
// (--keep-surface, --element-scale, --surface-edge, ...) comes from this command line, and so
// does a material given there.
AnalysisOptions options_from_model(const fs::path& model_path, AnalysisOptions o, bool material_on_command_line) {
  const ModalModel model = read_modal_model(model_path);
  fs::path mesh = model.mesh.source;
  if (!mesh.empty() && mesh.is_relative() && !fs::exists(mesh)) mesh = model_path.parent_path() / mesh;
  if (model.mesh.source.empty() || !fs::exists(mesh))
    throw Error(fmt::format("--fit-poisson re-solves the modes at other Poisson ratios from the mesh the model was made "
                            "of, and {}: give the MESH", model.mesh.source.empty()
                                ? model_path.string() + " names none"
                                : "\"" + model.mesh.source + "\" is found neither here nor beside the model"));
  o.input = mesh.string();
  o.scale = model.mesh.scale;
  o.element_order = model.mesh.element_order;
  if (model.analysis.requested_modes > 0) o.modes = model.analysis.requested_modes;
  o.fmin_hz = model.analysis.fmin_hz;
  o.fmax_hz = model.analysis.fmax_hz;
  o.fix = model.analysis.fixed;
  o.normalize = model.analysis.normalization;
  std::string points;
  for (const auto& e : model.excitations)
    points += fmt::format("{}{},{},{}", points.empty() ? "point:" : ";", e.position.x(), e.position.y(), e.position.z());
  if (!points.empty()) o.excite = points;
  o.listeners.clear();
  for (const auto& l : model.listeners)
    o.listeners.push_back(fmt::format("{},{},{}", l.position.x(), l.position.y(), l.position.z()));
  if (!material_on_command_line) {
    o.material_overrides.youngs_modulus_pa = model.material.youngs_modulus_pa;
    o.material_overrides.density_kg_m3 = model.material.density_kg_m3;
    o.material_overrides.poisson_ratio = model.material.poisson_ratio;
    o.material_overrides.rayleigh_mass_per_s = model.material.rayleigh_mass_per_s;
    o.material_overrides.rayleigh_stiffness_s = model.material.rayleigh_stiffness_s;
  }
  return o;
}

}  // namespace

void register_fit_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(kFitCommand.name, kFitCommand.summary);
  auto options = std::make_shared<AnalysisOptions>();
  auto references = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  auto settings = std::make_shared<validate::FitSettings>();
  auto tolerance_percent = std::make_shared<double>(100 * settings->tolerance);
  auto explained_percent = std::make_shared<double>(100 * settings->min_explained);
  add_analysis_options(*cmd, *options);
  add_solver_option(*cmd, options->solver);
  cmd->get_option("input")->description("the model (.modal.json) or the mesh (analysed first) to fit");
  cmd->add_option("--reference", *references,
                  "a recording of the struck object (WAV, FLAC, AIFF; every channel is used; may repeat: "
                  "microphones and strike points are fitted jointly)")
      ->required();
  cmd->add_option("-o,--output", *output, "the fitted model to write (.modal.json)")->required();
  cmd->add_option("--frequency-tolerance", *tolerance_percent,
                  "a partial is explained by a mode within this after the scale (%)")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 10.0));
  cmd->add_option("--scale-min", settings->scale_lo, "lowest frequency scale scanned")->capture_default_str()
      ->check(CLI::Range(0.05, 1.0));
  cmd->add_option("--scale-max", settings->scale_hi, "highest frequency scale scanned")->capture_default_str()
      ->check(CLI::Range(1.0, 20.0));
  cmd->add_option("--noise-margin", settings->noise_margin_db, "a partial stands this far above the noise floor (dB)")
      ->capture_default_str();
  cmd->add_option("--min-explained", *explained_percent,
                  "the share of the recorded partials' strength one scale must explain, else the recording "
                  "is taken for another object (%)")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 100.0));
  auto fit_poisson = std::make_shared<bool>(false);
  cmd->add_flag("--fit-poisson", *fit_poisson,
                "also fit the Poisson ratio nu (it changes the modes' ratios, which one E/rho scale cannot): a 1-D "
                "search with 8 re-solves of MESH (of a model: of the mesh it names, with its settings), E/rho and damping "
                "refitted at each");
  cmd->callback([options, references, output, settings, tolerance_percent, explained_percent, fit_poisson] {
    const auto start = std::chrono::steady_clock::now();
    settings->tolerance = *tolerance_percent / 100;
    settings->pair_spread = std::max(settings->pair_spread, settings->tolerance);
    settings->min_explained = *explained_percent / 100;
    settings->band_lo_hz = options->fmin_hz;
    settings->band_hi_hz = options->fmax_hz;
    if (fs::exists(options->input) && fs::exists(*output) && fs::equivalent(options->input, *output))
      throw Error(fmt::format("-o {} is the model being fitted: write the fitted model to another file", *output));
    const fs::path parent = fs::absolute(*output).parent_path();
    if (!fs::is_directory(parent)) throw Error(fmt::format("-o {}: no directory {}", *output, parent.string()));
    // The recordings first: a missing file fails before a mesh is analysed.
    std::vector<validate::Recording> recordings;
    for (const auto& path : *references)
      for (auto& r : validate::read_recordings(path)) recordings.push_back(std::move(r));
    if (!fs::exists(options->input)) throw Error(fmt::format("{}: no such file", options->input));
    validate::FitResult result;
    std::string poisson_line;
    if (*fit_poisson) {
      const AnalysisOptions solved = is_modal_model_path(options->input)
          ? options_from_model(options->input, *options, options->material_given || options->material_overrides.any())
          : *options;
      const double nu0 = resolve_material(solved).poisson_ratio;
      auto model_at = [&](double nu) {
        AnalysisOptions a = solved;
        a.material_overrides.poisson_ratio = nu;
        return analyze(a);
      };
      const validate::PoissonFit p = validate::fit_poisson(model_at, nu0, recordings, *settings);
      result = p.best;
      std::string tried;
      for (const auto& [nu, cost] : p.tried) tried += fmt::format("{}{:.3f}", tried.empty() ? "" : ", ", nu);
      poisson_line = fmt::format(
          "fit: Poisson ratio {:.3f} -> {:.3f} ({} solves at nu = {}): partials explained {} -> {} of {}, rms "
          "frequency error {:.3f} % -> {:.3f} %\n", p.initial_nu, p.nu, p.tried.size(), tried, p.initial.match.matched,
          p.best.match.matched, p.best.match.considered, 100 * p.initial.match.rms_error, 100 * p.best.match.rms_error);
    } else {
      AnalysisReport report;
      result = validate::fit_model(analyze(*options, &report), recordings, *settings);
    }
    fmt::print("{}", validate::fit_table(result));
    std::fflush(stdout);
    if (!is_quiet())
      for (const auto& n : result.notes) fmt::print(stderr, "fit: {}\n", n);
    if (!result.same_object) throw Error(result.verdict);
    write_modal_model(*output, result.fitted);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print("fit: {}\n{}", result.verdict, poisson_line);
    if (result.damping.fitted)
      fmt::print("fit: Rayleigh alpha {:.4g} 1/s, beta {:.4g} s from {} decays (rms error of the decay rates {:.1f} %)\n",
                 result.damping.alpha_per_s, result.damping.beta_s, result.damping.used,
                 100 * result.damping.rms_relative_error);
    fmt::print("fit: the fitted material: {}\n", validate::material_flags(result.fitted.material));
    fmt::print("fit: -> {} ({:.2f} s)\n", *output, seconds);
  });
}

}  // namespace mesh2dsp
