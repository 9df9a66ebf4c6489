#pragma once
// The eigen solve on PETSc/SLEPc over MPI (`--solver slepc`), for problems that outgrow one
// machine. Its own library, mesh2dsp_modal_slepc, built when PETSc and SLEPc are found
// (MESH2DSP_HAVE_SLEPC is defined for what links it).
//
// Rank 0 runs the pipeline (reading, meshing, emission) as without MPI; the other ranks wait in
// serve_parallel_solves() and join each solve: rank 0 sends every rank the nodes and its block
// of elements, each rank assembles them into the distributed K and M (its own row block of
// each), MUMPS factors K − σM with a share of the factor on every rank, SLEPc's Krylov–Schur
// iterates shift-and-invert, and rank 0 gathers the eigenvectors.
#include <functional>
#include <vector>

#include "fem/assembly.hpp"
#include "fem/fem_mesh.hpp"
#include "fem/material.hpp"
#include "modal/distributed_solver.hpp"
#include "modal/eigen_solve.hpp"

namespace mesh2dsp {

// Makes this solver the analysis's `--solver slepc` (distributed_solver.hpp): once, at start.
void register_slepc_solver();

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

// Rank 0: the contract of solve_lowest_modes (lowest `count` eigenpairs of K φ = λ M φ for a
// negative shift σ, φᵀMφ = 1, ascending; `more` may ask for a larger count) for the K and M of
// `mesh` and `material` restricted to the free DOFs (`dof_map`: 3·node + c → row, −1 where
// clamped, as free_dof_map), assembled and solved on every rank of the session. Without a
// session it starts SLEPc on this process alone. Throws Error on failure (bad elements too).
EigenSolution solve_fem_modes_slepc(const FemMesh& mesh, const Material& material,
                                    const std::vector<int>& dof_map, int free_dofs,
                                    const EigenSolveOptions& options,
                                    const std::function<int(const EigenSolution&)>& more = {});

}  // namespace mesh2dsp
