#include "modal/rank_memory.hpp"

#include "modal/distributed_solver.hpp"

#include <fstream>
#include <sstream>
#include <string>

namespace mesh2dsp {

double process_peak_memory_mb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) {
      std::istringstream fields(line.substr(6));
      double kb = 0;
      fields >> kb;
      return kb / 1024.0;
    }
  return 0;
}

void reset_process_peak_memory() {
  // "5" resets the peak RSS to the current RSS (Documentation/filesystems/proc.rst).
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
}

// Without the distributed solver there is one rank; with it, it asks every rank.
std::vector<double> rank_peak_memory_mb() {
  const DistributedSolver* solver = distributed_solver();
  return solver ? solver->rank_peak_memory_mb() : std::vector<double>{process_peak_memory_mb()};
}
void reset_rank_peak_memory() {
  const DistributedSolver* solver = distributed_solver();
  if (solver)
    solver->reset_rank_peak_memory();
  else
    reset_process_peak_memory();
}
bool parallel_session_running() {
  const DistributedSolver* solver = distributed_solver();
  return solver && solver->session_running();
}

}  // namespace mesh2dsp
