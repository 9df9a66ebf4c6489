// The emitted code compiles where it is meant to run: the header (as C and as C++) and Faust's
// C output, on the host with -Wall -Wextra -Werror and for a Cortex-M4F with Debian's
// arm-none-eabi toolchain (no exceptions, no RTTI).
#include "test_support.hpp"

namespace emit_test {
namespace {

const std::string kCortexM4F =
    "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -O2 -Wall -Wextra -Werror";

class CompileTest : public ScratchTest {
 protected:
  void SetUp() override {
    ScratchTest::SetUp();
    for (const char* model : {"testbar", "testbar_stereo"}) {
      const auto r = generate(kData / (std::string(model) + ".modal.json"),
                              std::string("--cpp ") + model + ".hpp --c " + model + ".h --faust " + model +
                                  ".dsp --faust-effect " + model + "_effect.dsp --no-model-json");
      ASSERT_EQ(r.status, 0) << r.output;
    }
    // A firmware-like user of each header: a static instance, a strike, a block.
    write_text(dir / "use.cpp",
               "#include \"testbar.hpp\"\n#include \"testbar_stereo.hpp\"\n"
               "static mesh2dsp_models::Testbar bar;\nstatic mesh2dsp_models::TestbarStereo stereo;\n"
               "float out[2][64];\n"
               "extern \"C\" void audio_callback(const float* in) {\n"
               "  static bool ready = false;\n"
               "  if (!ready) { bar.prepare(48000.0f); stereo.prepare(48000.0f); bar.strike(0.5f, 1.0f); ready = true; }\n"
               "  bar.process(in, out[0], 64);\n"
               "  float* outs[2] = {out[0], out[1]};\n"
               "  stereo.process(in, outs, 64);\n}\n");
    write_text(dir / "use.c",
               "#include \"testbar.h\"\nstatic testbar_state s;\nfloat out[64];\n"
               "void audio_callback(const float* in) {\n"
               "  float* outs[TESTBAR_OUTPUTS] = {out};\n"
               "  testbar_prepare(&s, 48000.0f);\n  testbar_strike_at(&s, 1.0f, 1.0f);\n"
               "  testbar_process(&s, in, outs, 64);\n}\n");
    // Faust's C output with a minimal architecture, and CInterface.h beside it for cross builds.
    fs::create_directories(dir / "include/faust/gui");
    fs::copy_file("/usr/include/faust/gui/CInterface.h", dir / "include/faust/gui/CInterface.h");
    for (const char* dsp : {"testbar", "testbar_effect"}) {
      const auto r = run("cd '" + dir.string() + "' && faust -lang c -a '" + (kData / "faust-c-arch.c").string() +
                         "' " + dsp + ".dsp -o " + dsp + "_faust.c");
      ASSERT_EQ(r.status, 0) << r.output;
    }
  }
  void expect_compiles(const std::string& command) {
    const auto r = run("cd '" + dir.string() + "' && " + command);
    EXPECT_EQ(r.status, 0) << command << "\n" << r.output;
  }
};

TEST_F(CompileTest, HeaderOnTheHostAsCxxAndAsCWithWarningsAsErrors) {
  const std::string strict = " -O2 -Wall -Wextra -Werror -Wshadow -Wconversion -c ";
  expect_compiles(std::string(MESH2DSP_CXX) + " -std=c++17 -fno-exceptions -fno-rtti" + strict + "use.cpp -o use_cpp.o");
  expect_compiles(std::string(MESH2DSP_CXX) + " -std=c++20 -fno-exceptions -fno-rtti" + strict + "use.cpp -o use_cpp20.o");
  expect_compiles(std::string(MESH2DSP_CC) + " -std=c11 -pedantic" + strict + "use.c -o use_c.o");
  expect_compiles(std::string(MESH2DSP_CC) + " -std=c99 -pedantic" + strict + "use.c -o use_c99.o");
}

TEST_F(CompileTest, FaustCOutputOnTheHostWithWarningsAsErrors) {
  for (const char* c : {"testbar_faust.c", "testbar_effect_faust.c"})
    expect_compiles(std::string(MESH2DSP_CC) + " -std=c11 -O2 -Wall -Wextra -Werror -Iinclude -c " + c +
                    " -o /dev/null");
}

TEST_F(CompileTest, HeaderForCortexM4F) {
  expect_compiles("arm-none-eabi-g++ " + kCortexM4F +
                  " -std=c++17 -fno-exceptions -fno-rtti -DTESTBAR_LANES=1 -DTESTBAR_STEREO_LANES=1 -c use.cpp -o use_m4.o");
  expect_compiles("arm-none-eabi-gcc " + kCortexM4F + " -std=c11 -DTESTBAR_LANES=1 -c use.c -o use_c_m4.o");
  // Single-precision FPU only: the resonator loop must not call double-precision helpers.
  const auto symbols = run("cd '" + dir.string() + "' && arm-none-eabi-nm use_m4.o use_c_m4.o");
  EXPECT_EQ(symbols.output.find("__aeabi_d"), std::string::npos) << symbols.output;
}

TEST_F(CompileTest, FaustCOutputForCortexM4F) {
  for (const char* c : {"testbar_faust.c", "testbar_effect_faust.c"})
    expect_compiles("arm-none-eabi-gcc " + kCortexM4F + " -std=c11 -Iinclude -c " + c + " -o /dev/null");
}

}  // namespace
}  // namespace emit_test
