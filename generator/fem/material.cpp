#include "fem/material.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "util/error.hpp"

namespace mesh2dsp {
namespace {

constexpr const char* kHiner =
    "Hiner, Physical Audio Modeling of Passive Rigid Bodies (2024) Table 1, after Wang & James, KleinPAT (2019) Table 4";
// Aluminium, brass and bronze are not in Hiner (2024) Table 1. Elastic constants: typical handbook values
// (ASM Metals Handbook / CRC Handbook: 6061 aluminium, C260 cartridge brass, C510 phosphor
// bronze). No measured Rayleigh pair is published alongside them; the damping pair is taken
// from the metals of Hiner (2024) Table 1 (iron, α = 5, β = 1e-7) as the closest documented analogue.
// Override with --rayleigh-mass/--rayleigh-stiffness when a measurement is available.
constexpr const char* kHandbook =
    "elastic constants: ASM/CRC handbook typical values; damping: Hiner (2024) iron by analogy";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

const std::vector<Material>& material_presets() {
  // name, ρ (kg/m³), E (Pa), ν, α (1/s), β (s)
  static const std::vector<Material> presets = {
      {"ceramic", 2700, 7.2e10, 0.19, 6, 1e-7, kHiner},
      {"glass", 2600, 6.2e10, 0.20, 1, 1e-7, kHiner},
      {"wood", 750, 1.1e10, 0.25, 60, 2e-6, kHiner},
      {"plastic", 1070, 1.4e9, 0.35, 30, 1e-6, kHiner},
      {"iron", 8000, 2.1e11, 0.28, 5, 1e-7, kHiner},
      {"polycarbonate", 1190, 2.4e9, 0.37, 0.5, 4e-7, kHiner},
      {"steel", 7850, 2.0e11, 0.29, 5, 3e-8, kHiner},
      {"aluminium", 2700, 6.9e10, 0.33, 5, 1e-7, kHandbook},
      {"brass", 8530, 1.10e11, 0.35, 5, 1e-7, kHandbook},
      {"bronze", 8860, 1.10e11, 0.34, 5, 1e-7, kHandbook},
  };
  return presets;
}

Material find_material_preset(const std::string& name) {
  std::string key = lower(name);
  if (key == "aluminum") key = "aluminium";
  for (const auto& m : material_presets())
    if (m.name == key) return m;
  std::string names;
  for (const auto& m : material_presets()) names += (names.empty() ? "" : ", ") + m.name;
  throw Error(fmt::format("unknown material '{}' (presets: {})", name, names));
}

Material apply_overrides(Material m, const MaterialOverrides& o) {
  if (!o.any()) return m;
  if (o.density_kg_m3) m.density_kg_m3 = *o.density_kg_m3;
  if (o.youngs_modulus_pa) m.youngs_modulus_pa = *o.youngs_modulus_pa;
  if (o.poisson_ratio) m.poisson_ratio = *o.poisson_ratio;
  if (o.rayleigh_mass_per_s) m.rayleigh_mass_per_s = *o.rayleigh_mass_per_s;
  if (o.rayleigh_stiffness_s) m.rayleigh_stiffness_s = *o.rayleigh_stiffness_s;
  if (m.name.empty()) m.name = "custom";
  else if (!m.name.ends_with("+custom")) m.name += "+custom";
  m.source = m.source.empty() ? "command line" : m.source + "; overridden on the command line";
  return m;
}

void validate_material(const Material& m) {
  auto finite = [](double v, const char* what) {
    if (!std::isfinite(v)) throw Error(fmt::format("material {} is not a finite number", what));
  };
  finite(m.density_kg_m3, "density");
  finite(m.youngs_modulus_pa, "Young's modulus");
  finite(m.poisson_ratio, "Poisson ratio");
  finite(m.rayleigh_mass_per_s, "Rayleigh mass coefficient");
  finite(m.rayleigh_stiffness_s, "Rayleigh stiffness coefficient");
  if (m.density_kg_m3 <= 0)
    throw Error(fmt::format("density must be positive (got {} kg/m^3)", m.density_kg_m3));
  if (m.youngs_modulus_pa <= 0)
    throw Error(fmt::format("Young's modulus must be positive (got {} Pa)", m.youngs_modulus_pa));
  if (!(m.poisson_ratio > -1.0 && m.poisson_ratio < 0.5))
    throw Error(fmt::format("Poisson ratio must lie in (-1, 0.5) (got {})", m.poisson_ratio));
  if (m.rayleigh_mass_per_s < 0)
    throw Error(fmt::format("Rayleigh mass coefficient must not be negative (got {} 1/s)",
                            m.rayleigh_mass_per_s));
  if (m.rayleigh_stiffness_s < 0)
    throw Error(fmt::format("Rayleigh stiffness coefficient must not be negative (got {} s)",
                            m.rayleigh_stiffness_s));
}

double lame_lambda(const Material& m) {
  const double E = m.youngs_modulus_pa, nu = m.poisson_ratio;
  return E * nu / ((1 + nu) * (1 - 2 * nu));
}

double lame_mu(const Material& m) { return m.youngs_modulus_pa / (2 * (1 + m.poisson_ratio)); }

}  // namespace mesh2dsp
