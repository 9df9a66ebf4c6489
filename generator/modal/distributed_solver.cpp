#include "modal/distributed_solver.hpp"

#include <cstdlib>
#include <optional>
#include <string_view>

namespace mesh2dsp {
namespace {
std::optional<DistributedSolver>& registered() {
  static std::optional<DistributedSolver> solver;
  return solver;
}
}  // namespace

void set_distributed_solver(DistributedSolver solver) { registered() = std::move(solver); }

const DistributedSolver* distributed_solver() { return registered() ? &*registered() : nullptr; }

bool parallel_session_wanted(int argc, char** argv) {
  // Open MPI, PMIx (Slurm, Open MPI 5) and MPICH/hydra launchers set these for every rank.
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(variable)) return true;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "slepc" || arg == "--solver=slepc") return true;
  }
  return false;
}

}  // namespace mesh2dsp
