#include "validate/generated_render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include <faust/gui/meta.h>

#include "runtime/dsp/control_layout.hpp"
#include "runtime/render/offline_render.hpp"
#include "util/error.hpp"

namespace mesh2dsp::validate {

std::vector<float> momentum_per_sample(const ForceProfile& force, double rate_hz, long long frames) {
  std::vector<float> out(static_cast<std::size_t>(frames), 0.0f);
  if (frames <= 0) return out;
  if (force.kind == ForceKind::impulse) {
    out[0] = static_cast<float>(force.amplitude);
    return out;
  }
  // Midpoint rule with 64 sub-steps per sample: exact to ~1e-4 for a contact of a few samples.
  constexpr int kSub = 64;
  const double dt = 1.0 / (rate_hz * kSub);
  const double end_s = force_end_s(force);
  for (long long j = 0; j < frames; ++j) {
    const double t0 = static_cast<double>(j) / rate_hz;
    if (t0 > end_s) break;
    double sum = 0;
    for (int i = 0; i < kSub; ++i) sum += force_at(force, t0 + (i + 0.5) * dt);
    out[j] = static_cast<float>(sum * dt);
  }
  return out;
}

GeneratedRender render_generated(const GeneratedRequest& r) {
  runtime::FaustCompiler compiler(r.compile);
  const runtime::CompiledProgram program = compiler.compile_string(r.name, r.source, r.include_dir);
  auto instance = program.instantiate();
  instance->init(static_cast<int>(r.sample_rate_hz));
  GeneratedRender out;
  out.compile_s = program.compile_s();
  out.from_cache = program.from_cache();
  out.outputs = instance->getNumOutputs();
  if (r.output >= out.outputs)
    throw Error(fmt::format("{}: output {} asked for, but the program has {} output(s)", r.name,
                            r.output, out.outputs));

  // The emitted output level (declare mesh2dsp_level): the comparison wants the bank itself.
  struct LevelMeta : Meta {
    double level = 1;
    void declare(const char* key, const char* value) override {
      if (std::string(key) == "mesh2dsp_level") level = std::atof(value);
    }
  } meta;
  instance->metadata(&meta);
  // Controls: unit gain, the requested excitation point, an input gain that makes an input
  // sample the momentum of that sample (the input is a force in N: N = momentum * rate);
  // everything else at its default.
  const auto layout = runtime::ControlLayout::of(*instance);
  std::vector<runtime::ZoneEvent> events;
  const runtime::ControlItem* first_button = nullptr;
  for (const auto* c : layout.controls()) {
    if (c->is_button() && !first_button) first_button = c;
    if (c->label == "gain") *c->zone = 1;
    if (c->label == "input gain") *c->zone = static_cast<FAUSTFLOAT>(r.sample_rate_hz);
    if (c->label == "excitation point") {
      if (r.point > c->max) throw Error(fmt::format("{}: excitation point {} asked for, the program has {}",
                                                    r.name, r.point, static_cast<int>(c->max) + 1));
      *c->zone = static_cast<FAUSTFLOAT>(r.point);
    }
  }
  const int inputs = instance->getNumInputs();
  out.driven_by_input = inputs > 0;
  if (!out.driven_by_input) {
    if (!first_button)
      throw Error(fmt::format("{}: the program has neither an input for the force nor a button to "
                              "strike it", r.name));
    const auto release = static_cast<std::int64_t>(std::llround(0.010 * r.sample_rate_hz));
    events.push_back({0, first_button->zone, 1});
    events.push_back({release, first_button->zone, 0});
  }

  // Pre-roll in silence: the program smooths its gain (si.smooth, 10 ms), which would start at
  // 0 and shape the attack. 0.2 s is 20 time constants; the resonators stay at rest.
  {
    runtime::OfflineIO silence;
    silence.read_input = [&](float* const* in, int n) {
      for (int c = 0; c < inputs; ++c) std::fill(in[c], in[c] + n, 0.0f);
    };
    runtime::run_offline(*instance, static_cast<std::int64_t>(0.2 * r.sample_rate_hz), {}, silence);
  }
  out.samples.reserve(static_cast<std::size_t>(r.frames));
  long long fed = 0;
  runtime::OfflineIO io;
  io.read_input = [&](float* const* in, int n) {
    for (int i = 0; i < n; ++i) {
      const long long j = fed + i;
      const float v = j < static_cast<long long>(r.force_momentum.size()) ? r.force_momentum[j] : 0.0f;
      for (int c = 0; c < inputs; ++c) in[c][i] = v;
    }
    fed += n;
  };
  io.write_output = [&](const float* const* o, int n) {
    out.samples.insert(out.samples.end(), o[r.output], o[r.output] + n);
  };
  runtime::run_offline(*instance, r.frames, events, io);
  for (float& v : out.samples) v = static_cast<float>(v / meta.level);
  if (!out.driven_by_input)
    for (float& v : out.samples) v = static_cast<float>(v * r.strike_momentum);
  for (float v : out.samples)
    if (!std::isfinite(v))
      throw Error(fmt::format("{}: the program produced NaN or infinite samples (unstable filter?)", r.name));
  return out;
}

}  // namespace mesh2dsp::validate
