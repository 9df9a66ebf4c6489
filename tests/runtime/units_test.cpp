// Units of the runtime: argument parsing, Faust message formatting, control lookup, the cache.
#include <gtest/gtest.h>

#include "runtime/dsp/control_layout.hpp"
#include "runtime/jit/faust_compiler.hpp"
#include "runtime/render/events.hpp"
#include "runtime/render/offline_render.hpp"
#include "support.hpp"

namespace {

using namespace rt_test;
using namespace mesh2dsp::runtime;

TEST(Events, SetAndTriggerSyntax) {
  const auto set = parse_set("hardness=0.8");
  EXPECT_EQ(set.name, "hardness");
  EXPECT_DOUBLE_EQ(set.value, 0.8);
  EXPECT_DOUBLE_EQ(set.time_s, 0.0);
  const auto timed = parse_set("/bank/freq=660@1.25");
  EXPECT_EQ(timed.name, "/bank/freq");
  EXPECT_DOUBLE_EQ(timed.time_s, 1.25);
  const auto press = parse_trigger("gate@0.1");
  ASSERT_EQ(press.size(), 2u);
  EXPECT_DOUBLE_EQ(press[0].value, 1.0);
  EXPECT_DOUBLE_EQ(press[1].time_s, 0.1 + kDefaultTriggerHold_s);
  EXPECT_DOUBLE_EQ(parse_trigger("gate@1+0.5")[1].time_s, 1.5);
  for (const char* bad : {"hardness", "=1", "x=abc", "x=1@-2", "x=nan"})
    EXPECT_THROW(parse_set(bad), mesh2dsp::Error) << bad;
  for (const char* bad : {"gate", "gate@", "gate@x", "gate@1+0"})
    EXPECT_THROW(parse_trigger(bad), mesh2dsp::Error) << bad;
}

TEST(FaustMessages, LocatedErrorsBecomePathLine) {
  EXPECT_EQ(format_faust_error("bowl : 12 : ERROR : undefined symbol : foo\n", "bowl", "/m/bowl.dsp"),
            "/m/bowl.dsp:12: error: undefined symbol : foo");
  EXPECT_EQ(format_faust_error("ERROR : the Faust program has no output signal\n", "x", "x.dsp"),
            "x.dsp: the Faust program has no output signal");
}

TEST(ControlLayout, FindsByLabelPathOrSuffixAndRejectsAmbiguity) {
  const auto program = FaustCompiler({}).compile_string(
      "twin", "process = hslider(\"h:a/level\",0,0,1,0.1) + hslider(\"h:b/level\",0,0,1,0.1)"
              " + button(\"gate\") + nentry(\"h:a/pos\",1,0,4,1);");
  auto instance = program.instantiate();
  instance->init(48000);
  const auto layout = ControlLayout::of(*instance);
  EXPECT_EQ(layout.controls().size(), 4u);
  EXPECT_EQ(layout.find("gate").kind, ControlKind::button);
  EXPECT_EQ(layout.find("pos").path, "/twin/a/pos");
  EXPECT_EQ(layout.find("a/level").path, "/twin/a/level");
  EXPECT_EQ(layout.find("/twin/b/level").path, "/twin/b/level");
  EXPECT_THROW(layout.find("level"), mesh2dsp::Error);
  EXPECT_THROW(layout.find("volume"), mesh2dsp::Error);
}

TEST(Cache, SecondCompileLoadsMachineCodeAndRendersTheSame) {
  TempDir dir;
  CompileOptions options;
  options.cache_directory = dir / "cache";
  const FaustCompiler compiler(options);
  const auto cold = compiler.compile_file(data_dir() / "bank.dsp");
  EXPECT_FALSE(cold.from_cache());
  const auto warm = compiler.compile_file(data_dir() / "bank.dsp");
  EXPECT_TRUE(warm.from_cache());
  auto render_of = [](const CompiledProgram& p) {
    auto instance = p.instantiate();
    instance->init(48000);
    const auto events = bind_events(parse_trigger("gate@0"), ControlLayout::of(*instance), 48000);
    std::vector<float> out;
    OfflineIO io;
    io.write_output = [&](const float* const* o, int n) { out.insert(out.end(), o[0], o[0] + n); };
    run_offline(*instance, 4800, events, io);
    return out;
  };
  EXPECT_EQ(render_of(cold), render_of(warm));
  // A different option is a different program.
  CompileOptions other = options;
  other.faust_args = {"-double"};
  EXPECT_FALSE(FaustCompiler(other).compile_file(data_dir() / "bank.dsp").from_cache());
}

TEST(Cache, EditingAnImportedLibraryInvalidatesTheEntry) {
  TempDir dir;
  write_text(dir / "modes.lib", "f0 = 440;\n");
  write_text(dir / "uses.dsp", "import(\"stdfaust.lib\");\nimport(\"modes.lib\");\nprocess = os.osc(f0);\n");
  CompileOptions options;
  options.cache_directory = dir / "cache";
  const FaustCompiler compiler(options);
  EXPECT_FALSE(compiler.compile_file(dir / "uses.dsp").from_cache());
  const auto again = compiler.compile_file(dir / "uses.dsp");
  EXPECT_TRUE(again.from_cache());
  bool watches_library = false;
  for (const auto& s : again.sources()) watches_library |= s.filename() == "modes.lib";
  EXPECT_TRUE(watches_library) << "live reload must watch imported files too";
  write_text(dir / "modes.lib", "f0 = 660;\n");
  EXPECT_FALSE(compiler.compile_file(dir / "uses.dsp").from_cache());
}

}  // namespace
