#pragma once
// The eigen solve on PETSc/SLEPc over MPI (`--solver slepc`), for problems that outgrow one
// machine. Only built with MESH2DSP_HAVE_SLEPC.
//
// Rank 0 runs the whole pipeline (reading, meshing, assembly, emission) as without MPI; the
// other ranks wait in serve_parallel_solves() and join each solve: rank 0 scatters row blocks
// of K and M, every rank holds its rows of the distributed matrices and its share of MUMPS's
// factor, SLEPc's Krylov–Schur runs shift-and-invert, and rank 0 gathers the eigenvectors.
#include <functional>

#include "fem/assembly.hpp"
#include "modal/eigen_solve.hpp"

namespace mesh2dsp {

// True when the process was started by an MPI launcher (mpirun, srun, hydra) or its arguments
// ask for the SLEPc solver: then main() starts a ParallelSession before anything else.
bool parallel_session_wanted(int argc, char** argv);

// MPI and SLEPc for the life of the process (one per process; MPI cannot start twice).
class ParallelSession {
 public:
  ParallelSession();
  // On rank 0: tells the other ranks to stop serving. Then finalizes SLEPc and MPI.
  ~ParallelSession();
  ParallelSession(const ParallelSession&) = delete;
  ParallelSession& operator=(const ParallelSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0, size_ = 1;
};

// Ranks other than 0: join rank 0's solves (and memory queries) until rank 0 ends its session.
// Returns the process's exit code. Never prints and never writes files.
int serve_parallel_solves();

// Rank 0: the same contract as solve_lowest_modes (lowest `count` eigenpairs of K φ = λ M φ for
// a negative shift σ, φᵀMφ = 1, ascending; `more` may ask for a larger count), on every rank of
// the session. Without a session it starts SLEPc on one process. Throws Error on failure.
EigenSolution solve_lowest_modes_slepc(const SparseMatrix& stiffness_lower,
                                       const SparseMatrix& mass_lower,
                                       const EigenSolveOptions& options,
                                       const std::function<int(const EigenSolution&)>& more = {});

}  // namespace mesh2dsp
