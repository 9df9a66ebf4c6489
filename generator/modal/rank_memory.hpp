#pragma once
// Peak resident memory per process and per MPI rank, for `bench`: a cluster is sized from the
// per-rank numbers of a run on one machine. Peaks can be reset, so several cases run in one
// process (as they must under mpirun, where a case cannot fork) each report their own.
#include <vector>

namespace mesh2dsp {

// This process's high-water mark of resident memory (VmHWM), in MB.
double process_peak_memory_mb();

// Resets that high-water mark to the current resident memory (Linux clear_refs).
void reset_process_peak_memory();

// process_peak_memory_mb() of every rank, rank 0 first; one entry when not running under MPI.
// Called on rank 0 only: the other ranks answer from serve_parallel_solves().
std::vector<double> rank_peak_memory_mb();

// reset_process_peak_memory() on every rank (rank 0 only, as above).
void reset_rank_peak_memory();

// True when MPI runs in this process (a ParallelSession): then it must not fork to isolate work.
bool parallel_session_running();

}  // namespace mesh2dsp
