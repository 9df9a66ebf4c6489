#include "emit/faust_target.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace mesh2dsp {
namespace fs = std::filesystem;

const std::vector<FaustTarget>& faust_targets() {
  static const std::vector<FaustTarget> targets{
      {"lv2", "faust2lv2", true, true},
      {"jackconsole", "faust2jackconsole", false, false},
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

fs::path build_faust_target(const FaustTarget& target, const std::string& program_name,
                            const std::string& dsp_text, const fs::path& output_dir) {
  const std::string script = find_in_path(target.script);
  if (script.empty())
    throw Error(fmt::format("--target {} needs {} on the PATH (Debian package faust)",
                            target.name, target.script));
  ScratchDir scratch;
  const std::string dsp_name = program_name + ".dsp";
  write_text_atomically(scratch.path / dsp_name, dsp_text);
  const fs::path log = scratch.path / "build.log";
  const int status = run_logged({script, dsp_name}, scratch.path, log);
  const fs::path artifact =
      scratch.path / (target.artifact_is_bundle ? program_name + "." + target.name : program_name);
  if (status != 0 || !fs::exists(artifact))
    throw Error(fmt::format("{} failed ({}) building {}; its last output:\n{}", target.script,
                            status != 0 ? fmt::format("exit status {}", status)
                                        : std::string("it produced no ") + artifact.filename().string(),
                            dsp_name, log_tail(log, 25)));
  const fs::path destination = output_dir / artifact.filename();
  install(artifact, destination);
  return destination;
}

}  // namespace mesh2dsp
