// libFuzzer harness: the modal model file (`.modal.json`) as generate, render and validate read
// it: parsed and checked, re-tuned to another material (what `modes M.modal.json --material X`
// does), then emitted as Faust and as the C/C++ header (what `generate M.modal.json` does).
#include <cstdint>
#include <string>

#include "emit/emit_model.hpp"
#include "emit/emitters.hpp"
#include "fem/material.hpp"
#include "fuzz_support.hpp"
#include "modal/modal_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  mesh2dsp::fuzz::expect_clean_outcome([&] {
    auto model = mesh2dsp::modal_model_from_json(text, "fuzz.modal.json");
    const auto emit = mesh2dsp::make_emit_model(model);
    mesh2dsp::EmitSettings settings;
    settings.excitations = mesh2dsp::excitation_kinds();
    mesh2dsp::emit_faust(emit, mesh2dsp::FaustVariant::instrument, settings);
    mesh2dsp::emit_c_header(emit, settings);
    auto retuned = model.material;
    retuned.youngs_modulus_pa *= 1.5;
    retuned.rayleigh_mass_per_s = 2;
    mesh2dsp::retune_material(model, retuned);
    mesh2dsp::modal_model_to_json(model);
  });
  return 0;
}
