#pragma once
// Modal model -> program text. Each emitter fills one template from templates/ with the values
// of an EmitModel; nothing here writes files.
#include <string>
#include <vector>

#include "emit/emit_model.hpp"

namespace mesh2dsp {

enum class FaustVariant { instrument, effect, library };
enum class FaustResonator { reson, modefilter };

struct EmitSettings {
  std::string author = "mesh2dsp";
  std::string license = "CC0-1.0";
  std::string version;    // declared in the Faust output when not empty (plugin targets)
  std::string source;     // the model's origin, for provenance comments (relative path)
  std::string file_name;  // the emitted file's own name, for its header comment
  FaustResonator resonator = FaustResonator::reson;
  // The contact models the Faust instrument's excitation menu offers, in menu order (a subset of
  // excitation_kinds(), in its order). The C/C++ header always has them all.
  std::vector<std::string> excitations = {"impact", "hammer"};
};

// Settings naming the model's origin (its mesh, else `input`'s file name) and the author and
// license to declare.
EmitSettings provenance_settings(const ModalModel& model, const std::string& input, const std::string& author,
                                 const std::string& license);

// Every contact model (templates/faust/excitations.lib.mustache), in menu order:
// impact, hammer, micro, scrape, roll, input.
const std::vector<std::string>& excitation_kinds();
// "all", or a comma-separated list of excitation_kinds() names (any order, repeats ignored) ->
// the list in menu order. Throws mesh2dsp::Error naming the unknown model and the known ones.
std::vector<std::string> parse_excitations(const std::string& spec);

std::string emit_faust(const EmitModel& model, FaustVariant variant, const EmitSettings& settings);
// One header that compiles as C and as C++ (class mesh2dsp_models::<ClassName>).
std::string emit_c_header(const EmitModel& model, const EmitSettings& settings);
// The modes file of JASS (van den Doel), exactly as its jass.generators.ModalModel reader reads it:
// frequencies, decay rates, displacement amplitudes per location.
std::string emit_sy(const EmitModel& model, const EmitSettings& settings);

// The emission stage of the library API, on a modal model (make_emit_model checks it first;
// `name` empty keeps the model's): the Faust program or library, and the one C/C++ header.
std::string emit_faust(const ModalModel& model, FaustVariant variant, const EmitSettings& settings,
                       const std::string& name = {});
std::string emit_c_header(const ModalModel& model, const EmitSettings& settings, const std::string& name = {});

// Text that is safe inside a double-quoted Faust/C string and a comment: quotes, backslashes,
// control characters and comment terminators are replaced.
std::string plain_text(const std::string& text);

}  // namespace mesh2dsp
