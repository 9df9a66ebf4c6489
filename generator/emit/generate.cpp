#include "emit/generate.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <set>

#include "emit/ambisonics.hpp"
#include "emit/emit_model.hpp"
#include "emit/emitters.hpp"
#include "emit/faust_target.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {
namespace fs = std::filesystem;

namespace {

fs::path directory_of(const fs::path& file) {
  return file.parent_path().empty() ? fs::path(".") : file.parent_path();
}

// Every file output with the kind of text it gets, keyed by path.
std::vector<std::pair<std::string, std::string>> file_outputs(const GenerateRequest& o) {
  return {{o.faust, "faust"}, {o.faust_effect, "faust-effect"}, {o.faust_lib, "faust-lib"},
          {o.cpp, "cpp"},     {o.c, "c"},                       {o.sy, "sy"}};
}

}  // namespace

void check_writable_directory(const fs::path& dir, const std::string& what) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw Error(fmt::format("cannot write {}: directory {} does not exist", what, dir.string()));
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    throw Error(fmt::format("cannot write {}: directory {} is not writable", what, dir.string()));
}

bool requests_output(const GenerateRequest& o, bool also) {
  bool any = also || !o.targets.empty();
  for (const auto& [path, kind] : file_outputs(o)) any |= !path.empty();
  return any;
}

void check_generate_request(const GenerateRequest& o) {
  parse_excitations(o.excitation);
  for (const auto& t : o.targets) find_faust_target(t);
  if (!o.plugin_uri.empty()) plugin_identity(o.plugin_uri, "bar", "", o.author);  // throws when malformed
  if (o.ambisonics != 0) check_ambisonic_order(o.ambisonics);
  if (o.resonator != "reson" && o.resonator != "modefilter")
    throw Error(fmt::format("unknown resonator \"{}\": reson or modefilter", o.resonator));
  if (!o.variant.empty() && o.variant != "instrument" && o.variant != "effect")
    throw Error(fmt::format("unknown variant \"{}\": instrument or effect", o.variant));
  for (const auto& [path, kind] : file_outputs(o))
    if (!path.empty()) check_writable_directory(directory_of(path), path);
  if (!o.targets.empty()) {
    std::error_code ec;
    fs::create_directories(o.target_dir, ec);
    check_writable_directory(o.target_dir, "the --target output");
  }
}

std::vector<fs::path> write_generated(const ModalModel& model, const GenerateRequest& o) {
  check_generate_request(o);
  const EmitModel emit = make_emit_model(model, o.name, o.ambisonics, o.resonator == "reson");
  EmitSettings settings = provenance_settings(model, o.input, o.author, o.license);
  settings.resonator = o.resonator == "modefilter" ? FaustResonator::modefilter : FaustResonator::reson;
  settings.excitations = parse_excitations(o.excitation);

  // Render everything before writing anything: a template error leaves no file behind.
  std::vector<std::pair<fs::path, std::string>> texts;
  for (const auto& [path, kind] : file_outputs(o)) {
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
  for (const auto& name : o.targets) {
    const FaustTarget& target = find_faust_target(name);
    const bool effect = o.variant.empty() ? target.effect_by_default : o.variant == "effect";
    const FaustVariant variant = effect ? FaustVariant::effect : FaustVariant::instrument;
    settings.file_name = identity.program_name + ".dsp";
    // The version is the program's fingerprint: any change to what the plugin computes changes it.
    settings.version.clear();
    identity.version = program_version(emit_faust(emit, variant, settings));
    settings.version = identity.version;
    const std::string dsp = emit_faust(emit, variant, settings);
    settings.version.clear();
    Progress progress(fmt::format("{} ({})", target.script, effect ? "effect" : "instrument"));
    const auto built = build_faust_target(target, identity, dsp, o.target_dir);
    progress.finish(built.front().string());
    model_dirs.insert(o.target_dir);
    if (!is_quiet())
      for (const auto& path : built)
        fmt::print(stderr, "mesh2dsp: built {} (version {}{})\n", path.string(), identity.version,
                   target.uri_prefix_option.empty() ? "" : ", URI " + identity.uri);
  }

  // The model beside what was emitted from it, so every output can be traced and re-emitted.
  if (!o.no_model_json)
    for (const auto& dir : model_dirs) {
      const fs::path json = dir / (emit.name + ".modal.json");
      std::error_code ec;
      if (fs::exists(json, ec) && !o.input.empty() && fs::equivalent(json, o.input, ec)) continue;
      write_modal_model(json, model);
    }
  return {model_dirs.begin(), model_dirs.end()};
}

}  // namespace mesh2dsp
