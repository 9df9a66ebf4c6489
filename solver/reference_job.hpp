#pragma once
// The reference render as files (`mesh2dsp reference`): a mesh and the shared analysis options
// -> the tet mesh `modes` would make -> render_reference (reference.hpp) -> a float WAV, one
// channel per listener, and a JSON sidecar saying exactly how it was made.
#include <optional>
#include <string>

#include "analysis/analysis_options.hpp"
#include "reference.hpp"

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
  bool single_precision = true;  // the factor in float (ReferenceSettings::single_precision)
  int sample_rate_hz = 48000;
  bool stereo = false;
  double dc_alpha = 0.1;
  bool nonlinear = false;
  bool no_visibility = false;
  std::string solver = "auto";      // auto (= cholmod) | simplicial | cholmod | cg
  bool strike_given = false;        // false: a non-default analysis.excite stands in for `strike`
  std::string command;              // the command line, recorded in the sidecar
};

// The options' own checks (force, duration, time step, DC blocker, listeners): cheap, before
// any meshing. Throws mesh2dsp::Error.
void check_reference_job(const ReferenceJob& job);

// The render itself, kept in memory (job.output, sidecar and command unused): the tet mesh
// `modes` would make from the same options, the strike, the listeners, render_reference.
struct ReferenceRender {
  ReferenceResult result;      // channels: one per listener (two per listener with stereo)
  ReferenceSettings settings;  // as rendered: time step, strike, listener positions
  Material material;
  std::string strike_spec;
  bool default_listener_used = false;
  int vertices = 0, tetrahedra = 0, element_order = 0, nodes = 0;
};
ReferenceRender render_reference_job(const ReferenceJob& job);

// Checks every option and the outputs before the tetrahedralization, renders, writes the WAV
// and the sidecar (each atomically). Throws mesh2dsp::Error.
void render_reference_files(const ReferenceJob& job);

}  // namespace mesh2dsp
