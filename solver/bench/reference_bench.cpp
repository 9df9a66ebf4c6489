// Seconds of compute per simulated second against mesh size (issue 5, "must measure"), beside
// O'Brien et al.'s Table 1. Structured steel bars (0.30 × 0.03 × 0.02 m, free) of about 300,
// 1 000, 5 000 and 20 000 tetrahedra, P1 and P2, at the automatic step for 48 kHz
// (1/192 000 s); a fixed number of steps is timed and scaled to one simulated second.
// Usage: mesh2dsp_reference_bench [steps] [max_tets] [threads]
#include <fmt/format.h>

#include <cstdlib>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "fem/fem_mesh.hpp"
#include "fem/material.hpp"
#include "reference.hpp"
#include "structured_box.hpp"

using namespace mesh2dsp;

int main(int argc, char** argv) {
  const long long steps = argc > 1 ? std::atoll(argv[1]) : 2000;
  const int max_tets = argc > 2 ? std::atoi(argv[2]) : 25000;
  (void)argc;
  const Material steel = find_material_preset("steel");
  struct Size { int nx, ny, nz; };
  const Size sizes[] = {{10, 3, 2}, {14, 4, 3}, {28, 6, 5}, {45, 9, 8}};  // ×6 tets per cell
  fmt::print("{:>7} {:>2} {:>7} {:>9} {:>10} {:>11} {:>11} {:>11} {:>12}\n", "tets", "P", "nodes",
             "free DOF", "factor s", "step us", "audio us", "s/sim s", "solver");
  for (int order : {1, 2}) {
    for (const auto& s : sizes) {
      const TetMesh tets = structured_box({0, 0, 0}, {0.30, 0.03, 0.02}, s.nx, s.ny, s.nz);
      if (tets.tets.rows() > max_tets) continue;
      const FemMesh fem = make_fem_mesh(tets, order);
      for (auto kind : {LinearSolverKind::simplicial, LinearSolverKind::cholmod_supernodal}) {
        if (kind == LinearSolverKind::simplicial && 3 * fem.nodes.rows() > 200000) continue;
        ReferenceSettings settings;
        settings.duration_s = 1;
        settings.max_steps = steps;
        settings.show_progress = false;
        settings.solver = kind;
        settings.force = parse_force("cosine:0.0001", 1);
        settings.strike = parse_strike("auto", "", tets, {});
        settings.listeners_m = {default_listener(tets)};
        const ReferenceResult r = render_reference(tets, fem, steel, {}, settings);
        const double per_step = r.integration_s / static_cast<double>(r.steps);
        fmt::print("{:>7} {:>2} {:>7} {:>9} {:>10.3f} {:>11.1f} {:>11.1f} {:>11.1f} {:>12} {}\n",
                   tets.tets.rows(), order, fem.nodes.rows(), r.free_dofs, r.factorization_s,
                   per_step * 1e6, r.audio_s / r.steps * 1e6, per_step / r.dt_s,
                   kind == LinearSolverKind::simplicial ? "simplicial" : "cholmod", r.factor_nonzeros);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
