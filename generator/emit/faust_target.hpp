#pragma once
// --target lv2|jackconsole|...: hands an emitted .dsp to the Faust toolchain's own scripts
// (faust2lv2, faust2jackconsole, ...) in a scratch directory and installs what they build.
#include <filesystem>
#include <string>
#include <vector>

namespace mesh2dsp {

struct FaustTarget {
  std::string name;                    // "lv2"
  std::string script;                  // "faust2lv2"
  std::vector<std::string> artifacts;  // what it builds, "{}" standing for the program name
  bool effect_by_default;              // which .dsp variant suits the target unless --variant says
  std::string uri_prefix_option;       // the script's option for the URI before "/<program>" (lv2)
  std::vector<std::string> options;    // fixed options for the script
};

// Who a plugin is: its URI (LV2 identifies plugins by URI alone, so two "bar"s must differ), the
// program name the toolchain names the binary, class and bundle after (the URI's last segment),
// and a version that changes whenever the plugin's program does.
struct PluginIdentity {
  std::string uri;           // "urn:mesh2dsp:<vendor>:<material>/<name>" unless --plugin-uri
  std::string program_name;  // the URI's last segment: a C identifier
  std::string version;       // "1.<16 hex digits>": a fingerprint of the emitted program

  std::string uri_prefix() const { return uri.substr(0, uri.size() - program_name.size() - 1); }
};

// The identity from --plugin-uri (empty: the default from the model's name, its material and the
// vendor). Throws mesh2dsp::Error when the URI is not absolute or its last segment is not a C
// identifier (the Faust scripts name the plugin class after it).
PluginIdentity plugin_identity(const std::string& plugin_uri, const std::string& model_name,
                               const std::string& material_name, const std::string& vendor);
// "1." and 16 hex digits of the FNV-1a hash of the program text.
std::string program_version(const std::string& program_text);

const std::vector<FaustTarget>& faust_targets();
// Throws mesh2dsp::Error naming the known targets.
const FaustTarget& find_faust_target(const std::string& name);

// Builds `dsp_text` (saved as <program_name>.dsp) with the target's script and installs the
// results into `output_dir` (each replacing an older one only once the new one is complete).
// Returns the installed paths. Throws mesh2dsp::Error with the script's own diagnostics.
std::vector<std::filesystem::path> build_faust_target(const FaustTarget& target, const PluginIdentity& identity,
                                                      const std::string& dsp_text,
                                                      const std::filesystem::path& output_dir);

}  // namespace mesh2dsp
