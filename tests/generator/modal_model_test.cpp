#include <gtest/gtest.h>

#include <cmath>

#include "modal/damping.hpp"
#include "modal/modal_model.hpp"
#include "util/error.hpp"

using namespace mesh2dsp;

namespace {
ModalModel small_model() {
  ModalModel m;
  m.name = "test";
  m.material = find_material_preset("steel");
  for (double f : {100.0, 250.0, 1000.0}) {
    ModalMode mode;
    mode.eigenvalue = std::pow(2 * M_PI * f, 2);
    m.modes.push_back(mode);
  }
  ModalExcitation e;
  e.vertex = 3;
  e.position = {0, 0.1, 0};
  e.direction = {0, 1, 0};
  e.gains = {0.5, -0.25, 0.125};
  m.excitations.push_back(e);
  apply_rayleigh_damping(m);
  return m;
}
}  // namespace

TEST(Damping, RayleighRatioAndT60) {
  // ξ = ½(α/ω + βω); T60 = ln(1000)/(ξω) — not Mesh2Faust's ln(1000)/(ξf).
  const double omega = 2 * M_PI * 1000;
  const double xi = rayleigh_damping_ratio(5, 3e-8, omega);
  EXPECT_NEAR(xi, 0.5 * (5 / omega + 3e-8 * omega), 1e-15);
  EXPECT_NEAR(t60_seconds(xi, omega), std::log(1000.0) / (xi * omega), 1e-12);
  EXPECT_TRUE(std::isinf(t60_seconds(0.0, omega)));
}

TEST(ModalModel, JsonRoundTrip) {
  const auto m = small_model();
  const auto text = modal_model_to_json(m);
  const auto back = modal_model_from_json(text);
  ASSERT_EQ(back.modes.size(), 3u);
  EXPECT_NEAR(back.modes[1].frequency_hz, 250.0, 1e-9);
  EXPECT_EQ(back.excitations[0].vertex, 3);
  EXPECT_EQ(back.excitations[0].gains, m.excitations[0].gains);
  EXPECT_EQ(modal_model_to_json(back), text);  // deterministic
}

TEST(ModalModel, MalformedInputNamesTheField) {
  EXPECT_THROW(modal_model_from_json("{"), Error);
  EXPECT_THROW(modal_model_from_json(R"({"format":"other"})"), Error);
  auto text = modal_model_to_json(small_model());
  auto broken = text;
  broken.replace(broken.find("\"gains\": ["), 10, "\"gains\": [1,");
  try {
    modal_model_from_json(broken);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("excitations[0]"), std::string::npos) << e.what();
  }
}

TEST(ModalModel, RetuneScalesEigenvaluesAndShapes) {
  auto m = small_model();
  auto iron = find_material_preset("iron");
  iron.poisson_ratio = m.material.poisson_ratio;
  retune_material(m, iron);
  const double ratio = (2.1e11 / 8000) / (2.0e11 / 7850);
  EXPECT_NEAR(m.modes[0].frequency_hz, 100 * std::sqrt(ratio), 1e-9);
  EXPECT_NEAR(m.excitations[0].gains[0], 0.5 * std::sqrt(7850.0 / 8000.0), 1e-12);
  auto glass = find_material_preset("glass");  // different ν
  EXPECT_THROW(retune_material(m, glass), Error);
}

TEST(ModalModel, OverdampedModesDropped) {
  auto m = small_model();
  m.material.rayleigh_mass_per_s = 2 * 2 * M_PI * 100 * 1.5;  // ξ > 1 at 100 Hz only
  m.material.rayleigh_stiffness_s = 0;
  EXPECT_EQ(apply_rayleigh_damping(m), 1);
  EXPECT_EQ(m.modes.size(), 2u);
  EXPECT_EQ(m.excitations[0].gains.size(), 2u);
}

TEST(ModalModel, RetuningAModelWithListenersIsRefusedUnlessOnlyTheDampingChanges) {
  // A listener gain sums the surface with each delay's phase at the mode's frequency: new
  // frequencies need the shapes, which the model does not keep.
  ModalModel m = small_model();
  ModalListener listener;
  listener.position = {0, 0, 0.5};
  listener.gains = {0.1, 0.2, 0.3};
  m.listeners.push_back(listener);
  EXPECT_THROW(retune_material(m, find_material_preset("iron") /* ν 0.28 */), Error);
  Material stiffer = m.material;
  stiffer.youngs_modulus_pa *= 1.1;
  try {
    retune_material(m, stiffer);
    ADD_FAILURE() << "re-tuned a model with listeners to new frequencies";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("listeners"), std::string::npos) << e.what();
  }
  Material damper = m.material;
  damper.rayleigh_mass_per_s *= 2;
  const double before = m.modes[0].frequency_hz;
  retune_material(m, damper);
  EXPECT_DOUBLE_EQ(m.modes[0].frequency_hz, before);
  EXPECT_DOUBLE_EQ(m.listeners[0].gains[1], 0.2);
}
