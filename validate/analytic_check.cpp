#include "validate/analytic_check.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace mesh2dsp::validate {

AnalyticComparison compare_with_analytic(const ModalModel& model, const BoxShape& box, double tolerance) {
  AnalyticComparison c;
  c.box = box;
  c.tolerance = tolerance;
  if (model.modes.empty()) return c;
  const double top_hz = model.modes.back().frequency_hz;
  // Theory modes up to just above the model's last one, so that a model mode sitting slightly
  // above its theory value is still compared.
  std::vector<bool> taken(model.modes.size(), false);
  for (const AnalyticMode& a : analytic_modes(box, model.material, top_hz * (1 + tolerance))) {
    AnalyticRow row;
    row.reference = a;
    double best = INFINITY;
    for (size_t m = 0; m < model.modes.size(); ++m) {
      const double d = std::abs(std::log(model.modes[m].frequency_hz / a.frequency_hz));
      if (!taken[m] && d < best) {
        best = d;
        row.model_mode = static_cast<int>(m);
      }
    }
    if (row.model_mode >= 0) {
      taken[row.model_mode] = true;
      row.model_hz = model.modes[row.model_mode].frequency_hz;
      row.error = row.model_hz / a.frequency_hz - 1;
      row.passed = std::abs(row.error) <= tolerance;
    }
    c.rows.push_back(row);
  }
  c.passed = !c.rows.empty();
  for (const auto& r : c.rows) c.passed = c.passed && r.passed;
  return c;
}

std::string analytic_json(const AnalyticComparison& c, const std::string& mesh, const ModalModel& model) {
  nlohmann::ordered_json j;
  j["format"] = "mesh2dsp-analytic-check";
  j["version"] = 1;
  j["mesh"] = mesh;
  j["shape"] = {{"kind", c.box.kind}, {"extents_m", {c.box.extent_m[0], c.box.extent_m[1], c.box.extent_m[2]}}};
  j["material"] = {{"name", model.material.name}, {"density", model.material.density_kg_m3},
                   {"youngs_modulus", model.material.youngs_modulus_pa}, {"poisson_ratio", model.material.poisson_ratio}};
  j["theory"] = c.box.kind == "bar" ? "Timoshenko beam (bending), Rayleigh-Love rod (longitudinal), free-free"
                                    : "Mindlin plate, completely free";
  j["tolerance_percent"] = 100 * c.tolerance;
  j["passed"] = c.passed;
  auto rows = nlohmann::ordered_json::array();
  for (const auto& r : c.rows)
    rows.push_back({{"mode", r.reference.label}, {"reference_hz", r.reference.frequency_hz},
                    {"model_mode", r.model_mode}, {"model_hz", r.model_hz}, {"error_percent", 100 * r.error},
                    {"passed", r.passed}});
  j["modes"] = rows;
  return j.dump(2) + "\n";
}

std::string analytic_table(const AnalyticComparison& c) {
  std::string out = fmt::format("  {:<26} {:>11} {:>11} {:>6} {:>9}\n", "theory mode", "theory Hz", "model Hz",
                                "mode", "error %");
  for (const auto& r : c.rows)
    out += r.model_mode < 0
               ? fmt::format("  {:<26} {:>11.1f} {:>11} {:>6} {:>9}  FAIL (no model mode left)\n",
                             r.reference.label, r.reference.frequency_hz, "-", "-", "-")
               : fmt::format("  {:<26} {:>11.1f} {:>11.1f} {:>6} {:>+9.2f}{}\n", r.reference.label,
                             r.reference.frequency_hz, r.model_hz, r.model_mode, 100 * r.error,
                             r.passed ? "" : "  FAIL");
  return out;
}

}  // namespace mesh2dsp::validate
