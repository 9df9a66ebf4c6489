#include "cli/forward_to_full.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include "cli/commands.hpp"
#include "modal/distributed_solver.hpp"

namespace mesh2dsp {

namespace fs = std::filesystem;

std::optional<int> forward_to_full(int argc, char** argv) {
  // The subcommand is the first argument that is not an option: the options before it
  // (-q, --quiet, --help, --version) take no value.
  std::string_view command;
  for (int i = 1; i < argc && command.empty(); ++i)
    if (argv[i][0] != '-') command = argv[i];
  bool runtime = false;
  for (const auto& c : kRuntimeCommands) runtime = runtime || command == c.name;
  // --solver slepc, or a rank started by mpirun: the distributed solver is in mesh2dsp-full too.
  const bool distributed = !runtime && parallel_session_wanted(argc, argv);
  if (!runtime && !distributed) return std::nullopt;
  const std::string what = runtime ? fmt::format("`{}`", command) : std::string("--solver slepc");

  std::error_code error;
  const fs::path self = fs::canonical("/proc/self/exe", error);
  const fs::path here = error ? fs::path(argv[0]).parent_path() : self.parent_path();
  const fs::path candidates[] = {here / "mesh2dsp-full", here / ".." / "libexec" / "mesh2dsp" / "mesh2dsp-full"};
  for (const auto& full : candidates) {
    if (::access(full.c_str(), X_OK) != 0) continue;
    ::execv(full.c_str(), argv);
    fmt::print(stderr, "mesh2dsp: error: could not run {} for {}: {}\n", full.string(), what,
               std::strerror(errno));
    return 1;
  }
  fmt::print(stderr, "mesh2dsp: error: {} needs mesh2dsp-full (the Faust runtime's commands and the "
             "distributed solver), which is neither in {} nor in {}: reinstall mesh2dsp\n", what, candidates[0].parent_path().string(),
             candidates[1].parent_path().lexically_normal().string());
  return 1;
}

}  // namespace mesh2dsp
