// What a user can read cites papers by author, year and equation, never the project's internal
// documents ("seed 003", DESIGN.md, a ../shared folder): the help of every command, and every
// file a user reads, runs or gets installed (sources whose strings the binary prints and whose
// headers are installed, templates and generated code, the page, examples, README files, the
// Python package, scripts). Also the demo's summary: what the model file holds, and why.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/command.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kSource = MESH2DSP_SOURCE_DIR;
const std::regex kInternal(R"(seed 0\d\d|DESIGN\.md|\.\./shared|shared/benchmarks|shared/seeds)",
                           std::regex::icase);

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The first internal reference in `text`, with its line, or "".
std::string first_internal_reference(const std::string& text) {
  std::smatch found;
  if (!std::regex_search(text, found, kInternal)) return "";
  const auto at = static_cast<std::size_t>(found.position(0));
  const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n');
  return "line " + std::to_string(line) + ": \"" + found.str() + "\"";
}

bool is_text_file(const fs::path& p) {
  static const std::vector<std::string> kinds = {".cpp", ".hpp", ".h", ".c", ".py", ".md", ".txt",
                                                 ".sh", ".cmake", ".in", ".mustache", ".dsp", ".lib",
                                                 ".js", ".mjs", ".html", ".json", ".toml", ".sy", ".ld", ""};
  return std::find(kinds.begin(), kinds.end(), p.extension().string()) != kinds.end();
}

}  // namespace

TEST(UserText, NoUserFacingFileNamesAnInternalDocument) {
  // Folders a user reads or gets installed; tests/ and fuzz/ are the developers' own. Two
  // benchmark scripts look for the maintainers' benchmark data beside the checkout by default
  // (their SPOT_OBJ says where else): developer tools, left out.
  const std::vector<std::string> folders = {"cli", "generator", "runtime", "solver", "validate",
                                            "templates", "generated", "examples", "python", "meshes",
                                            "cmake", "scripts", "web/src", "tests/install"};
  const std::vector<std::string> developer_only = {"scripts/make_bench_objects.py",
                                                   "scripts/bench_real_objects.sh", "python/tests"};
  std::vector<fs::path> files = {kSource / "README.md", kSource / "web" / "build.mjs",
                                 kSource / "CMakeLists.txt"};
  for (const auto& folder : folders) {
    if (!fs::is_directory(kSource / folder)) continue;
    for (const auto& e : fs::recursive_directory_iterator(kSource / folder)) {
      const std::string rel = fs::relative(e.path(), kSource).string();
      const bool skipped = std::any_of(developer_only.begin(), developer_only.end(),
                                       [&](const std::string& d) { return rel.starts_with(d); });
      if (e.is_regular_file() && !skipped && is_text_file(e.path()) && e.file_size() < (8u << 20))
        files.push_back(e.path());
    }
  }
  ASSERT_GT(files.size(), 200u) << "the folders were not found under " << kSource;
  for (const auto& f : files) {
    const std::string where = first_internal_reference(read_text(f));
    EXPECT_EQ(where, "") << fs::relative(f, kSource).string() << " " << where;
  }
}

TEST(UserText, NoCommandsHelpNamesAnInternalDocument) {
  const auto top = mesh2dsp::test::run_command(std::string(MESH2DSP_BIN) + " --help");
  ASSERT_EQ(top.exit_code, 0) << top.output;
  EXPECT_EQ(first_internal_reference(top.output), "") << top.output;
  // The commands, from the help's list ("Subcommands:" then "  modes    analysis only: ...").
  std::vector<std::string> commands;
  const auto list = top.output.find("Subcommands:");
  ASSERT_NE(list, std::string::npos) << top.output;
  std::istringstream lines(top.output.substr(list));
  std::string line;
  const std::regex command(R"(^  ([a-z][a-z-]*)\b.*)");
  while (std::getline(lines, line))
    if (std::smatch m; std::regex_match(line, m, command)) commands.push_back(m[1]);
  ASSERT_GE(commands.size(), 3u) << top.output;
  for (const auto& c : commands) {
    const auto help = mesh2dsp::test::run_command(std::string(MESH2DSP_BIN) + " " + c + " --help");
    EXPECT_EQ(help.exit_code, 0) << c << ": " << help.output;
    EXPECT_EQ(first_internal_reference(help.output), "") << "mesh2dsp " << c << " --help:\n" << help.output;
  }
}

// scripts/demo.sh ends with scripts/model_summary.py's line on the model it made: the count read
// from the model file, and the requested count with the reason when fewer modes were kept.
TEST(UserText, TheDemoSaysHowManyModesItMadeAndWhyNotAsMany) {
  const auto summary = [](const fs::path& model) {
    return mesh2dsp::test::run_command("python3 " + (kSource / "scripts" / "model_summary.py").string() +
                                       " " + model.string() + " 'a steel bowl'");
  };
  const fs::path bowl = kSource / "generated" / "bowl" / "bowl.modal.json";
  const auto json = nlohmann::json::parse(read_text(bowl));
  const std::size_t made = json["modes"].size();
  const int asked = json["analysis"]["requested_modes"];
  ASSERT_LT(made, static_cast<std::size_t>(asked)) << "the bundled bowl keeps fewer modes than asked";
  auto r = summary(bowl);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(r.output.starts_with(std::to_string(made) + " modes of a steel bowl (" + std::to_string(asked) +
                                   " asked for: the others lie above --fmax 20 kHz"))
      << r.output;
  // As many as asked: no excuse printed.
  auto all = json;
  all["analysis"]["requested_modes"] = made;
  const fs::path dir = fs::temp_directory_path() / "mesh2dsp-user-text";
  fs::create_directories(dir);
  std::ofstream(dir / "all.modal.json") << all.dump();
  r = summary(dir / "all.modal.json");
  EXPECT_EQ(r.output, std::to_string(made) + " modes of a steel bowl\n");
  // Not a model: one line saying so, non-zero.
  std::ofstream(dir / "bad.modal.json") << "{}";
  r = summary(dir / "bad.modal.json");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("not a readable modal model"), std::string::npos) << r.output;
  fs::remove_all(dir);
}
