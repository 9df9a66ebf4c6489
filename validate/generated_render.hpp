#pragma once
// The generated side of a validation: a Faust program (emitted in-process from the model, or
// the user's .dsp) compiled by the JIT runtime and driven by the reference's own force, so the
// two renders see the same excitation.
#include <filesystem>
#include <string>
#include <vector>

#include "forces.hpp"
#include "runtime/jit/faust_compiler.hpp"

namespace mesh2dsp::validate {

// The force as the generated effect's input wants it: the momentum (N·s) delivered in each
// sample, ∫F dt over [j/fs, (j+1)/fs) (an impulse: its momentum in sample 0).
std::vector<float> momentum_per_sample(const ForceProfile& force, double rate_hz, long long frames);

struct GeneratedRequest {
  std::string source;                 // Faust program text
  std::string name = "model";         // for messages
  std::filesystem::path include_dir;  // where a user's .dsp imports from
  double sample_rate_hz = 48000;
  long long frames = 0;
  int output = 0;          // which DSP output (listener) to keep
  int point = 0;           // excitation point (the "excitation point" control), when present
  std::vector<float> force_momentum;  // fed to every input; programs without inputs are struck
  double strike_momentum = 1;  // ... by their first button, and scaled by this
  runtime::CompileOptions compile;
};

struct GeneratedRender {
  std::vector<float> samples;
  double compile_s = 0;
  bool from_cache = false;
  bool driven_by_input = true;  // false: struck by its own button (an instrument .dsp)
  int outputs = 0;
};

// Throws mesh2dsp::Error (CompileError for Faust errors) naming the problem.
GeneratedRender render_generated(const GeneratedRequest& request);

}  // namespace mesh2dsp::validate
