#include "emit/faust_target.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace mesh2dsp {
namespace fs = std::filesystem;

const std::vector<FaustTarget>& faust_targets() {
  static const std::vector<FaustTarget> targets{
      {"lv2", "faust2lv2", {"{}.lv2"}, true, "-uri-prefix", {}},
      // With OSC control (UDP 5510, or -port N): /<name>/gate 1 strikes it.
      {"jackconsole", "faust2jackconsole", {"{}"}, false, "", {"-osc"}},
      // A Pd external <program>~ (its object name); controls are messages "gate 1".
      {"puredata", "faust2puredata", {"{}~.pd_linux"}, false, "", {}},
      // A server plugin and its sclang class, the UGen Faust<Program> (faust2sc's prefix).
      {"supercollider", "faust2supercollider", {"{}.so", "{}.sc"}, false, "", {}},
  };
  return targets;
}

const FaustTarget& find_faust_target(const std::string& name) {
  std::string known;
  for (const auto& t : faust_targets()) {
    if (t.name == name) return t;
    known += (known.empty() ? "" : ", ") + t.name;
  }
  throw Error(fmt::format("unknown target '{}' (known: {})", name, known));
}

namespace {

// Lower case letters, digits and '-' (everything else becomes '-'): a URN segment.
std::string slug(const std::string& text, const std::string& fallback) {
  std::string out;
  for (unsigned char c : text) {
    const char k = std::isalnum(c) ? static_cast<char>(std::tolower(c)) : '-';
    if (!(k == '-' && (out.empty() || out.back() == '-'))) out += k;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? fallback : out;
}

bool is_c_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

// RFC 3986: scheme ":" ..., and nothing a Turtle IRI or a shell word cannot hold.
bool is_absolute_uri(const std::string& s) {
  const size_t colon = s.find(':');
  if (colon == std::string::npos || colon == 0 || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
  for (size_t i = 0; i < colon; ++i)
    if (!std::isalnum(static_cast<unsigned char>(s[i])) && s[i] != '+' && s[i] != '-' && s[i] != '.') return false;
  return std::none_of(s.begin(), s.end(), [](unsigned char c) {
    return c <= ' ' || c >= 0x7f || std::string("<>\"{}|\\^`'$").find(static_cast<char>(c)) != std::string::npos;
  });
}

}  // namespace

PluginIdentity plugin_identity(const std::string& plugin_uri, const std::string& model_name,
                               const std::string& material_name, const std::string& vendor) {
  PluginIdentity id;
  if (plugin_uri.empty()) {
    // The material's name without the "+custom" or " (nu ...)" of changed values (the version
    // tells those apart).
    const std::string material = material_name.substr(0, material_name.find_first_of("+ ("));
    id.uri = fmt::format("urn:mesh2dsp:{}:{}/{}", slug(vendor, "mesh2dsp"), slug(material, "material"), model_name);
    id.program_name = model_name;
    return id;
  }
  const size_t slash = plugin_uri.rfind('/');
  if (!is_absolute_uri(plugin_uri) || slash == std::string::npos)
    throw Error(fmt::format("--plugin-uri '{}' is not an absolute URI ending in /NAME (e.g. "
                            "https://example.org/plugins/{})", plugin_uri, model_name + "_steel"));
  id.uri = plugin_uri;
  id.program_name = plugin_uri.substr(slash + 1);
  if (!is_c_identifier(id.program_name))
    throw Error(fmt::format("--plugin-uri '{}': its last segment '{}' must be a C identifier (letters, "
                            "digits, '_'): the plugin's class, binary and bundle are named after it",
                            plugin_uri, id.program_name));
  return id;
}

std::string program_version(const std::string& program_text) {
  // FNV-1a, 64 bits: the same text gives the same version on every machine.
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : program_text) hash = (hash ^ c) * 1099511628211ull;
  return fmt::format("1.{:016x}", hash);
}

namespace {

std::string find_in_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

// The last lines of a tool's log: where its compiler states what went wrong.
std::string log_tail(const fs::path& log, int lines) {
  std::ifstream in(log);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string out;
  for (size_t i = all.size() > static_cast<size_t>(lines) ? all.size() - lines : 0; i < all.size(); ++i)
    out += "  " + all[i] + "\n";
  return out.empty() ? "  (no output)\n" : out;
}

// Runs `argv` in `dir` with stdout and stderr into `log`; returns the exit status.
int run_logged(const std::vector<std::string>& argv, const fs::path& dir, const fs::path& log) {
  const pid_t pid = fork();
  if (pid < 0) throw Error("cannot start a process (fork failed)");
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || chdir(dir.c_str()) != 0) _exit(127);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw Error("lost track of a child process");
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "mesh2dsp-target-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw Error("cannot create a scratch directory in " + fs::temp_directory_path().string());
    path = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Copies `from` next to `to`, then swaps it in, so `to` is never a half-installed build.
void install(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  const fs::path staged = temporary_sibling(to);
  fs::copy(from, staged, fs::copy_options::recursive, ec);
  if (ec) {
    fs::remove_all(staged, ec);
    throw Error(fmt::format("cannot write {}: {}", to.string(), ec.message()));
  }
  const fs::path old = temporary_sibling(to);
  const bool had_old = fs::exists(to);
  if (had_old) fs::rename(to, old, ec);
  if (!ec) fs::rename(staged, to, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove_all(staged, ignored);
    if (had_old && !fs::exists(to)) fs::rename(old, to, ignored);
    throw Error(fmt::format("cannot install {}: {}", to.string(), ec.message()));
  }
  if (had_old) fs::remove_all(old, ec);
}

}  // namespace

std::vector<fs::path> build_faust_target(const FaustTarget& target, const PluginIdentity& identity,
                                         const std::string& dsp_text, const fs::path& output_dir) {
  const std::string script = find_in_path(target.script);
  if (script.empty())
    throw Error(fmt::format("--target {} needs {} on the PATH (Debian package faust)",
                            target.name, target.script));
  ScratchDir scratch;
  const std::string dsp_name = identity.program_name + ".dsp";
  write_text_atomically(scratch.path / dsp_name, dsp_text);
  const fs::path log = scratch.path / "build.log";
  std::vector<std::string> argv{script};
  argv.insert(argv.end(), target.options.begin(), target.options.end());
  if (!target.uri_prefix_option.empty()) {
    argv.push_back(target.uri_prefix_option);
    argv.push_back(identity.uri_prefix());
  }
  argv.push_back(dsp_name);
  const int status = run_logged(argv, scratch.path, log);
  std::vector<fs::path> artifacts;
  for (const auto& pattern : target.artifacts)
    artifacts.push_back(scratch.path / fmt::format(fmt::runtime(pattern), identity.program_name));
  // Some scripts exit 0 after their compiler failed: what they built is the proof.
  for (const auto& artifact : artifacts)
    if (status != 0 || !fs::exists(artifact))
      throw Error(fmt::format("{} failed ({}) building {}; its last output:\n{}", target.script,
                              status != 0 ? fmt::format("exit status {}", status)
                                          : std::string("it produced no ") + artifact.filename().string(),
                              dsp_name, log_tail(log, 25)));
  std::vector<fs::path> installed;
  for (const auto& artifact : artifacts) {
    installed.push_back(output_dir / artifact.filename());
    install(artifact, installed.back());
  }
  return installed;
}

}  // namespace mesh2dsp
