// `mesh2dsp generate MESH|M.modal.json --faust X.dsp --cpp X.hpp ... [--target lv2 -o DIR]`:
// analysis when needed, then every requested emission. Options are checked and every output
// directory is verified before the (possibly long) analysis, so a typo fails at once.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "cli/analysis.hpp"
#include "cli/commands.hpp"
#include "emit/emit_model.hpp"
#include "emit/emitters.hpp"
#include "emit/faust_target.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"
#include "web/web_page.hpp"

namespace mesh2dsp {
namespace fs = std::filesystem;

namespace {

struct GenerateOptions {
  std::string faust, faust_effect, faust_lib, cpp, c, sy;
  std::string resonator = "reson";
  std::string excitation = "impact,hammer";
  std::string author = "mesh2dsp", license = "CC0-1.0";
  std::string plugin_uri;  // empty: urn:mesh2dsp:<vendor>:<material>/<name>
  std::vector<std::string> targets;
  std::string target_dir = ".";
  std::string variant;  // instrument | effect; empty: the target's default
  bool no_model_json = false;
  std::string web;  // --web DIR: the browser page (generator/web)
};

fs::path directory_of(const fs::path& file) {
  return file.parent_path().empty() ? fs::path(".") : file.parent_path();
}

void check_writable_directory(const fs::path& dir, const std::string& what) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw Error(fmt::format("cannot write {}: directory {} does not exist", what, dir.string()));
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    throw Error(fmt::format("cannot write {}: directory {} is not writable", what, dir.string()));
}

EmitSettings base_settings(const GenerateOptions& o, const ModalModel& model,
                              const AnalysisOptions& analysis) {
  EmitSettings settings;
  settings.author = o.author;
  settings.license = o.license;
  settings.source = model.mesh.source.empty() ? fs::path(analysis.input).filename().string()
                                              : model.mesh.source;
  return settings;
}

void run_generate(const CLI::App& cmd, const AnalysisOptions& analysis, const GenerateOptions& o) {
  // Every file output with its text producer, keyed by path.
  const std::vector<std::pair<std::string, std::string>> file_outputs{
      {o.faust, "faust"}, {o.faust_effect, "faust-effect"}, {o.faust_lib, "faust-lib"},
      {o.cpp, "cpp"},     {o.c, "c"},                       {o.sy, "sy"}};
  bool any = !o.targets.empty() || !o.web.empty();
  for (const auto& [path, kind] : file_outputs) any |= !path.empty();
  if (!any)
    throw Error("nothing to generate: give --faust, --faust-effect, --faust-lib, --cpp, --c, "
                "--sy, --target or --web");
  // Checked before the analysis: a typo fails at once, with no output file.
  const std::vector<std::string> excitations = parse_excitations(o.excitation);
  std::vector<const FaustTarget*> targets;
  for (const auto& t : o.targets) targets.push_back(&find_faust_target(t));
  if (!o.plugin_uri.empty()) plugin_identity(o.plugin_uri, "bar", "", o.author);  // throws when malformed
  for (const auto& [path, kind] : file_outputs)
    if (!path.empty()) check_writable_directory(directory_of(path), path);
  if (!targets.empty()) {
    std::error_code ec;
    fs::create_directories(o.target_dir, ec);
    check_writable_directory(o.target_dir, "the --target output");
  }

  if (!o.web.empty()) {  // a page that cannot be written fails before the analysis
    web_assets_dir();
    std::error_code ec;
    fs::create_directories(o.web, ec);
    check_writable_directory(o.web, "the --web page");
  }

  // Only --material names a preset; overrides alone apply to the model's own material.
  const bool material_given = cmd.get_option("--material")->count() > 0;
  AnalysisReport report;
  ModalModel model = load_or_analyze(analysis, material_given, &report);
  if (!o.web.empty() && !model.surface)  // before any output is written
    throw Error("--web needs the surface data the model file does not carry: give generate the "
                "mesh, or a model written by `mesh2dsp modes MESH --surface-data`");
  if (!is_quiet()) fmt::print(stderr, "{}\n", summary_line(model, report));
  const EmitModel emit = make_emit_model(model, analysis.name);

  EmitSettings settings = base_settings(o, model, analysis);
  settings.resonator =
      o.resonator == "modefilter" ? FaustResonator::modefilter : FaustResonator::reson;
  settings.excitations = excitations;

  // Render everything before writing anything: a template error leaves no file behind.
  std::vector<std::pair<fs::path, std::string>> texts;
  for (const auto& [path, kind] : file_outputs) {
    if (path.empty()) continue;
    settings.file_name = fs::path(path).filename().string();
    std::string text;
    if (kind == "faust") text = emit_faust(emit, FaustVariant::instrument, settings);
    else if (kind == "faust-effect") text = emit_faust(emit, FaustVariant::effect, settings);
    else if (kind == "faust-lib") text = emit_faust(emit, FaustVariant::library, settings);
    else if (kind == "sy") text = emit_sy(emit, settings);
    else text = emit_c_header(emit, settings);
    texts.emplace_back(path, std::move(text));
  }
  std::set<fs::path> model_dirs;
  for (const auto& [path, text] : texts) {
    write_text_atomically(path, text);
    model_dirs.insert(directory_of(path));
  }

  PluginIdentity identity = plugin_identity(o.plugin_uri, emit.name, model.material.name, o.author);
  for (const FaustTarget* target : targets) {
    const bool effect = o.variant.empty() ? target->effect_by_default : o.variant == "effect";
    const FaustVariant variant = effect ? FaustVariant::effect : FaustVariant::instrument;
    settings.file_name = identity.program_name + ".dsp";
    // The version is the program's fingerprint: any change to what the plugin computes changes it.
    settings.version.clear();
    identity.version = program_version(emit_faust(emit, variant, settings));
    settings.version = identity.version;
    const std::string dsp = emit_faust(emit, variant, settings);
    settings.version.clear();
    Progress progress(fmt::format("{} ({})", target->script, effect ? "effect" : "instrument"));
    const auto built = build_faust_target(*target, identity, dsp, o.target_dir);
    progress.finish(built.front().string());
    model_dirs.insert(o.target_dir);
    if (!is_quiet())
      for (const auto& path : built)
        fmt::print(stderr, "mesh2dsp: built {} (version {}{})\n", path.string(), identity.version,
                   target->uri_prefix_option.empty() ? "" : ", URI " + identity.uri);
  }

  if (!o.web.empty()) {
    const WebPage page = write_web_page(model, o.web, settings);
    if (!is_quiet())
      fmt::print(stderr, "mesh2dsp: page {} ({:.1f} MB)\n", page.index.string(), page.bytes / 1e6);
  }
  // The surface data goes beside the outputs' model only when the input model carried it.
  if (report.solved) model.surface.reset();

  // The model beside what was emitted from it, so every output can be traced and re-emitted.
  if (!o.no_model_json)
    for (const auto& dir : model_dirs) {
      const fs::path json = dir / (emit.name + ".modal.json");
      std::error_code ec;
      if (fs::exists(json, ec) && fs::equivalent(json, analysis.input, ec)) continue;
      write_modal_model(json, model);
    }
}

}  // namespace

void register_generate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "generate", "analysis (if needed) + emission: Faust .dsp/.lib, C/C++ header, .sy, plugins");
  auto analysis = std::make_shared<AnalysisOptions>();
  auto o = std::make_shared<GenerateOptions>();
  add_analysis_options(*cmd, *analysis);
  add_solver_option(*cmd, analysis->solver);
  cmd->add_option("--faust", o->faust, "Faust instrument: library function + hammer + UI (.dsp)");
  cmd->add_option("--faust-effect", o->faust_effect,
                  "Faust effect: the audio input is the force on the object (.dsp)");
  cmd->add_option("--faust-lib", o->faust_lib, "Faust library: <name>Model and <name>Strike only (.lib)");
  cmd->add_option("--cpp", o->cpp, "C++ header (also compiles as C): prepare/reset/strike/process");
  cmd->add_option("--c", o->c, "the same header under a C name (.h)");
  cmd->add_option("--sy", o->sy, "van den Doel's JASS modes file (.sy)");
  cmd->add_option("--resonator", o->resonator,
                  "Faust resonator: reson (exact, same as the C++ header) or modefilter (pm.modeFilter)")
      ->capture_default_str()
      ->check(CLI::IsMember({"reson", "modefilter"}));
  cmd->add_option("--excitation", o->excitation,
                  "contact models in the Faust instrument's excitation menu: all, or a comma-separated "
                  "list of impact, hammer, micro (micro-collisions), scrape, roll, input (live audio in)")
      ->capture_default_str();
  cmd->add_option("--author,--vendor", o->author,
                  "author declared in the Faust output; the vendor in a plugin's default URI")
      ->capture_default_str();
  cmd->add_option("--plugin-uri", o->plugin_uri,
                  "the --target plugin's URI, ending in /NAME (NAME: the binary's and bundle's name); "
                  "default urn:mesh2dsp:<vendor>:<material>/<model name>");
  cmd->add_option("--license", o->license, "license declared in the Faust output")->capture_default_str();
  cmd->add_option("--target", o->targets,
                  "build with the Faust toolchain: lv2 (faust2lv2), jackconsole (faust2jackconsole -osc), puredata "
                  "(faust2puredata: <name>~.pd_linux), supercollider (faust2supercollider: <name>.so, <name>.sc); "
                  "may repeat; "
                  "a plugin's version is a fingerprint of its program");
  cmd->add_option("-o,--output-dir", o->target_dir, "where --target puts what it builds")
      ->capture_default_str();
  cmd->add_option("--variant", o->variant,
                  "what --target builds: instrument or effect (default: effect for lv2, instrument otherwise)")
      ->check(CLI::IsMember({"instrument", "effect"}));
  cmd->add_option("--web", o->web,
                  "also write the offline browser page into this folder (as `mesh2dsp view -o`)");
  cmd->add_flag("--no-model-json", o->no_model_json,
                "do not write <name>.modal.json beside the outputs");
  cmd->callback([cmd, analysis, o] { run_generate(*cmd, *analysis, *o); });
}

}  // namespace mesh2dsp
