#include "emit/emitters.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "emit/number_format.hpp"
#include "emit/template_engine.hpp"

namespace mesh2dsp {
namespace {

constexpr double kDefaultHardness = 0.7;
constexpr double kDefaultGain = 0.5;

std::vector<std::string> floats(const std::vector<double>& values) {
  std::vector<std::string> out;
  out.reserve(values.size());
  for (double v : values) out.push_back(float_literal(v));
  return out;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The values every template shares.
TemplateData common_data(const EmitModel& m, const EmitSettings& s) {
  TemplateData d;
  d.set("name", m.name);
  d.set("NAME", upper(m.name));
  d.set("class_name", m.class_name);
  d.set("file_name", plain_text(s.file_name));
  d.set("source", plain_text(s.source.empty() ? std::string("a modal model") : s.source));
  d.set("author", plain_text(s.author));
  d.set("license", plain_text(s.license));
  d.set("description", plain_text(m.description));
  d.set("mode_count", std::to_string(m.mode_count));
  d.set("point_count", std::to_string(m.point_count));
  d.set("last_point", std::to_string(m.point_count - 1));
  d.set("output_count", std::to_string(m.output_count));
  d.set("many_outputs", m.output_count > 1);
  d.set("output_text",
        m.contact_microphone
            ? std::string("the surface velocity at the struck point along the strike direction "
                          "(contact microphone)")
            : fmt::format("one per listener ({}), the radiated pressure as a mix of the modal "
                          "velocities through the listener gains",
                          m.output_count));
  d.set("normalization", double_text(m.normalization));
  d.set("fundamental_hz", float_literal(m.fundamental_hz));
  d.set("freq_min", float_literal(std::min(20.0, m.fundamental_hz / 2)));
  d.set("freq_max", float_literal(std::max(20000.0, m.fundamental_hz * 2)));
  d.set("default_hardness", float_literal(kDefaultHardness));
  d.set("default_gain", float_literal(kDefaultGain));
  d.set("ratios", number_list(floats(m.frequency_ratio), ", "));
  d.set("decays", number_list(floats(m.decay_per_s), ", "));
  return d;
}

}  // namespace

std::string plain_text(const std::string& text) {
  std::string out;
  for (unsigned char c : text) out += (c < 0x20 || c == '"' || c == '\\' || c == 0x7f) ? '_' : static_cast<char>(c);
  // Neither "*/" nor "/*" may appear inside the C header's block comments.
  for (size_t i; (i = out.find("*/")) != std::string::npos || (i = out.find("/*")) != std::string::npos;)
    out[i] = '_';
  return out;
}

std::string emit_faust(const EmitModel& m, FaustVariant variant, const EmitSettings& s) {
  TemplateData d = common_data(m, s);
  d.set("instrument", variant == FaustVariant::instrument);
  d.set("effect", variant == FaustVariant::effect);
  d.set("library", variant == FaustVariant::library);
  d.set("reson", s.resonator == FaustResonator::reson);
  d.set("modefilter", s.resonator == FaustResonator::modefilter);
  // Per mode: its constants and its gains for every (output, point), [l * K + k].
  TemplateData modes{TemplateData::type::list};
  for (int n = 0; n < m.mode_count; ++n) {
    std::vector<std::string> gains;
    for (int l = 0; l < m.output_count; ++l)
      for (int k = 0; k < m.point_count; ++k) gains.push_back(float_literal(m.gain(l, k, n)));
    TemplateData item;
    item.set("ratio", float_literal(m.frequency_ratio[n]));
    item.set("decay", float_literal(m.decay_per_s[n]));
    item.set("gains", number_list(gains, ", "));
    item.set("comma", n + 1 < m.mode_count ? std::string(",") : std::string());
    modes.push_back(item);
  }
  d.set("modes", modes);
  return render_template("faust/model.dsp.mustache", d);
}

std::string emit_c_header(const EmitModel& m, const EmitSettings& s) {
  TemplateData d = common_data(m, s);
  d.set("gains", number_list(floats(m.gains), ", "));
  // State size at the default 32 lanes, for the header's usage note: 6 per-mode arrays, 2 gain
  // arrays per output, and the per-lane accumulators (2 x 64 samples x 32 lanes per output).
  const long padded = (m.mode_count + 31) / 32 * 32;
  const long bytes = padded * (6 + 2 * m.output_count) * 4 + m.output_count * 2 * 64 * 32 * 4 + 1024;
  d.set("state_kib", std::to_string((bytes + 1023) / 1024));
  return render_template("cpp/model.h.mustache", d);
}

std::string emit_sy(const EmitModel& m, const EmitSettings& s) {
  TemplateData d = common_data(m, s);
  std::vector<double> hz;
  for (double r : m.frequency_ratio) hz.push_back(r * m.fundamental_hz);
  std::vector<std::string> f, dec;
  for (double v : hz) f.push_back(double_text(v));
  for (double v : m.decay_per_s) dec.push_back(double_text(v));
  d.set("frequencies", number_list(f));
  d.set("decays", number_list(dec));
  TemplateData locations{TemplateData::type::list};
  for (int k = 0; k < m.point_count; ++k) {
    std::vector<std::string> g;
    for (int n = 0; n < m.mode_count; ++n) g.push_back(double_text(m.gain(0, k, n)));
    TemplateData item;
    item.set("gains", number_list(g, " "));
    locations.push_back(item);
  }
  d.set("locations", locations);
  d.set("sy_output", m.contact_microphone ? std::string("contact microphone")
                                          : std::string("listener 0"));
  return render_template("sy/model.sy.mustache", d);
}

}  // namespace mesh2dsp
