#include "validate/report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>

#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "validate/plots.hpp"

namespace mesh2dsp::validate {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

// JSON has no infinity or NaN: they become null.
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::string modes_label(const std::vector<int>& modes) {
  std::string s;
  for (int m : modes) s += (s.empty() ? "" : "+") + std::to_string(m);
  return s;
}

std::string hz(double f) { return f > 0 ? fmt::format("{:.2f}", f) : "—"; }
std::string seconds(double t) {
  return std::isfinite(t) && t > 0 ? fmt::format("{:.3f}", t) : (std::isinf(t) ? "∞" : "—");
}

json group_json(const ModeGroup& g) {
  const bool found = g.reference_hz > 0;
  return {{"modes", g.modes},
          {"note", g.note},
          {"degenerate", g.modes.size() > 1},
          {"model_hz", g.model_hz},
          {"generated_hz", number(g.generated_hz)},
          {"reference_hz", found ? json(g.reference_hz) : json(nullptr)},
          {"frequency_error", found ? json(g.frequency_error) : json(nullptr)},
          {"raw_frequency_error", found ? json(g.raw_frequency_error) : json(nullptr)},
          {"reference_integrator_shift", g.integrator_shift},
          {"reference_continuous_hz", found ? json(g.reference_continuous_hz) : json(nullptr)},
          {"generated_db", number(g.generated_db)},
          {"reference_db", found ? number(g.reference_db) : json(nullptr)},
          {"window_hz", {g.lo_hz, g.hi_hz}},
          {"status", to_string(g.status)}};
}

json match_json(const MatchResult& match) {
  json groups = json::array();
  for (const auto& g : match.groups) groups.push_back(group_json(g));
  json spurious = json::array();
  for (const auto& p : match.spurious) spurious.push_back({{"frequency_hz", p.frequency_hz}, {"level_db", p.level_db}});
  return {{"groups", groups}, {"spurious_peaks", spurious}};
}

}  // namespace

json report_json(const ReportInput& r) {
  const Comparison& c = r.comparison;
  json j;
  j["format"] = "mesh2dsp-validation-report";
  j["version"] = 1;
  j["title"] = r.title;
  j["verdict"] = c.passed ? "pass" : "fail";
  j["exit_code"] = c.passed ? 0 : kExitValidationFailed;
  j["failures"] = c.failures;
  j["notes"] = r.notes;
  j["inputs"] = r.inputs;
  json measures = json::array();
  for (const auto& m : c.measures)
    measures.push_back({{"name", m.name}, {"unit", m.unit}, {"value", number(m.value)},
                        {"tolerance", m.tolerance}, {"judged", m.judged}, {"passed", m.passed},
                        {"detail", m.detail}});
  j["measures"] = measures;
  j["tolerances"] = {{"frequency_relative", r.tolerances.frequency},
                     {"t60_relative", r.tolerances.t60},
                     {"log_spectral_distance_db", r.tolerances.lsd_db},
                     {"level_db", r.tolerances.level_db},
                     {"onset_ms", r.tolerances.onset_ms},
                     {"missing_modes", r.tolerances.missing},
                     {"spurious_peak_db_below_max", r.tolerances.spurious_db}};
  j["alignment"] = {{"lag_samples", c.lag_samples},
                    {"lag_ms", 1000.0 * c.lag_samples / c.sample_rate_hz},
                    {"polarity", c.polarity},
                    {"onset_reference_s", c.onset_reference_s},
                    {"onset_generated_s", c.onset_generated_s},
                    {"reference_start_s", c.reference_start / c.sample_rate_hz},
                    {"generated_start_s", c.generated_start / c.sample_rate_hz},
                    {"analysed_s", c.length / c.sample_rate_hz}};
  j["sample_rate_hz"] = c.sample_rate_hz;
  j["band_hz"] = {c.band_lo_hz, c.band_hi_hz};
  j["level_ratio_db"] = c.level_ratio_db;
  j["log_spectral_distance_db"] = c.lsd_db;
  j["degenerate_resolution_hz"] = c.resolution_hz;
  j["decay_frame_samples"] = c.decay_frame;
  json rows = json::array();
  for (const auto& row : c.rows) {
    json m = group_json(row.group);
    const json decay{{"model_t60_s", number(row.model_t60_s)},
                    {"generated_t60_s", number(row.generated_decay.t60_s)},
                    {"reference_t60_s", number(row.reference_decay.t60_s)},
                    {"generated_fit", {{"frames", row.generated_decay.frames_used},
                                       {"range_db", row.generated_decay.fit_range_db},
                                       {"r_squared", row.generated_decay.r_squared}}},
                    {"reference_fit", {{"frames", row.reference_decay.frames_used},
                                       {"range_db", row.reference_decay.fit_range_db},
                                       {"r_squared", row.reference_decay.r_squared}}},
                    {"t60_error", number(row.t60_error)},
                    {"t60_judged", row.t60_judged},
                    {"t60_note", row.t60_note}};
    for (const auto& [key, value] : decay.items()) m[key] = value;
    rows.push_back(m);
  }
  j["modes"] = rows;
  json outside = json::array();
  for (const auto& u : c.match.outside)
    outside.push_back({{"mode", u.mode}, {"frequency_hz", u.frequency_hz}, {"reason", u.reason}});
  j["not_judged_outside_band"] = outside;
  j["spurious_peaks"] = match_json(c.match)["spurious_peaks"];
  json model_modes = json::array();
  for (const auto& m : r.modes)
    model_modes.push_back({{"frequency_hz", m.frequency_hz}, {"t60_s", number(m.t60_s)}, {"weight", m.weight}});
  j["model_modes"] = model_modes;
  if (c.aligned) {
    const auto& a = *c.aligned;
    j["align_fundamental"] = {{"note", "Mesh2Audio's practice (Hiner 2024, section 4.1): every model frequency "
                                       "scaled so the lowest audible mode sits on the reference's "
                                       "lowest peak; reported beside the raw comparison, never instead"},
                              {"scale", a.scale},
                              {"reference_fundamental_hz", a.reference_fundamental_hz},
                              {"matched", a.matched},
                              {"judged", a.judged},
                              {"mean_abs_frequency_error", a.mean_abs_error},
                              {"match", match_json(a.match)}};
  } else {
    j["align_fundamental"] = nullptr;
  }
  if (c.material_fit) {
    const auto& a = *c.material_fit;
    j["material_fit"] = {{"note", "one material scale fitted to the recording (the one that explains the most "
                                  "recorded partial strength): every model frequency x scale, i.e. E/rho x scale^2; "
                                  "the recording's frequencies, decays, missing modes and spurious peaks are judged "
                                  "after it, the raw errors kept beside (raw_frequency_error)"},
                         {"frequency_scale", a.scale},
                         {"youngs_modulus_over_density_scale", a.scale * a.scale},
                         {"matched", a.matched},
                         {"judged", a.judged},
                         {"mean_abs_frequency_error", a.mean_abs_error},
                         {"match", match_json(a.match)}};
    j["reference_noise"] = {{"pre_roll_s", c.reference_noise_s}, {"rms", c.reference_noise_rms}};
  } else {
    j["material_fit"] = nullptr;
  }
  json timing = json::object();
  double total = 0;
  for (const auto& s : r.stages) timing[s.name] = s.wall_s, total += s.wall_s;
  timing["total"] = total;
  j["wall_time_s"] = timing;
  return j;
}

std::string report_html(const ReportInput& r) {
  const Comparison& c = r.comparison;
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  h += fmt::format("<title>mesh2dsp validate: {}</title>\n", xml_escape(r.title));
  h += "<style>\n"
       "body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1000px}\n"
       "h1{font-size:20px;margin:0 0 8px} h2{font-size:16px;margin:22px 0 8px}\n"
       ".verdict{padding:10px 14px;border-radius:6px;font-size:18px;font-weight:bold;color:#fff}\n"
       ".pass{background:#2ca02c} .fail{background:#d62728}\n"
       "table{border-collapse:collapse;font-size:13px} td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}\n"
       "th{background:#f2f2f2} td.l,th.l{text-align:left}\n"
       "tr.bad td{background:#fde2e1} tr.bad td.s{color:#d62728;font-weight:bold} tr.weak td{color:#888} tr.ok td.s{color:#2ca02c;font-weight:bold}\n"
       ".row{display:flex;gap:12px;flex-wrap:wrap} .note{color:#555;font-size:13px}\n"
       "</style></head><body>\n";
  h += fmt::format("<h1>mesh2dsp validate — {}</h1>\n", xml_escape(r.title));
  h += fmt::format("<div class=\"verdict {}\">{}</div>\n", c.passed ? "pass" : "fail",
                   c.passed ? "PASS — every judged measure is within tolerance"
                            : fmt::format("FAIL — {} measure(s) out of tolerance (exit code {})",
                                          c.failures.size(), kExitValidationFailed));
  if (!c.failures.empty()) {
    h += "<ul class=\"failures\">\n";
    for (const auto& f : c.failures) h += fmt::format("<li>{}</li>\n", xml_escape(f));
    h += "</ul>\n";
  }
  for (const auto& n : r.notes) h += fmt::format("<p class=\"note\">{}</p>\n", xml_escape(n));

  h += "<h2>Measures</h2>\n<table class=\"measures\"><tr><th class=\"l\">measure</th><th>value</th>"
       "<th>tolerance</th><th class=\"l\">result</th><th class=\"l\">detail</th></tr>\n";
  for (const auto& m : c.measures) {
    const std::string value = m.unit == "peaks" || m.unit == "modes" ? fmt::format("{:.0f}", m.value)
                                                                     : fmt::format("{:+.3f} {}", m.value, m.unit);
    const std::string tolerance = m.name == "spurious peaks" ? fmt::format("none within {:.0f} dB", m.tolerance)
                                  : m.unit == "modes"        ? fmt::format("≤ {:.0f}", m.tolerance)
                                  : m.name == "log-spectral distance" ? fmt::format("≤ {:.2f} dB", m.tolerance)
                                                             : fmt::format("± {:.2f} {}", m.tolerance, m.unit);
    h += fmt::format("<tr class=\"{}\"><td class=\"l\">{}</td><td>{}</td><td>{}</td><td class=\"l s\">{}</td>"
                     "<td class=\"l\">{}</td></tr>\n",
                     !m.judged ? "weak" : m.passed ? "ok" : "bad", xml_escape(m.name), value, tolerance,
                     !m.judged ? "not judged" : m.passed ? "pass" : "FAIL", xml_escape(m.detail));
  }
  h += "</table>\n";

  h += "<h2>Spectra (aligned, Hann window over the analysed segment)</h2>\n";
  h += r.spectrum_svg;
  h += "<h2>Spectrograms</h2>\n<div class=\"row\">\n" + r.reference_spectrogram_svg +
       r.generated_spectrogram_svg + "</div>\n";
  if (!r.audio.empty()) {
    h += "<p>";
    for (const auto& [label, file] : r.audio)
      h += fmt::format("{}: <audio controls preload=\"none\" src=\"{}\"></audio> ", xml_escape(label), xml_escape(file));
    h += "</p>\n";
  }

  h += "<h2>Modes</h2>\n<table class=\"modes\"><tr><th>mode</th><th>model Hz</th><th>generated Hz</th>"
       "<th>reference Hz</th><th>ref. integrator shift %</th><th>error %</th><th>gen. dB</th><th>ref. dB</th><th class=\"l\">frequency</th>"
       "<th>model T60 s</th><th>gen. T60 s</th><th>ref. T60 s</th><th>T60 error %</th><th class=\"l\">T60</th></tr>\n";
  for (const auto& row : c.rows) {
    const auto& g = row.group;
    const bool bad = g.status == MatchStatus::shifted || g.status == MatchStatus::missing ||
                     (row.t60_judged && std::abs(row.t60_error) > r.tolerances.t60);
    const std::string status =
        to_string(g.status) + (g.modes.size() > 1 ? fmt::format(" (degenerate ×{})", g.modes.size()) : "");
    const std::string t60 = row.t60_judged
                                ? (std::abs(row.t60_error) > r.tolerances.t60 ? "FAIL" : "pass")
                                : "not judged: " + row.t60_note;
    h += fmt::format(
        "<tr class=\"{}\"><td>{}</td><td>{:.2f}</td><td>{}</td><td>{}</td><td>{:+.3f}</td><td>{}</td><td>{:.1f}</td><td>{}</td>"
        "<td class=\"l s\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"l s\">{}</td></tr>\n",
        bad ? "bad" : g.status == MatchStatus::weak ? "weak" : "ok", modes_label(g.modes), g.model_hz,
        hz(g.generated_hz), hz(g.reference_hz), 100 * g.integrator_shift,
        g.reference_hz > 0 ? fmt::format("{:+.3f}", 100 * g.frequency_error) : "—", g.generated_db,
        g.reference_hz > 0 ? fmt::format("{:.1f}", g.reference_db) : "—", xml_escape(status),
        seconds(row.model_t60_s), seconds(row.generated_decay.t60_s), seconds(row.reference_decay.t60_s),
        row.t60_judged || (row.generated_decay.t60_s > 0 && row.reference_decay.t60_s > 0 &&
                           std::isfinite(row.t60_error) && row.t60_error != 0)
            ? fmt::format("{:+.2f}", 100 * row.t60_error) : "—",
        xml_escape(t60));
  }
  h += "</table>\n";
  {
    // What was not judged, and why: nothing silently left out.
    std::string list;
    for (const auto& row : c.rows)
      if (row.group.status == MatchStatus::weak)
        list += fmt::format("<li>{} at {:.1f} Hz: {}</li>", modes_label(row.group.modes), row.group.model_hz,
                            xml_escape(row.group.note));
    for (const auto& u : c.match.outside)
      list += fmt::format("<li>mode {} at {:.1f} Hz: {}</li>", u.mode, u.frequency_hz, xml_escape(u.reason));
    if (!list.empty()) h += "<h3>Not judged</h3>\n<ul>" + list + "</ul>\n";
  }
  if (!c.match.spurious.empty()) {
    h += "<p>Reference peaks no mode explains: ";
    for (const auto& p : c.match.spurious) h += fmt::format("{:.1f} Hz ({:.1f} dB); ", p.frequency_hz, p.level_db);
    h += "</p>\n";
  }
  if (c.aligned) {
    const auto& a = *c.aligned;
    h += "<h2>Aligned to the fundamental (Mesh2Audio's practice, Hiner 2024 §4.1 — beside, never instead of, "
         "the raw comparison)</h2>\n";
    h += fmt::format("<p>Model frequencies × {:.5f} (lowest audible mode → reference peak at {:.2f} Hz): "
                     "{} of {} mode groups within ±{:.2f} %, mean |error| {:.3f} %.</p>\n",
                     a.scale, a.reference_fundamental_hz, a.matched, a.judged, 100 * r.tolerances.frequency,
                     100 * a.mean_abs_error);
    h += "<table class=\"aligned\"><tr><th>mode</th><th>scaled model Hz</th><th>reference Hz</th><th>error %</th>"
         "<th class=\"l\">status</th></tr>\n";
    for (const auto& g : a.match.groups)
      h += fmt::format("<tr class=\"{}\"><td>{}</td><td>{:.2f}</td><td>{}</td><td>{}</td><td class=\"l s\">{}</td></tr>\n",
                       g.status == MatchStatus::matched ? "ok" : g.status == MatchStatus::weak ? "weak" : "bad",
                       modes_label(g.modes), g.generated_hz, hz(g.reference_hz),
                       g.reference_hz > 0 ? fmt::format("{:+.3f}", 100 * g.frequency_error) : "—",
                       to_string(g.status));
    h += "</table>\n";
  }

  if (c.material_fit) {
    const auto& a = *c.material_fit;
    h += fmt::format("<h2>One material scale fitted: the recording is judged after it (raw errors beside)</h2>\n"
                     "<p>The recording was conditioned: DC, rumble and mains hum removed, the strike found {:.3f} s in against "
                     "the pre-roll's noise floor (RMS {:.3g} over {:.3f} s), peaks counted only 10 dB above that "
                     "floor. The scale that explains the most recorded partial strength: model frequencies × {:.5f} "
                     "(E/ρ × {:.4f}): {} of {} mode groups within ±{:.2f} %, "
                     "mean |error| {:.3f} %.</p>\n",
                     c.onset_reference_s, c.reference_noise_rms, c.reference_noise_s, a.scale, a.scale * a.scale,
                     a.matched, a.judged, 100 * r.tolerances.frequency, 100 * a.mean_abs_error);
  }
  h += "<h2>Alignment</h2>\n";
  h += fmt::format("<p>The reference lags the generated render by {} samples ({:.3f} ms){}; onsets (−20 dB "
                   "of the peak) at {:.4f} s (reference) and {:.4f} s (generated). Analysed: {:.3f} s from "
                   "the onset, band {:.0f}–{:.0f} Hz; modes closer than {:.2f} Hz form a degenerate group.</p>\n",
                   c.lag_samples, 1000.0 * c.lag_samples / c.sample_rate_hz,
                   c.polarity < 0 ? ", polarity inverted" : "", c.onset_reference_s, c.onset_generated_s,
                   c.length / c.sample_rate_hz, c.band_lo_hz, c.band_hi_hz, c.resolution_hz);

  h += "<h2>Wall time by stage</h2>\n<table class=\"timing\"><tr><th class=\"l\">stage</th><th>s</th></tr>\n";
  double total = 0;
  for (const auto& s : r.stages) {
    h += fmt::format("<tr><td class=\"l\">{}</td><td>{:.3f}</td></tr>\n", xml_escape(s.name), s.wall_s);
    total += s.wall_s;
  }
  h += fmt::format("<tr><th class=\"l\">total</th><th>{:.3f}</th></tr></table>\n", total);

  h += "<h2>Inputs</h2>\n<table class=\"inputs\">\n";
  for (const auto& [key, value] : r.inputs.items())
    h += fmt::format("<tr><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>\n", xml_escape(key),
                     xml_escape(value.is_string() ? value.get<std::string>() : value.dump()));
  h += "</table>\n<p class=\"note\">Every number is in report.json beside this page.</p>\n</body></html>\n";
  return h;
}

void check_report_directory(const fs::path& directory) {
  std::error_code ec;
  // Try it: create what is missing and a file in it, then remove both (permission bits say
  // little for root or on /proc).
  {
    std::vector<fs::path> created;
    for (fs::path p = directory; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
      created.push_back(p);
      if (p.parent_path() == p) break;
    }
    bool ok = fs::create_directories(directory, ec) || fs::is_directory(directory, ec);
    if (ok) {
      const fs::path probe = directory / ".mesh2dsp-validate-probe";
      ok = static_cast<bool>(std::ofstream(probe));
      fs::remove(probe, ec);
    }
    for (const auto& p : created) fs::remove(p, ec);  // deepest first; only if empty
    if (ok) return;
  }
  fs::path existing = directory.empty() ? fs::path(".") : directory;
  // The nearest existing ancestor must be a writable directory.
  while (!fs::exists(existing, ec)) {
    if (!existing.has_parent_path() || existing.parent_path() == existing) { existing = "."; break; }
    existing = existing.parent_path();
    if (existing.empty()) existing = ".";
  }
  if (!fs::is_directory(existing, ec))
    throw Error(fmt::format("cannot write the report into {}: {} is not a directory", directory.string(),
                            existing.string()));
  throw Error(fmt::format("cannot write the report into {}: {} is not writable", directory.string(),
                          existing.string()));
}

void write_report(const fs::path& directory, const ReportInput& report,
                  const std::vector<std::pair<std::string, std::string>>& files) {
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (ec) throw Error(fmt::format("cannot create the report directory {}: {}", directory.string(), ec.message()));
  const std::string html = report_html(report);
  const std::string json_text = report_json(report).dump(2) + "\n";
  for (const auto& [name, bytes] : files) write_text_atomically(directory / name, bytes);
  write_text_atomically(directory / "report.json", json_text);
  write_text_atomically(directory / "report.html", html);
}

}  // namespace mesh2dsp::validate
