#pragma once
// Modal model -> program text. Each emitter fills one template from templates/ with the values
// of an EmitModel; nothing here writes files.
#include <string>

#include "emit/emit_model.hpp"

namespace mesh2dsp {

enum class FaustVariant { instrument, effect, library };
enum class FaustResonator { reson, modefilter };

struct EmitSettings {
  std::string author = "mesh2dsp";
  std::string license = "CC0-1.0";
  std::string source;     // the model's origin, for provenance comments (relative path)
  std::string file_name;  // the emitted file's own name, for its header comment
  FaustResonator resonator = FaustResonator::reson;
};

std::string emit_faust(const EmitModel& model, FaustVariant variant, const EmitSettings& settings);
// One header that compiles as C and as C++ (class mesh2dsp_models::<ClassName>).
std::string emit_c_header(const EmitModel& model, const EmitSettings& settings);
// van den Doel's JASS modes file (seed 003): frequencies, decay rates, gains per location.
std::string emit_sy(const EmitModel& model, const EmitSettings& settings);

// Text that is safe inside a double-quoted Faust/C string and a comment: quotes, backslashes,
// control characters and comment terminators are replaced.
std::string plain_text(const std::string& text);

}  // namespace mesh2dsp
