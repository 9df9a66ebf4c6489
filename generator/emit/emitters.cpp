#include "emit/emitters.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "emit/ambisonics.hpp"
#include "emit/number_format.hpp"
#include "emit/output_level.hpp"
#include "emit/template_engine.hpp"
#include "util/error.hpp"

namespace mesh2dsp {
namespace {

constexpr double kDefaultHardness = 0.8;
constexpr double kDefaultGain = 0.5;
// Contact defaults: size as in Mesh2Faust's example (Hiner 2024), a slow scrape at half a newton
// on a pink (beta = 1) surface, a typical metal-on-metal friction coefficient.
constexpr double kDefaultSize = 0.1;
constexpr double kDefaultSpeed_mps = 0.3;
constexpr double kDefaultForce_N = 0.5;
constexpr double kDefaultRoughness = 1.0;
constexpr double kDefaultFriction = 0.3;
// Live input: newtons of force per full-scale input sample.
constexpr double kDefaultInputGain_N = 100;
// The largest strike momentum (N s) a gate or strike() takes: 20 dB above a default strike.
constexpr double kMaxVelocity_Ns = 10;

// The three modes with the largest gain at point 0 (output 0), ascending in frequency: the
// "dominant modal frequencies" of the micro-collision trains (FoleyAutomatic, 2001). Repeats the last when
// the model has fewer modes.
std::vector<double> dominant_ratios(const EmitModel& m) {
  std::vector<int> order(m.mode_count);
  for (int n = 0; n < m.mode_count; ++n) order[n] = n;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return std::abs(m.gain(0, 0, a)) > std::abs(m.gain(0, 0, b));
  });
  order.resize(std::min(3, m.mode_count));
  std::sort(order.begin(), order.end());
  while (order.size() < 3) order.push_back(order.back());
  std::vector<double> ratios;
  for (int n : order) ratios.push_back(m.frequency_ratio[n]);
  return ratios;
}

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
  d.set("has_version", !s.version.empty());
  d.set("version", plain_text(s.version));
  d.set("description", plain_text(m.description));
  d.set("mode_count", std::to_string(m.mode_count));
  d.set("point_count", std::to_string(m.point_count));
  d.set("last_point", std::to_string(m.point_count - 1));
  d.set("output_count", std::to_string(m.output_count));
  d.set("many_outputs", m.output_count > 1);
  d.set("output_text",
        m.ambisonic_order > 0
            ? fmt::format("the object's far field as {} ambisonic channels of order {}: ACN order, SN3D "
                          "normalisation (ambiX, IEM), axes x front, y left, z up (the mesh's own); each "
                          "mode's velocity times its directivity's channel gains (a boundary-element "
                          "solve), so the SN3D basis at a direction d summed over the channels gives the "
                          "far-field pressure times distance there, p r; the yaw control turns the object "
                          "about z",
                          m.output_count, m.ambisonic_order)
        : m.contact_microphone
            ? std::string("the surface velocity at the struck point along the strike direction "
                          "(contact microphone)")
            : fmt::format("one per listener ({}), the sound pressure there: each mode's velocity "
                          "times its radiation gain (O'Brien, Cook & Essl, \"Synthesizing Sounds "
                          "from Physically Based Motion\", 2001, eq. 10), without the propagation "
                          "delay",
                          m.output_count));
  d.set("normalization", double_text(m.normalization));
  d.set("contact_mic", m.contact_microphone);
  d.set("contact_mic_flag", std::string(m.contact_microphone ? "1" : "0"));
  d.set("physical_scale", float_literal(m.physical_scale));
  d.set("physical_unit", m.ambisonic_order > 0 ? std::string("the far-field pressure times distance in Pa m")
                         : m.contact_microphone
                             ? std::string("the surface velocity in m/s")
                             : std::string("the sound pressure in Pa (O'Brien, Cook & Essl 2001, eq. 10)"));
  d.set("level", float_literal(default_output_level(m, kDefaultHardness, kDefaultGain)));
  d.set("default_point", std::to_string(loudest_point(m, kDefaultHardness)));
  // Interaural delays: a 4-tap fractional delay per output (none when all are 0).
  const double longest = *std::max_element(m.delay_s.begin(), m.delay_s.end());
  d.set("has_delays", longest > 0);
  d.set("output_delays", fmt::format("{}", fmt::join(floats(m.delay_s), ", ")));
  std::vector<std::string> c_delays;
  for (double v : m.delay_s) c_delays.push_back(c_float_literal(v));
  d.set("output_delays_c", fmt::format("{}", fmt::join(c_delays, ", ")));
  // Ring size for the longest delay at 192 kHz plus the 4 taps, a power of two.
  int ring = 8;
  while (ring < longest * 192000 + 8) ring *= 2;
  d.set("delay_ring", std::to_string(ring));
  d.set("default_input_gain", float_literal(kDefaultInputGain_N));
  d.set("max_pole_radius", float_literal(kMaxPoleRadius));
  d.set("fundamental_hz", float_literal(m.fundamental_hz));
  d.set("freq_min", float_literal(std::min(20.0, m.fundamental_hz / 2)));
  d.set("freq_max", float_literal(std::max(20000.0, m.fundamental_hz * 2)));
  // Every control's range, one list for the Faust sliders and the header's setters, which both
  // clamp to it (a NaN gives the default).
  for (const auto& [key, lo, hi] : std::initializer_list<std::tuple<const char*, double, double>>{
           {"t60", 0.1, 10}, {"hardness", 0, 1}, {"glide", 0, 1}, {"gain", 0.001, 1}, {"size", 0, 1},
           {"speed", 0.01, 5}, {"force", 0, 10}, {"roughness", 0.2, 1.8}, {"friction", 0, 1},
           {"input_gain", 0.01, 100000}, {"velocity", 0, kMaxVelocity_Ns}}) {
    d.set(std::string(key) + "_min", float_literal(lo));
    d.set(std::string(key) + "_max", float_literal(hi));
  }
  d.set("default_hardness", float_literal(kDefaultHardness));
  d.set("default_gain", float_literal(kDefaultGain));
  d.set("default_size", float_literal(kDefaultSize));
  d.set("default_speed", float_literal(kDefaultSpeed_mps));
  d.set("default_force", float_literal(kDefaultForce_N));
  d.set("default_roughness", float_literal(kDefaultRoughness));
  d.set("default_friction", float_literal(kDefaultFriction));
  const auto micro = dominant_ratios(m);
  d.set("micro_ratios", fmt::format("{}f, {}f, {}f", float_literal(micro[0]), float_literal(micro[1]),
                                    float_literal(micro[2])));
  std::vector<double> omega_ratio;
  for (double r : m.frequency_ratio) omega_ratio.push_back(2 * M_PI * r);
  d.set("omega_ratios", number_list(floats(omega_ratio), ", "));
  std::vector<double> omega_ratio2, decay2;
  for (double w : omega_ratio) omega_ratio2.push_back(w * w);
  for (double d : m.decay_per_s) decay2.push_back(d * d);
  d.set("omega_ratios2", number_list(floats(omega_ratio2), ", "));
  d.set("decays2", number_list(floats(decay2), ", "));
  // The triangulation as a flat Faust table and a C array (one zero row when there is none,
  // so both stay valid).
  std::string flat, rows;
  for (const auto& t : m.triangles) {
    flat += fmt::format("{}{}, {}, {}", flat.empty() ? "" : ", ", t[0], t[1], t[2]);
    rows += fmt::format("{}{{{}, {}, {}}}", rows.empty() ? "" : ", ", t[0], t[1], t[2]);
  }
  const int triangles = static_cast<int>(m.triangles.size());
  d.set("has_triangles", triangles > 0);
  d.set("triangle_count", std::to_string(triangles));
  d.set("last_triangle", std::to_string(std::max(triangles - 1, 0)));
  d.set("triangle_rows", std::to_string(std::max(triangles, 1)));
  d.set("triangle_flat", flat.empty() ? std::string("0, 0, 0") : flat);
  d.set("triangle_table", rows.empty() ? std::string("{0, 0, 0}") : rows);
  d.set("decays", number_list(floats(m.decay_per_s), ", "));
  d.set("ambisonic", m.ambisonic_order > 0);
  d.set("ambisonic_order", std::to_string(m.ambisonic_order));
  d.set("quadrature", !m.pickup_quadrature.empty());
  return d;
}

// The instrument's excitation menu: the Faust expression of each compiled-in contact model.
void set_excitations(TemplateData& d, const EmitModel& m, const std::vector<std::string>& kinds) {
  const auto micro = dominant_ratios(m);
  auto index = [&](const char* kind) {
    return static_cast<int>(std::find(kinds.begin(), kinds.end(), kind) - kinds.begin());
  };
  const int scrape = index("scrape"), roll = index("roll"), n = static_cast<int>(kinds.size());
  // Each model with state runs while on(its menu index); scrape and roll share the profile.
  const std::map<std::string, std::string> expression{
      {"impact", "m2dExcite.impact(gate, hardness)"},
      {"hammer", fmt::format("m2dExcite.hammerOn(on({}), gate, hardness, size)", index("hammer"))},
      {"micro", fmt::format("m2dExcite.microOn(on({}), gate, hardness, freq * {}, freq * {}, freq * {})",
                            index("micro"), float_literal(micro[0]), float_literal(micro[1]), float_literal(micro[2]))},
      {"scrape", "profile * (friction * force)"},
      {"roll", fmt::format("m2dExcite.rollFrom(on({}), profile, force, size)", roll)},
      {"input", "(x : m2dExcite.input(inputGain))"}};
  d.set("has_profile", scrape < n || roll < n);
  d.set("profile_on", scrape < n && roll < n ? fmt::format("on({}) | on({})", scrape, roll)
                                             : fmt::format("on({})", std::min(scrape, roll)));
  // The strikes' force enters where the contact was at the strike, the continuous contacts' where
  // it is now: two sums, each model faded in and out by its menu entry.
  const std::set<std::string> strikes{"impact", "hammer", "micro"};
  TemplateData list{TemplateData::type::list};
  std::string names, strike_force, continuous_force;
  for (size_t i = 0; i < kinds.size(); ++i) {
    TemplateData item;
    item.set("label", kinds[i]);
    item.set("index", std::to_string(i));
    item.set("semicolon", i + 1 < kinds.size() ? std::string(";") : std::string());
    list.push_back(item);
    names += (i ? ", " : "") + kinds[i];
    std::string& sum = strikes.count(kinds[i]) ? strike_force : continuous_force;
    sum += fmt::format("{}fade({}) * {}", sum.empty() ? "" : " + ", i, expression.at(kinds[i]));
  }
  d.set("has_strikes", std::string(strike_force.empty() ? "0" : "1"));
  d.set("has_contacts", std::string(continuous_force.empty() ? "0" : "1"));
  d.set("strike_force", strike_force.empty() ? std::string("0") : strike_force);
  d.set("continuous_force", continuous_force.empty() ? std::string("0") : continuous_force);
  auto uses = [&](std::initializer_list<const char*> any) {
    for (const char* k : any)
      if (std::find(kinds.begin(), kinds.end(), k) != kinds.end()) return true;
    return false;
  };
  d.set("excitations", list);
  d.set("excitation_names", names);
  d.set("excitation_count", std::to_string(kinds.size()));
  d.set("last_excitation", std::to_string(kinds.size() - 1));
  d.set("uses_size", uses({"hammer", "roll"}));
  d.set("uses_contact", uses({"scrape", "roll"}));
  d.set("uses_friction", uses({"scrape"}));
  d.set("uses_input", uses({"input"}));
}

}  // namespace

const std::vector<std::string>& excitation_kinds() {
  static const std::vector<std::string> kinds{"impact", "hammer", "micro", "scrape", "roll", "input"};
  return kinds;
}

std::vector<std::string> parse_excitations(const std::string& spec) {
  const auto& known = excitation_kinds();
  if (spec == "all") return known;
  std::set<std::string> wanted;
  size_t start = 0;
  while (start <= spec.size()) {
    const size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string name = spec.substr(start, comma - start);
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw Error(fmt::format("--excitation: unknown contact model '{}'; known: all, {}", name,
                              fmt::join(known, ", ")));
    wanted.insert(name);
    start = comma + 1;
  }
  std::vector<std::string> kinds;
  for (const auto& k : known)
    if (wanted.count(k)) kinds.push_back(k);
  return kinds;
}

std::string plain_text(const std::string& text) {
  std::string out;
  for (unsigned char c : text) out += (c < 0x20 || c == '"' || c == '\\' || c == 0x7f) ? '_' : static_cast<char>(c);
  // Neither "*/" nor "/*" may appear inside the C header's block comments.
  for (size_t i; (i = out.find("*/")) != std::string::npos || (i = out.find("/*")) != std::string::npos;)
    out[i] = '_';
  return out;
}

// The yaw rotation of ambisonic channels as one Faust lambda over the (order + 1)² channels:
// turning the object by t about z (from x towards y) maps each degree's pair (cos mφ, sin mφ
// channels a, b) to (a cos mt - b sin mt, a sin mt + b cos mt); m = 0 channels pass.
// c(m) and s(m) are Faust functions of the template (1 - cos and sin, smoothed).
std::string faust_yaw_rotation(int order) {
  std::string params, outputs;
  for (int i = 0; i < ambisonic_channel_count(order); ++i) {
    const int l = static_cast<int>(std::sqrt(static_cast<double>(i))), m = i - l * l - l;
    const int up = l * l + l + std::abs(m), down = l * l + l - std::abs(m);
    params += fmt::format("{}x{}", i ? ", " : "", i);
    std::string y;
    if (m == 0) y = fmt::format("x{}", i);
    else if (m > 0) y = fmt::format("x{} * c({}) - x{} * s({})", up, m, down, m);
    else y = fmt::format("x{} * s({}) + x{} * c({})", up, -m, down, -m);
    outputs += fmt::format("{}{}", i ? ",\n    " : "", y);
  }
  return fmt::format("\\({}).(\n    {})", params, outputs);
}

std::string emit_faust(const EmitModel& m, FaustVariant variant, const EmitSettings& s) {
  TemplateData d = common_data(m, s);
  if (m.ambisonic_order > 0) d.set("yaw_rotation", faust_yaw_rotation(m.ambisonic_order));
  if (!m.pickup_quadrature.empty() && s.resonator != FaustResonator::reson)
    throw Error("the ambisonic encoding with quadrature needs the reson resonator (pm.modeFilter gives "
                "no quadrature signal)");
  d.set("instrument", variant == FaustVariant::instrument);
  d.set("effect", variant == FaustVariant::effect);
  d.set("library", variant == FaustVariant::library);
  d.set("reson", s.resonator == FaustResonator::reson);
  d.set("modefilter", s.resonator == FaustResonator::modefilter);
  d.set("excitation_library", render_template("faust/excitations.lib.mustache", d));
  if (s.excitations.empty()) throw Error("no contact model to compile in (--excitation)");
  set_excitations(d, m, s.excitations);
  // Per mode: its constants, and where its shapes at the points and its pickups at the listeners
  // start in the two shared tables (mode-major: mode n, point k at n * points + k). One table for
  // all modes, not one per mode: libfaust builds a class and a fill function per table, and a
  // 300-mode program compiled about 10 % faster cold this way (3.45 -> 3.08 s), output identical.
  // The modes come in groups of kFaustModeGroup, one letrec each (see the template: Faust
  // compiles wide sums and many recursions slowly). 4, 8 and 16 compiled alike (1 000 modes:
  // 16.0, 16.6, 16.9 CPU s cold, within noise); 8 is kept.
  constexpr int kFaustModeGroup = 8;
  std::vector<std::string> excite_by_mode, pickup_by_mode, pickup_quadrature_by_mode;
  TemplateData groups{TemplateData::type::list};
  TemplateData modes{TemplateData::type::list};
  int group_size = 0, group_count = 0;
  for (int n = 0; n < m.mode_count; ++n) {
    for (int k = 0; k < m.point_count; ++k) excite_by_mode.push_back(float_literal(m.excite[k * m.mode_count + n]));
    if (!m.contact_microphone)
      for (int l = 0; l < m.output_count; ++l) pickup_by_mode.push_back(float_literal(m.pickup[l * m.mode_count + n]));
    if (!m.pickup_quadrature.empty())
      for (int l = 0; l < m.output_count; ++l)
        pickup_quadrature_by_mode.push_back(float_literal(m.pickup_quadrature[l * m.mode_count + n]));
    TemplateData item;
    const double omega = 2 * M_PI * m.frequency_ratio[n];
    item.set("omega_ratio", float_literal(omega));
    item.set("omega_ratio2", float_literal(omega * omega));
    item.set("decay", float_literal(m.decay_per_s[n]));
    item.set("decay2", float_literal(m.decay_per_s[n] * m.decay_per_s[n]));
    item.set("excite_start", std::to_string(n * m.point_count));
    item.set("pickup_start", std::to_string(n * m.output_count));
    item.set("j", std::to_string(group_size));
    const bool group_ends = ++group_size == kFaustModeGroup || n + 1 == m.mode_count;
    item.set("comma", group_ends ? std::string() : std::string(","));
    modes.push_back(item);
    if (group_ends) {
      TemplateData group;
      group.set("modes", modes);
      group.set("size", std::to_string(group_size));
      std::string inputs;  // the group's inputs, one per mode: u0, u1, ...
      for (int j = 0; j < group_size; ++j) inputs += fmt::format("{}u{}", j ? ", " : "", j);
      group.set("inputs", inputs);
      group.set("group_index", std::to_string(group_count));
      group.set("comma", n + 1 < m.mode_count ? std::string(",") : std::string());
      groups.push_back(group);
      ++group_count;
      modes = TemplateData{TemplateData::type::list};
      group_size = 0;
    }
  }
  d.set("mode_groups", groups);
  d.set("excite_by_mode", number_list(excite_by_mode, ", "));
  d.set("pickup_by_mode", number_list(pickup_by_mode, ", "));  // emitted only without the contact mic
  d.set("pickup_quadrature_by_mode", number_list(pickup_quadrature_by_mode, ", "));
  d.set("group_count", std::to_string(group_count));
  d.set("group_size", std::to_string(kFaustModeGroup));
  return render_template("faust/model.dsp.mustache", d);
}

std::string emit_c_header(const EmitModel& m, const EmitSettings& s) {
  TemplateData d = common_data(m, s);
  d.set("excite_table", number_list(floats(m.excite), ", "));
  d.set("pickup_table", number_list(floats(m.pickup.empty() ? std::vector<double>{0.0} : m.pickup), ", "));
  d.set("pickup_size", std::to_string(std::max<size_t>(m.pickup.size(), 1)));
  if (!m.pickup_quadrature.empty()) d.set("pickup_quadrature_table", number_list(floats(m.pickup_quadrature), ", "));
  // State size at the default 32 lanes, for the header's usage note: 9 per-mode arrays, 2 per
  // output, and the per-lane accumulators (64 samples x 32 lanes per output).
  const long padded = (m.mode_count + 31) / 32 * 32;
  const long bytes = padded * (9 + 2 * m.output_count) * 4 + m.output_count * 64 * 32 * 4 + 1024;
  d.set("state_kib", std::to_string((bytes + 1023) / 1024));
  return render_template("cpp/model.h.mustache", d);
}

std::string emit_sy(const EmitModel& m, const EmitSettings& s) {
  TemplateData d = common_data(m, s);
  std::vector<std::string> f, dec, amplitudes;
  std::vector<double> omega_d;
  for (int n = 0; n < m.mode_count; ++n) {
    const double hz = m.frequency_ratio[n] * m.fundamental_hz, sigma = m.decay_per_s[n];
    f.push_back(double_text(hz));
    dec.push_back(double_text(sigma));
    omega_d.push_back(std::sqrt(std::max(0.0, std::pow(2 * M_PI * hz, 2) - sigma * sigma)));
  }
  // Displacement amplitudes g / omega_d (JASS rings as a sine), scaled so the largest sum of
  // |amplitudes| over the points is 1.
  double largest = 0;
  for (int k = 0; k < m.point_count; ++k) {
    double sum = 0;
    for (int n = 0; n < m.mode_count; ++n) sum += omega_d[n] > 0 ? std::abs(m.gain(0, k, n)) / omega_d[n] : 0;
    largest = std::max(largest, sum);
  }
  const double scale = largest > 0 ? 1 / largest : 1;
  for (int k = 0; k < m.point_count; ++k)
    for (int n = 0; n < m.mode_count; ++n)
      amplitudes.push_back(double_text(omega_d[n] > 0 ? m.gain(0, k, n) / omega_d[n] * scale : 0.0));
  d.set("frequencies", number_list(f));
  d.set("decays", number_list(dec));
  d.set("amplitudes", number_list(amplitudes));
  d.set("sy_scale", double_text(scale));
  d.set("sy_output", m.ambisonic_order > 0  ? std::string("the omnidirectional ambisonic channel W (ACN 0)")
                     : m.contact_microphone ? std::string("the contact microphone")
                                            : std::string("listener 0"));
  return render_template("sy/model.sy.mustache", d);
}

std::string emit_faust(const ModalModel& model, FaustVariant variant, const EmitSettings& settings,
                       const std::string& name) {
  return emit_faust(make_emit_model(model, name), variant, settings);
}

std::string emit_c_header(const ModalModel& model, const EmitSettings& settings, const std::string& name) {
  return emit_c_header(make_emit_model(model, name), settings);
}

EmitSettings provenance_settings(const ModalModel& model, const std::string& input, const std::string& author,
                                 const std::string& license) {
  EmitSettings settings;
  settings.author = author;
  settings.license = license;
  settings.source =
      model.mesh.source.empty() ? std::filesystem::path(input).filename().string() : model.mesh.source;
  return settings;
}

}  // namespace mesh2dsp
