// Seconds of compute per simulated second against mesh size (issue 5, "must measure"), beside
// O'Brien et al.'s Table 1. Structured steel bars (0.30 × 0.03 × 0.02 m, free) of about 300,
// 1 000, 5 000 and 20 000 tetrahedra, P1 and P2, at the automatic step for 48 kHz
// (1/192 000 s); a fixed number of steps is timed and scaled to one simulated second.
// Usage: mesh2dsp_reference_bench [steps] [max_tets]   (OMP_NUM_THREADS=1 for one core)
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "fem/fem_mesh.hpp"
#include "fem/material.hpp"
#include "reference.hpp"
#include "fem/structured_box.hpp"

using namespace mesh2dsp;

int main(int argc, char** argv) {
  const long long steps = argc > 1 ? std::atoll(argv[1]) : 2000;
  const int max_tets = argc > 2 ? std::atoi(argv[2]) : 25000;
  const Material steel = find_material_preset("steel");
  struct Size { int nx, ny, nz; };
  const Size sizes[] = {{10, 3, 2}, {14, 4, 3}, {28, 6, 5}, {45, 9, 8}};  // ×6 tets per cell
  // Wall time is what a user waits for; CPU time per step is what one core costs (the two
  // differ when other work shares the machine).
  fmt::print("{:>7} {:>2} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>10} {:>11} {}\n", "tets", "P",
             "nodes", "free DOF", "factor s", "wall us", "cpu us", "audio us", "wall s/s", "cpu s/s",
             "solver", "L nnz / CG iterations");
  for (int order : {1, 2}) {
    for (const auto& s : sizes) {
      const TetMesh tets = structured_box({0, 0, 0}, {0.30, 0.03, 0.02}, s.nx, s.ny, s.nz);
      if (tets.tets.rows() > max_tets) continue;
      const FemMesh fem = make_fem_mesh(tets, order);
      for (auto kind : {LinearSolverKind::simplicial, LinearSolverKind::cholmod_supernodal,
                        LinearSolverKind::conjugate_gradient}) {
        // Eigen's simplicial factor is only measured where it is competitive.
        if (kind == LinearSolverKind::simplicial && tets.tets.rows() > 6000) continue;
        ReferenceSettings settings;
        settings.duration_s = 1;
        // Fewer steps on the largest meshes keep the run short; the cost per step is steady.
        settings.max_steps = tets.tets.rows() > 6000 ? std::max(100LL, steps / 4) : steps;
        settings.show_progress = false;
        settings.solver = kind;
        settings.force = parse_force("cosine:0.0001", 1);
        settings.strike = parse_strike("auto", "", tets, {});
        settings.listeners_m = {default_listener(tets)};
        const ReferenceResult r = render_reference(tets, fem, steel, {}, settings);
        const double per_step = r.integration_s / static_cast<double>(r.steps);
        const double wall = r.integration_s / static_cast<double>(r.steps);
        const double cpu = r.integration_cpu_s / static_cast<double>(r.steps);
        fmt::print("{:>7} {:>2} {:>7} {:>9} {:>9.3f} {:>9.1f} {:>9.1f} {:>9.1f} {:>10.1f} {:>10.1f} {:>11} {}\n",
                   tets.tets.rows(), order, fem.nodes.rows(), r.free_dofs, r.factorization_s,
                   wall * 1e6, cpu * 1e6, r.audio_s / r.steps * 1e6, wall / r.dt_s, cpu / r.dt_s,
                   kind == LinearSolverKind::simplicial ? "simplicial"
                   : kind == LinearSolverKind::cholmod_supernodal ? "cholmod" : "cg",
                   kind == LinearSolverKind::conjugate_gradient
                       ? fmt::format("{:.1f} it", r.mean_cg_iterations)
                       : fmt::format("{}", r.factor_nonzeros));
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
