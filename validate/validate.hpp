#pragma once
// The validation stage of the library API (`mesh2dsp validate`, issue 6): a generated model (or
// its Faust program) against a reference render from the mesh or a recording, or (analytic)
// against the continuum theory of the mesh's shape. Writes the report directory.
#include <optional>
#include <string>

#include "analysis/analysis_options.hpp"
#include "runtime/jit/faust_compiler.hpp"

namespace mesh2dsp {

struct ValidateOptions {
  // MESH (analysis.input): the reference is rendered from it; or model + reference.
  AnalysisOptions analysis;
  std::string model, dsp, reference, report = "validate-report";
  int reference_channel = 0, point = 0, output = 0;
  std::string strike;
  std::string force = "cosine:0.0001";
  double force_amplitude = 1.0;
  double duration_s = 0.25;  // P2 bundled bar at one step per sample: about 14 s here (issue 12)
  std::optional<double> dt_s;
  int oversampling = 1;  // reference steps per audio sample; the warp is corrected exactly
  bool single_precision = true;  // the reference's factor in float (ReferenceSettings::single_precision)
  std::optional<int> sample_rate_hz;
  double dc_alpha = 0.1;
  bool dc_alpha_given = false;  // a given --dc-alpha also applies to a --reference recording
  // A recording without --point / --output: the place that explains it best.
  bool point_given = false, output_given = false;
  bool align_fundamental = false;
  double frequency_tolerance_percent = 0.5, t60_tolerance_percent = 10;
  double lsd_bound_db = 6, level_tolerance_db = 3, onset_tolerance_ms = 2, spurious_db = 20;
  int max_missing = 0;
  double judge_floor_db = 60;
  bool analytic = false;
  double analytic_tolerance_percent = 2;
  runtime::CompileOptions compile;  // how the generated program is JIT-compiled
};

struct ValidationVerdict {
  bool passed = false;
  std::string text;  // the verdict and each failed measure, one per line (the command prints it)
};

// Throws mesh2dsp::Error (one message, no report) on bad input; a failed measure is a verdict
// with passed = false (the report is written).
ValidationVerdict validate_model(const ValidateOptions& options);

}  // namespace mesh2dsp
