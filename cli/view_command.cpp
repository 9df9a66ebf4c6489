// `mesh2dsp view M.modal.json|MESH -o DIR [--serve]`: the offline browser page (README,
// "Seeing and playing it"). A mesh is analysed first with the shared analysis options.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <filesystem>

#include "analysis/analysis.hpp"
#include "cli/analysis_flags.hpp"
#include "cli/commands.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"
#include "web/web_page.hpp"

namespace mesh2dsp {
namespace fs = std::filesystem;

namespace {

struct ViewOptions {
  std::string output;
  bool serve = false;
  int port = 0;
  std::string author = "mesh2dsp", license = "CC0-1.0";
};

void run_view(const AnalysisOptions& analysis, const ViewOptions& o) {
  if (o.output.empty() && !o.serve) throw Error("view: give -o DIR (and/or --serve)");
  web_assets_dir();  // before any analysis: a missing build fails at once
  AnalysisReport report;
  const ModalModel model = analyze(analysis, &report);
  if (report.solved && !is_quiet()) fmt::print(stderr, "{}\n", summary_line(model, report));
  fs::path dir = o.output;
  if (dir.empty())
    dir = fs::temp_directory_path() /
          fmt::format("mesh2dsp-view-{}-{}", model.name,
                      std::chrono::steady_clock::now().time_since_epoch().count());
  const WebPage page = write_web_page(model, dir, provenance_settings(model, analysis.input, o.author, o.license));
  if (!is_quiet())
    fmt::print(stderr, "mesh2dsp: page {} ({:.1f} MB): open it in a browser\n",
               page.index.string(), page.bytes / 1e6);
  if (o.serve)
    serve_directory(dir, o.port, [](const std::string& url) {
      fmt::print("{}\n", url);  // stdout: the one line a script reads
      std::fflush(stdout);
    });
}

}  // namespace

void register_view_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "view", "an offline browser page: the object, its modes, strike anywhere, hear the Faust");
  auto analysis = std::make_shared<AnalysisOptions>();
  auto o = std::make_shared<ViewOptions>();
  add_analysis_options(*cmd, *analysis);
  cmd->add_option("-o,--output", o->output, "the folder to write (index.html and its assets)");
  cmd->add_flag("--serve", o->serve, "serve the folder on localhost and print its URL (Ctrl-C ends)");
  cmd->add_option("--port", o->port, "port for --serve (default: any free one)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--author", o->author, "author declared in the Faust programs")->capture_default_str();
  cmd->add_option("--license", o->license, "license declared in the Faust programs")->capture_default_str();
  cmd->callback([analysis, o] { run_view(*analysis, *o); });
}

}  // namespace mesh2dsp
