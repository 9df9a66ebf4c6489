// `mesh2dsp generate MESH|M.modal.json --faust X.dsp --cpp X.hpp ... [--target lv2 -o DIR]`:
// analysis when needed, then every requested emission. Options are checked and every output
// directory is verified before the (possibly long) analysis, so a typo fails at once.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>

#include "analysis/analysis.hpp"
#include "cli/analysis_flags.hpp"
#include "cli/commands.hpp"
#include "emit/ambisonics.hpp"
#include "emit/generate.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"
#include "web/web_page.hpp"

namespace mesh2dsp {
namespace fs = std::filesystem;

namespace {

void run_generate(const AnalysisOptions& analysis, GenerateRequest o, const std::string& web) {
  if (!requests_output(o, !web.empty()))
    throw Error("nothing to generate: give --faust, --faust-effect, --faust-lib, --cpp, --c, "
                "--sy, --target or --web");
  o.name = analysis.name;
  o.input = analysis.input;
  check_generate_request(o);  // before the analysis: a typo fails at once, with no output file
  if (o.ambisonics && !is_modal_model_path(analysis.input) && analysis.radiation != "bem")
    throw Error("--ambisonics needs each mode's far-field directivity: add --radiation bem");
  if (!web.empty()) {  // a page that cannot be written fails before the analysis
    web_assets_dir();
    std::error_code ec;
    fs::create_directories(web, ec);
    check_writable_directory(web, "the --web page");
  }
  AnalysisReport report;
  ModalModel model = analyze(analysis, &report);
  if (!web.empty() && !model.surface)  // before any output is written
    throw Error("--web needs the surface data the model file does not carry: give generate the "
                "mesh, or a model written by `mesh2dsp modes MESH --surface-data`");
  if (o.ambisonics) check_ambisonic_model(model, o.ambisonics);  // before any output
  if (!is_quiet()) fmt::print(stderr, "{}\n", summary_line(model, report));
  if (!web.empty()) {
    const WebPage page = write_web_page(model, web, provenance_settings(model, analysis.input, o.author, o.license));
    if (!is_quiet())
      fmt::print(stderr, "mesh2dsp: page {} ({:.1f} MB)\n", page.index.string(), page.bytes / 1e6);
  }
  // The surface data goes beside the outputs' model only when the input model carried it.
  if (report.solved) model.surface.reset();
  write_generated(model, o);
}

}  // namespace

void register_generate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "generate", "analysis (if needed) + emission: Faust .dsp/.lib, C/C++ header, .sy, plugins");
  auto analysis = std::make_shared<AnalysisOptions>();
  auto o = std::make_shared<GenerateRequest>();
  auto web = std::make_shared<std::string>();
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
  cmd->add_option("--web", *web,
                  "also write the offline browser page into this folder (as `mesh2dsp view -o`)");
  auto set_ambisonics = [o](int order) {  // a bad order fails while parsing, before anything runs
    check_ambisonic_order(order);
    o->ambisonics = order;
  };
  cmd->add_option_function<int>("--ambisonics", set_ambisonics,
                  "outputs: the object's far field as (ORDER+1)^2 ambisonic channels (ACN order, SN3D, "
                  "ambiX axes = the mesh's: x front, y left, z up) with a yaw control, in place of the "
                  "listeners; needs the directivity of --radiation bem")
      ->type_name("ORDER");
  cmd->add_flag("--no-model-json", o->no_model_json,
                "do not write <name>.modal.json beside the outputs");
  cmd->callback([analysis, o, web] { run_generate(*analysis, *o, *web); });
}

}  // namespace mesh2dsp
