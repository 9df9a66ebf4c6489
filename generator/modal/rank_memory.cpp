#include "modal/rank_memory.hpp"

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

#ifndef MESH2DSP_HAVE_SLEPC
// Without MPI there is one rank (with SLEPc, slepc_solve.cpp asks every rank).
std::vector<double> rank_peak_memory_mb() { return {process_peak_memory_mb()}; }
void reset_rank_peak_memory() { reset_process_peak_memory(); }
bool parallel_session_running() { return false; }
#endif

}  // namespace mesh2dsp
