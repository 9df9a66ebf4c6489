#include <gtest/gtest.h>

#include <cmath>

#include "fem/material.hpp"
#include "util/error.hpp"

using namespace mesh2dsp;

TEST(Material, SeedPresetsMatchHinerTable) {
  // Hiner 2024, Table 1.
  const auto steel = find_material_preset("Steel");
  EXPECT_EQ(steel.density_kg_m3, 7850);
  EXPECT_EQ(steel.youngs_modulus_pa, 2.0e11);
  EXPECT_EQ(steel.poisson_ratio, 0.29);
  EXPECT_EQ(steel.rayleigh_mass_per_s, 5);
  EXPECT_EQ(steel.rayleigh_stiffness_s, 3e-8);
  for (auto name : {"ceramic", "glass", "wood", "plastic", "iron", "polycarbonate", "steel",
                    "aluminium", "brass", "bronze"}) {
    const auto m = find_material_preset(name);
    EXPECT_FALSE(m.source.empty()) << name;
    EXPECT_NO_THROW(validate_material(m)) << name;
  }
}

TEST(Material, UnknownPresetListsTheKnownOnes) {
  try {
    find_material_preset("unobtainium");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("steel"), std::string::npos);
  }
}

TEST(Material, InvalidValuesRejected) {
  auto bad = [](auto mutate) {
    Material m = find_material_preset("steel");
    mutate(m);
    EXPECT_THROW(validate_material(m), Error);
  };
  bad([](Material& m) { m.poisson_ratio = 0.5; });
  bad([](Material& m) { m.poisson_ratio = -1.0; });
  bad([](Material& m) { m.youngs_modulus_pa = 0; });
  bad([](Material& m) { m.density_kg_m3 = -1; });
  bad([](Material& m) { m.rayleigh_mass_per_s = -1; });
  bad([](Material& m) { m.rayleigh_stiffness_s = -1e-9; });
  bad([](Material& m) { m.youngs_modulus_pa = NAN; });
}

TEST(Material, OverridesMarkTheName) {
  MaterialOverrides o;
  o.youngs_modulus_pa = 1e11;
  auto m = apply_overrides(find_material_preset("steel"), o);
  EXPECT_EQ(m.youngs_modulus_pa, 1e11);
  EXPECT_EQ(m.name, "steel+custom");
}
