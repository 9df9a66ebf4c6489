#pragma once
// --target lv2|jackconsole: hands an emitted .dsp to the Faust toolchain's own scripts
// (faust2lv2, faust2jackconsole) in a scratch directory and installs what they build.
#include <filesystem>
#include <string>
#include <vector>

namespace mesh2dsp {

struct FaustTarget {
  std::string name;          // "lv2"
  std::string script;        // "faust2lv2"
  bool artifact_is_bundle;   // <name>.lv2 directory, or an executable <name>
  bool effect_by_default;    // which .dsp variant suits the target unless --variant says
};

const std::vector<FaustTarget>& faust_targets();
// Throws mesh2dsp::Error naming the known targets.
const FaustTarget& find_faust_target(const std::string& name);

// Builds `dsp_text` (saved as <program_name>.dsp) with the target's script and installs the
// result into `output_dir` (replacing an older one only once the new one is complete).
// Returns the installed path. Throws mesh2dsp::Error with the script's own diagnostics.
std::filesystem::path build_faust_target(const FaustTarget& target, const std::string& program_name,
                                         const std::string& dsp_text,
                                         const std::filesystem::path& output_dir);

}  // namespace mesh2dsp
