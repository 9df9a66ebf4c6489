#pragma once
// The emission stage of the library API as files: a modal model -> every requested output
// (Faust .dsp/.lib, C/C++ header, .sy, Faust-toolchain plugins) and the model beside them.
// The text emitters themselves are emitters.hpp; this writes what they return.
#include <filesystem>
#include <string>
#include <vector>

#include "modal/modal_model.hpp"

namespace mesh2dsp {

struct GenerateRequest {
  // Output files; empty: not written.
  std::string faust, faust_effect, faust_lib, cpp, c, sy;
  std::string resonator = "reson";             // reson | modefilter
  std::string excitation = "impact,hammer";    // the Faust instrument's contact models
  std::string author = "mesh2dsp", license = "CC0-1.0";
  std::string plugin_uri;                      // empty: urn:mesh2dsp:<vendor>:<material>/<name>
  std::vector<std::string> targets;            // lv2, jackconsole, puredata, supercollider
  std::string target_dir = ".";
  std::string variant;                         // instrument | effect; empty: the target's default
  bool no_model_json = false;
  int ambisonics = 0;                          // > 0: outputs are ambisonic channels of this order
  std::string name;                            // the emitted name (default: the model's)
  std::string input;                           // what the model came from (provenance, and never overwritten)
};

// True when the request asks for at least one output besides `also` (the CLI's --web).
bool requests_output(const GenerateRequest& request, bool also = false);

// Every check that needs no model: excitation list, targets, plugin URI, output directories
// (the target directory is created). Throws mesh2dsp::Error; call it before a long analysis.
void check_generate_request(const GenerateRequest& request);

// Throws mesh2dsp::Error when `dir` is not a writable directory (`what` names the output).
void check_writable_directory(const std::filesystem::path& dir, const std::string& what);

// Renders every output before writing any (a template error leaves no file), writes them
// atomically, builds the targets, and writes <name>.modal.json beside each output unless
// no_model_json. Returns the directories written to. Throws mesh2dsp::Error.
std::vector<std::filesystem::path> write_generated(const ModalModel& model, const GenerateRequest& request);

}  // namespace mesh2dsp
