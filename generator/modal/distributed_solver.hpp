#pragma once
// The distributed eigen solve (`--solver slepc`) as a hook. It lives in its own library,
// mesh2dsp_modal_slepc (PETSc, SLEPc, MPI: some 90 shared libraries and 21 MB resident in a
// process that loads them), which a program links only when it offers
// the solver and then registers once at start (register_slepc_solver, slepc_solve.hpp). The
// analysis calls it through here; without it `--solver slepc` is one error.
#include <functional>
#include <vector>

#include "fem/fem_mesh.hpp"
#include "fem/material.hpp"
#include "modal/eigen_solve.hpp"

namespace mesh2dsp {

struct DistributedSolver {
  // The contract of solve_fem_modes_slepc (slepc_solve.hpp).
  std::function<EigenSolution(const FemMesh&, const Material&, const std::vector<int>& dof_map,
                              int free_dofs, const EigenSolveOptions&,
                              const std::function<int(const EigenSolution&)>& more)>
      solve;
  // The per-rank memory queries of rank_memory.hpp, answered by every rank of a session.
  std::function<std::vector<double>()> rank_peak_memory_mb;
  std::function<void()> reset_rank_peak_memory;
  std::function<bool()> session_running;
};

void set_distributed_solver(DistributedSolver solver);
// The registered solver, or nullptr.
const DistributedSolver* distributed_solver();

// True when the process was started by an MPI launcher (mpirun, srun, hydra) or its arguments
// ask for the SLEPc solver: then a program with the solver starts a ParallelSession before
// anything else, and one without it hands the command over to one that has it. No MPI needed.
bool parallel_session_wanted(int argc, char** argv);

}  // namespace mesh2dsp
