// `mesh2dsp generate` end to end: every output, determinism, Faust compiles each variant,
// and bad input ends with one clear message, a non-zero exit and no file written.
#include "test_support.hpp"

namespace emit_test {
namespace {

const std::string kAllOutputs =
    "--faust bar.dsp --faust-effect bar_effect.dsp --faust-lib bar.lib --cpp bar.hpp --c bar.h "
    "--sy bar.sy --name bar";

class GenerateTest : public ScratchTest {};

TEST_F(GenerateTest, WritesEveryOutputAndTheModelBesideThem) {
  const auto r = generate(kData / "testbar.modal.json", kAllOutputs);
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* f : {"bar.dsp", "bar_effect.dsp", "bar.lib", "bar.hpp", "bar.h", "bar.sy", "bar.modal.json"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  // One header for C and C++: the same text but for the file name in its first line.
  const auto body = [](const std::string& t) { return t.substr(t.find('\n')); };
  EXPECT_TRUE(body(read_text(dir / "bar.hpp")) == body(read_text(dir / "bar.h")));
  const std::string dsp = read_text(dir / "bar.dsp");
  for (const char* s : {"declare name \"bar\"", "declare author", "declare license", "declare description",
                        "import(\"stdfaust.lib\")", "barModel(freq, exPos, t60Scale)", "[midi:keyon 60]",
                        "[scale:log][unit:Hz]", "nentry(", "ba.sAndH(m2dExcite.rise(gate) | (1 - 1'))", "ma.SR"})
    EXPECT_NE(dsp.find(s), std::string::npos) << s;
  EXPECT_EQ(dsp.find("process"), dsp.rfind("process"));  // exactly one process
  EXPECT_EQ(read_text(dir / "bar.lib").find("process ="), std::string::npos);
  // No temporaries left behind.
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_NE(e.path().filename().string()[0], '.') << e.path();
}

TEST_F(GenerateTest, OutputIsByteIdenticalOnReRunAndHoldsNoMachinePath) {
  ASSERT_EQ(generate(kData / "testbar.modal.json", kAllOutputs).status, 0);
  std::map<std::string, std::string> first;
  for (const auto& e : fs::directory_iterator(dir)) first[e.path().filename()] = read_text(e.path());
  ASSERT_EQ(generate(kData / "testbar.modal.json", kAllOutputs).status, 0);
  for (const auto& [name, text] : first) {
    EXPECT_EQ(read_text(dir / name), text) << name << " changed on re-run";
    EXPECT_EQ(text.find(dir.string()), std::string::npos) << name << " holds the output path";
    EXPECT_EQ(text.find(kSource.string()), std::string::npos) << name << " holds the checkout path";
  }
}

TEST_F(GenerateTest, EveryFaustVariantCompilesWithDebiansFaust) {
  ASSERT_EQ(generate(kData / "testbar.modal.json", kAllOutputs).status, 0);
  ASSERT_EQ(generate(kData / "testbar.modal.json",
                     "--faust bar_mf.dsp --faust-effect bar_mf_effect.dsp --resonator modefilter --name bar_mf --no-model-json")
                .status,
            0);
  ASSERT_EQ(generate(kData / "testbar_stereo.modal.json",
                     "--faust stereo.dsp --faust-effect stereo_effect.dsp --name stereo")
                .status,
            0);
  // The library is used the Faust way: import it and call its functions.
  write_text(dir / "uses_lib.dsp",
             "import(\"stdfaust.lib\");\nimport(\"bar.lib\");\n"
             "process = barStrike(button(\"gate\"), 0.5) : barModel(660, 0.5, 2);\n");
  for (const char* f : {"bar.dsp", "bar_effect.dsp", "bar_mf.dsp", "bar_mf_effect.dsp", "stereo.dsp",
                        "stereo_effect.dsp", "uses_lib.dsp"}) {
    const auto r = run("cd '" + dir.string() + "' && faust " + f + " -o /dev/null");
    EXPECT_EQ(r.status, 0) << f << ":\n" << r.output;
  }
  // Channel counts: the instrument has no input, the effect one; stereo has two outputs.
  const auto json = run("cd '" + dir.string() + "' && faust -json stereo_effect.dsp -o /dev/null && cat stereo_effect.dsp.json");
  EXPECT_NE(json.output.find("\"inputs\": 1"), std::string::npos) << json.output.substr(0, 400);
  EXPECT_NE(json.output.find("\"outputs\": 2"), std::string::npos);
}

// --- bad input ---------------------------------------------------------------------------

void expect_clean_failure(const Result& r, const std::string& mentions) {
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("mesh2dsp: error: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(mentions), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
}

void expect_no_files(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) ADD_FAILURE() << "left behind: " << e.path();
}

class BadInputTest : public ScratchTest {};

TEST_F(BadInputTest, UnreadableModel) {
  expect_clean_failure(generate(dir / "missing.modal.json", "--faust x.dsp"), "missing.modal.json");
  write_text(dir / "garbage.modal.json", "{ not json");
  expect_clean_failure(generate(dir / "garbage.modal.json", "--faust x.dsp"), "not valid JSON");
  write_text(dir / "nomodes.modal.json",
             R"({"format": "mesh2dsp-modal-model", "version": 1, "material": {"density": 7850,
                 "youngs_modulus": 2e11, "poisson_ratio": 0.29}, "modes": [], "excitations": []})");
  expect_clean_failure(generate(dir / "nomodes.modal.json", "--faust x.dsp"), "no modes");
  fs::remove(dir / "garbage.modal.json");
  fs::remove(dir / "nomodes.modal.json");
  expect_no_files(dir);
}

TEST_F(BadInputTest, UnknownTarget) {
  expect_clean_failure(generate(kData / "testbar.modal.json", "--target vst9 -o out"),
                       "unknown target 'vst9' (known: lv2, jackconsole, puredata, supercollider)");
  expect_no_files(dir);
}

TEST_F(BadInputTest, UnwritableOutputDirectory) {
  write_text(dir / "a_file", "");
  expect_clean_failure(generate(kData / "testbar.modal.json", "--faust a_file/x.dsp"), "a_file");
  expect_clean_failure(generate(kData / "testbar.modal.json", "--cpp no/such/dir/x.hpp"), "does not exist");
  expect_clean_failure(generate(kData / "testbar.modal.json", "--target lv2 -o a_file/sub"), "a_file");
  fs::remove(dir / "a_file");
  expect_no_files(dir);
}

TEST_F(BadInputTest, NothingToGenerate) {
  expect_clean_failure(generate(kData / "testbar.modal.json", ""), "nothing to generate");
}

TEST_F(BadInputTest, FailingFaust2lv2IsReportedWithItsOwnOutput) {
  // A faust2lv2 that fails the way a broken toolchain does, first on the PATH.
  fs::create_directories(dir / "bin");
  write_text(dir / "bin/faust2lv2",
             "#!/bin/sh\necho 'lv2.cpp:294:10: fatal error: boost/circular_buffer.hpp: No such file'\nexit 1\n");
  fs::permissions(dir / "bin/faust2lv2", fs::perms::owner_all);
  fs::create_directories(dir / "out");
  const auto r = run("cd '" + dir.string() + "' && PATH='" + (dir / "bin").string() + ":/usr/bin:/bin' '" +
                     kBin + "' generate '" + (kData / "testbar.modal.json").string() + "' --target lv2 -o out");
  expect_clean_failure(r, "faust2lv2 failed (exit status 1)");
  EXPECT_NE(r.output.find("boost/circular_buffer.hpp"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_empty(dir / "out"));
}

}  // namespace
}  // namespace emit_test
