// The library API end to end, as the README's "As a library" shows it: analysis from a file and
// from a surface in memory, emission on the model, a render kept in memory, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "analysis/analysis.hpp"
#include "emit/emitters.hpp"
#include "fem/surface_mesh.hpp"
#include "runtime/render/offline_render.hpp"
#include "support/error_of.hpp"
#include "util/progress.hpp"
#include "validate/signal_analysis.hpp"

namespace {

namespace fs = std::filesystem;
using namespace mesh2dsp;

const fs::path kBar = fs::path(MESH2DSP_SOURCE_DIR) / "meshes" / "bar.obj";

AnalysisOptions bar_options() {
  AnalysisOptions o;
  o.input = kBar.string();
  o.material_name = "steel";
  o.modes = 6;
  o.excite = "auto:2";
  return o;
}

TEST(LibraryApi, FileAndSurfaceInMemoryGiveTheSameModel) {
  set_quiet(true);
  const ModalModel from_file = analyze(bar_options());
  ASSERT_EQ(from_file.modes.size(), 6u);
  EXPECT_EQ(from_file.name, "bar");
  AnalysisOptions o = bar_options();
  o.input.clear();
  const ModalModel from_memory = analyze(read_surface_mesh(kBar), o);
  EXPECT_EQ(from_memory.name, "model");
  ASSERT_EQ(from_memory.modes.size(), 6u);
  for (size_t n = 0; n < 6; ++n)
    EXPECT_NEAR(from_memory.modes[n].frequency_hz, from_file.modes[n].frequency_hz, 1e-6 * from_file.modes[n].frequency_hz);
}

TEST(LibraryApi, EmittedInstrumentRenderedInMemoryRingsAtTheFundamental) {
  set_quiet(true);
  const ModalModel model = analyze(bar_options());
  const std::string dsp = emit_faust(model, FaustVariant::instrument, {});
  EXPECT_NE(emit_c_header(model, {}).find("prepare"), std::string::npos);
  runtime::RenderJob job;
  job.dsp_path = "bar.dsp";
  job.dsp_source = dsp;
  job.duration_s = 0.5;
  job.sample_rate_hz = 48000;
  job.events = runtime::parse_trigger("gate@0");
  const runtime::RenderedAudio audio = runtime::render(job);
  ASSERT_GE(audio.channels.size(), 1u);
  ASSERT_EQ(audio.channels[0].size(), 24000u);
  EXPECT_EQ(audio.sample_rate_hz, 48000);
  // The strongest partial of the struck bar is one of the model's modes.
  const signal::Spectrum spectrum = signal::magnitude_spectrum(audio.channels[0], 48000);
  const double best_hz = spectrum.peak_in(20, 20000);
  double nearest = 1e9;
  for (const auto& m : model.modes) nearest = std::min(nearest, std::abs(m.frequency_hz - best_hz));
  EXPECT_LT(nearest, 2 * spectrum.bin_hz) << best_hz;
}

TEST(LibraryApi, BadOptionsAreErrorsWithTheCliMessages) {
  AnalysisOptions o = bar_options();
  o.element_order = 4;
  EXPECT_EQ(test::error_of([&] { analyze(o); }), "--element-order: 4 is not 1 (linear), 2 (quadratic) or 3 (cubic)");
  o = bar_options();
  o.normalize = "loud";
  EXPECT_NE(test::error_of([&] { analyze(o); }).find("--normalize"), std::string::npos);
  o = bar_options();
  o.input = "no/such.obj";
  EXPECT_EQ(test::error_of([&] { analyze(o); }), "no/such.obj: no such file");
  runtime::RenderJob job;
  job.dsp_source = "process = nothing_here;";
  EXPECT_THROW(runtime::render(job), Error);
}

}  // namespace
