#pragma once
// The reference render as files (`mesh2dsp reference`): a mesh and the shared analysis options
// -> the tet mesh `modes` would make -> render_reference (reference.hpp) -> a float WAV, one
// channel per listener, and a JSON sidecar saying exactly how it was made.
#include <optional>
#include <string>

#include "analysis/analysis_options.hpp"

namespace mesh2dsp {

struct ReferenceJob {
  AnalysisOptions analysis;
  std::string output;
  std::string sidecar;
  std::string strike = "auto";
  std::string force = "cosine:0.0001";
  double force_amplitude = 1.0;
  std::string force_direction;
  double duration_s = 1.0;
  std::optional<double> dt_s;
  int oversampling = 0;  // steps per audio sample; 0: the accuracy rule of automatic_time_step
  bool single_precision = false;
  int sample_rate_hz = 48000;
  bool stereo = false;
  double dc_alpha = 0.1;
  bool nonlinear = false;
  bool no_visibility = false;
  std::string solver = "auto";      // auto (= cholmod) | simplicial | cholmod | cg
  bool strike_given = false;        // false: a non-default analysis.excite stands in for `strike`
  std::string command;              // the command line, recorded in the sidecar
};

// Checks every option before the tetrahedralization, renders, writes the WAV and the sidecar
// (each atomically). Throws mesh2dsp::Error.
void render_reference_files(const ReferenceJob& job);

}  // namespace mesh2dsp
