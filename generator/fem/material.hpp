#pragma once
// Linear isotropic elastic material with Rayleigh damping C = α·M + β·K (Hiner 2024, §2.2).
#include <optional>
#include <string>
#include <vector>

namespace mesh2dsp {

struct Material {
  std::string name;
  double density_kg_m3 = 0;
  double youngs_modulus_pa = 0;
  double poisson_ratio = 0;
  double rayleigh_mass_per_s = 0;   // α, multiplies M
  double rayleigh_stiffness_s = 0;  // β, multiplies K
  std::string source;               // where the values come from
};

struct MaterialOverrides {
  std::optional<double> density_kg_m3, youngs_modulus_pa, poisson_ratio, rayleigh_mass_per_s,
      rayleigh_stiffness_s;
  bool any() const {
    return density_kg_m3 || youngs_modulus_pa || poisson_ratio || rayleigh_mass_per_s ||
           rayleigh_stiffness_s;
  }
};

const std::vector<Material>& material_presets();

// Case-insensitive lookup; throws mesh2dsp::Error listing the presets when unknown.
Material find_material_preset(const std::string& name);

// Applies overrides; the name gets a "+custom" suffix when anything changed.
Material apply_overrides(Material material, const MaterialOverrides& overrides);

// Throws mesh2dsp::Error naming the offending value: ν outside (−1, 0.5), E ≤ 0, ρ ≤ 0,
// negative damping, or anything not finite.
void validate_material(const Material& material);

// Lamé parameters.
double lame_lambda(const Material& m);
double lame_mu(const Material& m);

}  // namespace mesh2dsp
