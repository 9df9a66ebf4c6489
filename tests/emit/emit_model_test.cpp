// The derived emission data: normalisation, gain layout, formatting.
#include <gtest/gtest.h>

#include <cmath>

#include "emit/emit_model.hpp"
#include "emit/number_format.hpp"
#include "modal/modal_model.hpp"
#include "util/error.hpp"

namespace mesh2dsp {
namespace {

ModalModel two_mode_model() {
  ModalModel m;
  m.name = "two modes";
  m.material = {"steel", 7850, 2e11, 0.29, 0, 0, ""};
  m.modes = {{100, 0.01, std::log(1000.0) / (0.01 * 2 * M_PI * 100), 0},
             {300, 0.0, INFINITY, 0}};
  ModalExcitation a, b;
  a.gains = {2.0, -1.0};
  b.gains = {0.5, 3.0};
  m.excitations = {a, b};
  return m;
}

TEST(EmitModel, ContactMicrophoneGainsAreSquaredAndNormalisedByTheLargestSum) {
  const EmitModel e = make_emit_model(two_mode_model());
  EXPECT_EQ(e.name, "two_modes");
  EXPECT_EQ(e.class_name, "TwoModes");
  EXPECT_EQ(e.output_count, 1);
  // point 0: 4 + 1 = 5; point 1: 0.25 + 9 = 9.25 -> normalisation 1/9.25
  EXPECT_NEAR(e.normalization, 1 / 9.25, 1e-15);
  EXPECT_NEAR(e.gain(0, 0, 0), 4 / 9.25, 1e-15);
  EXPECT_NEAR(e.gain(0, 1, 1), 9 / 9.25, 1e-15);
  EXPECT_NEAR(e.frequency_ratio[1], 3.0, 1e-15);
  EXPECT_NEAR(e.decay_per_s[0], 0.01 * 2 * M_PI * 100, 1e-12);
  EXPECT_EQ(e.decay_per_s[1], 0.0);  // undamped
}

TEST(EmitModel, ListenerGainsMixTheModalVelocities) {
  ModalModel m = two_mode_model();
  ModalListener l;
  l.gains = {1.0, 1.0};
  m.listeners = {l, l};
  const EmitModel e = make_emit_model(m);
  EXPECT_EQ(e.output_count, 2);
  EXPECT_FALSE(e.contact_microphone);
  // sums: point 0: 2 + 1 = 3, point 1: 0.5 + 3 = 3.5
  EXPECT_NEAR(e.gain(1, 0, 1), -1 / 3.5, 1e-15);
}

TEST(EmitModel, RefusesModelsThatCannotSound) {
  ModalModel m = two_mode_model();
  m.excitations.clear();
  EXPECT_THROW(make_emit_model(m), Error);
  m = two_mode_model();
  for (auto& e : m.excitations) e.gains = {0, 0};
  EXPECT_THROW(make_emit_model(m), Error);
  m = two_mode_model();
  m.modes.clear();
  for (auto& e : m.excitations) e.gains.clear();
  EXPECT_THROW(make_emit_model(m), Error);
}

TEST(NumberFormat, ShortestFloatTextThatReadsBackExactly) {
  EXPECT_EQ(float_literal(1.0), "1.0");
  EXPECT_EQ(float_literal(0.1), "0.1");
  EXPECT_EQ(c_float_literal(2.5e-7), "2.5e-07f");
  EXPECT_THROW(float_literal(NAN), Error);
  EXPECT_THROW(float_literal(1e300), Error);
}

}  // namespace
}  // namespace mesh2dsp
