#pragma once
// report.json (every number) and report.html (read at a glance: verdict, measures, overlaid
// spectra with the model's modes, spectrograms side by side, the mode table, stage timing).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "util/stage_timer.hpp"
#include "validate/comparison.hpp"

namespace mesh2dsp::validate {

// Exit status of `mesh2dsp validate`: 0 pass, 1 error (bad input; no report), 2 the run
// completed and the report is written, but a measure is out of tolerance.
inline constexpr int kExitValidationFailed = 2;

struct ReportInput {
  std::string title;                    // "bar: steel, vertex:12, listener (0, 0, 0.5)"
  nlohmann::ordered_json inputs;        // what was compared and how (free-form, shown as a table)
  Comparison comparison;
  Tolerances tolerances;
  std::vector<ExpectedMode> modes;
  std::vector<StageRecord> stages;      // wall time per stage
  std::string spectrum_svg, reference_spectrogram_svg, generated_spectrogram_svg;
  std::vector<std::pair<std::string, std::string>> audio;  // label, file name in the report dir
  std::vector<std::string> notes;       // caveats shown under the verdict
};

nlohmann::ordered_json report_json(const ReportInput& report);
std::string report_html(const ReportInput& report);

// Writes `files` (name → bytes) and then report.json and report.html into `directory`
// (created if needed), each through a temporary and a rename: report.html, written last,
// exists only when everything else does. Throws mesh2dsp::Error.
void write_report(const std::filesystem::path& directory, const ReportInput& report,
                  const std::vector<std::pair<std::string, std::string>>& files);

// Throws mesh2dsp::Error at once when `directory` cannot be created or written (checked before
// the long renders).
void check_report_directory(const std::filesystem::path& directory);

}  // namespace mesh2dsp::validate
