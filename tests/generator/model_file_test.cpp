// Issue 15, item 3: model files from elsewhere (hand-edited, truncated, written by another
// tool) end in one message naming the field and the problem — never a crash or a silently
// wrong program — in the reader and through `generate` and `validate`.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "modal/damping.hpp"
#include "modal/modal_model.hpp"
#include "support/command.hpp"
#include "support/error_of.hpp"
#include "util/error.hpp"

using namespace mesh2dsp;
using mesh2dsp::test::error_of;
using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

// A valid model as `modes` writes it: 3 modes, 2 excitations, a listener, a triangle.
json good_model() {
  ModalModel m;
  m.name = "edited";
  m.material = find_material_preset("steel");
  for (double f : {400.0, 1100.0, 2500.0}) {
    ModalMode mode;
    mode.eigenvalue = std::pow(2 * M_PI * f, 2);
    m.modes.push_back(mode);
  }
  for (int k = 0; k < 3; ++k) {
    ModalExcitation e;
    e.vertex = k;
    e.position = {0.01 * k, 0, 0};
    e.direction = {0, 0, 1};
    e.gains = {0.5, -0.25 * (k + 1), 0.125};
    m.excitations.push_back(e);
  }
  m.excitation_triangles = {{0, 1, 2}};
  apply_rayleigh_damping(m);
  return json::parse(modal_model_to_json(m));
}

std::string read_error(const json& j) {
  return error_of([&] { modal_model_from_json(j.dump(), "x.modal.json"); });
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST(ModelFile, TheGoodModelReads) {
  EXPECT_EQ(modal_model_from_json(good_model().dump()).modes.size(), 3u);
}

// The boundary-element fields (directivity, complex listener pressure, radiation and its
// centre) round-trip; a file without them reads as O'Brien's, and they are not written then.
TEST(ModelFile, RadiationFieldsRoundTrip) {
  ModalModel m = modal_model_from_json(good_model().dump());
  EXPECT_EQ(m.analysis.radiation, "obrien");
  EXPECT_FALSE(json::parse(modal_model_to_json(m))["analysis"].contains("radiation"));
  m.analysis.radiation = "bem";
  m.analysis.radiation_centre_m = {0.1, -0.2, 0.3};
  m.modes[1].directivity_order = 1;
  m.modes[1].directivity = {{1, 2}, {3, -4}, {0.5, 0}, {0, -0.25}};
  ModalListener l;
  l.position = {0, 0, 1};
  l.gains = {1, -2, 3};
  l.pressure = {{1, 0.5}, {-2, 0.1}, {3, -3}};
  m.listeners.push_back(l);
  const ModalModel back = modal_model_from_json(modal_model_to_json(m));
  EXPECT_EQ(back.analysis.radiation, "bem");
  EXPECT_EQ(back.analysis.radiation_centre_m, m.analysis.radiation_centre_m);
  EXPECT_EQ(back.modes[0].directivity_order, -1);
  EXPECT_EQ(back.modes[1].directivity_order, 1);
  EXPECT_EQ(back.modes[1].directivity, m.modes[1].directivity);
  ASSERT_EQ(back.listeners.size(), 1u);
  EXPECT_EQ(back.listeners[0].pressure, l.pressure);
  // Bad values name the field.
  json j = json::parse(modal_model_to_json(m));
  j["modes"][1]["directivity"]["re"].push_back(1);
  EXPECT_TRUE(contains(read_error(j), "modes[1]: directivity")) << read_error(j);
  j = json::parse(modal_model_to_json(m));
  j["listeners"][0]["pressure_im"] = {1, 2};
  EXPECT_TRUE(contains(read_error(j), "pressure_im")) << read_error(j);
  j = json::parse(modal_model_to_json(m));
  j["analysis"]["radiation"] = "ray tracing";
  EXPECT_TRUE(contains(read_error(j), "'radiation'")) << read_error(j);
}

// Each edit is what a person or another tool might do; each message must name the field.
TEST(ModelFile, EveryBadFieldIsOneMessageNamingIt) {
  struct Case {
    const char* what;
    void (*edit)(json&);
    std::vector<const char*> expect;  // substrings of the message
  };
  const std::vector<Case> cases = {
      {"gains longer than modes", [](json& j) { j["excitations"][1]["gains"].push_back(0.5); },
       {"excitations[1]", "4 gains for 3 modes"}},
      {"listener gains shorter", [](json& j) {
         j["listeners"] = json::array({{{"position", {0, 0, 1}}, {"gains", {1, 2}}}});
       }, {"listeners[0]", "2 gains for 3 modes"}},
      {"negative T60", [](json& j) { j["modes"][1]["t60_s"] = -2; j["modes"][1].erase("damping_ratio"); },
       {"modes[1]", "t60_s must be positive"}},
      {"T60 edited beside a stale damping ratio", [](json& j) { j["modes"][2]["t60_s"] = 9.5; },
       {"modes[2]", "t60_s 9.5 disagrees with damping_ratio"}},
      {"negative damping ratio", [](json& j) { j["modes"][0]["damping_ratio"] = -0.01; j["modes"][0].erase("t60_s"); },
       {"modes[0]", "damping_ratio must be >= 0"}},
      {"overdamped", [](json& j) { j["modes"][0]["damping_ratio"] = 1.5; j["modes"][0].erase("t60_s"); },
       {"modes[0]", "overdamped"}},
      {"frequency edited, eigenvalue stale", [](json& j) { j["modes"][0]["frequency_hz"] = 410.0; },
       {"modes[0]", "eigenvalue", "does not match frequency_hz 410"}},
      {"above Nyquist at every rate", [](json& j) {
         for (auto& m : j["modes"]) {
           m["frequency_hz"] = m["frequency_hz"].get<double>() * 300;
           m.erase("eigenvalue"); m.erase("t60_s");
         }
       }, {"modes[0]", "above the Nyquist frequency of every sample rate"}},
      {"descending modes", [](json& j) { std::swap(j["modes"][0], j["modes"][2]); },
       {"modes[1]", "ascending"}},
      {"no modes", [](json& j) { j["modes"] = json::array(); }, {"'modes' is empty", "no modes"}},
      {"modes not an array", [](json& j) { j["modes"] = json::object(); }, {"'modes'"}},
      {"frequency a string", [](json& j) { j["modes"][1]["frequency_hz"] = "400"; },
       {"modes[1]", "'frequency_hz' has the wrong type"}},
      {"a gain of null", [](json& j) { j["excitations"][0]["gains"][2] = nullptr; },
       {"excitations[0]", "'gains' has the wrong type"}},
      {"position of 2 components", [](json& j) { j["excitations"][2]["position"] = {1, 2}; },
       {"excitations[2]", "'position' must have 3 components"}},
      {"excitations an object", [](json& j) { j["excitations"] = {{"a", 1}}; },
       {"'excitations' must be an array"}},
      {"vertex 1e20", [](json& j) { j["excitations"][0]["vertex"] = 1e20; },
       {"excitations[0]", "'vertex' must be a whole number"}},
      {"triangle to a missing excitation", [](json& j) { j["excitation_triangles"][0][2] = 7; },
       {"excitation_triangles[0]", "7 is not the index of an excitation"}},
      {"triangle of two", [](json& j) { j["excitation_triangles"][0] = {0, 1}; },
       {"excitation_triangles[0]", "3 excitation indices"}},
      {"negative density", [](json& j) { j["material"]["density"] = -7850; },
       {"material", "density"}},
      {"missing Young's modulus", [](json& j) { j["material"].erase("youngs_modulus"); },
       {"material", "missing field 'youngs_modulus'"}},
      {"element order 4", [](json& j) { j["mesh"]["element_order"] = 4; },
       {"mesh", "'element_order' must be 1, 2 or 3"}},
      {"mesh a number", [](json& j) { j["mesh"] = 5; }, {"'mesh' must be an object"}},
      {"unknown normalization", [](json& j) { j["analysis"]["normalization"] = "loud"; },
       {"analysis", "'normalization'"}},
      {"version 2", [](json& j) { j["version"] = 2; }, {"version 2 is not supported"}},
      {"version 1.5", [](json& j) { j["version"] = 1.5; }, {"'version' must be a whole number"}},
  };
  for (const auto& c : cases) {
    json j = good_model();
    c.edit(j);
    const std::string message = read_error(j);
    EXPECT_TRUE(contains(message, "x.modal.json: ")) << c.what << ": " << message;
    for (const char* part : c.expect)
      EXPECT_TRUE(contains(message, part)) << c.what << ": " << message;
  }
}

// JSON has no infinity; a number beyond double's range made the parser throw its own
// out_of_range exception ("internal error" from the CLI): now one message.
TEST(ModelFile, NumbersBeyondDoubleAreOneMessage) {
  std::string text = good_model().dump();
  const auto at = text.find("\"gains\":[0.5,") + 9;
  text.replace(at, 3, "1e999");
  const std::string message = error_of([&] { modal_model_from_json(text, "x.modal.json"); });
  EXPECT_TRUE(contains(message, "x.modal.json: not valid JSON")) << message;
  EXPECT_TRUE(contains(message, "1e999")) << message;
}

// Either of the two damping fields alone is enough (a hand-written model may give only T60).
TEST(ModelFile, DampingFromT60AloneOrRatioAlone) {
  json j = good_model();
  const double t60 = j["modes"][1]["t60_s"].get<double>();
  const double ratio = j["modes"][1]["damping_ratio"].get<double>();
  j["modes"][1].erase("damping_ratio");
  j["modes"][2].erase("t60_s");
  j["modes"][2]["damping_ratio"] = 0.002;
  const auto m = modal_model_from_json(j.dump());
  EXPECT_NEAR(m.modes[1].damping_ratio, ratio, 1e-9 * ratio);
  EXPECT_NEAR(m.modes[2].t60_s, t60_seconds(0.002, 2 * M_PI * 2500), 1e-9);
  j["modes"][0]["t60_s"] = nullptr;  // undamped
  j["modes"][0].erase("damping_ratio");
  EXPECT_EQ(modal_model_from_json(j.dump()).modes[0].damping_ratio, 0.0);
}

// Truncated at every length: always one message, never another exception.
TEST(ModelFile, TruncatedAnywhereIsOneMessage) {
  const std::string text = good_model().dump(1);
  for (size_t n = 0; n < text.size(); n += 7) {
    const std::string message = error_of([&] { modal_model_from_json(text.substr(0, n), "cut"); });
    EXPECT_TRUE(contains(message, "cut: ")) << n << ": " << message;
  }
}

// Through the commands: exit 1, the field named, no output file.
TEST(ModelFile, GenerateAndValidateRefuseABadModelWithoutWriting) {
  const fs::path dir = fs::path(testing::TempDir()) / "mesh2dsp_model_file_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  json j = good_model();
  j["excitations"][0]["gains"].push_back(1.0);
  const fs::path model = dir / "bad.modal.json";
  std::ofstream(model) << j.dump(1);
  std::ofstream(dir / "ref.wav") << "RIFF";  // never read: the model fails first
  const std::string bin = MESH2DSP_BIN;
  const auto gen = mesh2dsp::test::run_command(bin + " generate " + model.string() + " --faust " +
                                               (dir / "out.dsp").string() + " --cpp " +
                                               (dir / "out.hpp").string());
  EXPECT_EQ(gen.exit_code, 1) << gen.output;
  EXPECT_TRUE(contains(gen.output, "excitations[0]: 4 gains for 3 modes")) << gen.output;
  EXPECT_FALSE(fs::exists(dir / "out.dsp"));
  EXPECT_FALSE(fs::exists(dir / "out.hpp"));
  const auto val = mesh2dsp::test::run_command(bin + " validate --model " + model.string() +
                                               " --reference " + (dir / "ref.wav").string() +
                                               " --report " + (dir / "report").string());
  EXPECT_EQ(val.exit_code, 1) << val.output;
  EXPECT_TRUE(contains(val.output, "excitations[0]: 4 gains for 3 modes")) << val.output;
  EXPECT_FALSE(fs::exists(dir / "report"));
  fs::remove_all(dir);
}
