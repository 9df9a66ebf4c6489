// `mesh2dsp bench`: wall time and peak memory per analysis stage on the benchmark meshes and on
// synthetic meshes of a given size, P1 and P2. Each case runs in a child process so that its
// peak memory is its own. For the benchmark bar, the error of the eight bending modes against
// Timoshenko beam theory is reported beside the time. Under mpirun with
// --solver slepc the cases run in rank 0's process and the peak memory of every rank is shown.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/analysis.hpp"
#include "cli/analysis_flags.hpp"
#include "cli/commands.hpp"
#include "fem/surface_mesh.hpp"
#include "modal/rank_memory.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {
namespace {

using json = nlohmann::ordered_json;

// Free-free bending of the 0.30 × 0.03 × 0.02 m steel bar, Timoshenko with κ = 10(1+ν)/(12+11ν)
// (Cowper's shear coefficient): z1..z4, y1..y4.
constexpr double kBarTimoshenkoHz[8] = {1135.0, 3043.2, 5747.1, 9083.4, 1671.0, 4350.4, 7943.4, 12133.3};

struct BenchCase {
  std::string label;
  std::string mesh;
  int order = 2;
  std::optional<double> max_tet_volume_m3;
};

// What every case of one `bench` run shares.
struct BenchSettings {
  int modes = 50;
  std::string material = "steel";
  std::string solver = "default";
  std::string radiation = "obrien";
  double scale = 1;  // --scale / --units
  double element_scale = 1;
};

json run_case(const BenchCase& c, const BenchSettings& settings) {
  AnalysisOptions o;
  o.solver = settings.solver;
  o.radiation = settings.radiation;
  o.input = c.mesh;
  o.material_name = settings.material;
  o.modes = settings.modes;
  o.scale = settings.scale;
  o.element_order = c.order;
  o.element_scale = settings.element_scale;
  o.max_tet_volume_m3 = c.max_tet_volume_m3;
  o.excite = "auto:1";
  AnalysisReport report;
  const ModalModel model = analyze_mesh(o, &report);
  json j;
  j["case"] = c.label;
  j["order"] = c.order;
  j["tetrahedra"] = report.tetrahedra;
  j["dof"] = report.dof;
  j["modes"] = model.modes.size();
  json stages = json::object();
  for (const auto& r : report.timer.records()) stages[r.name] = {{"s", r.wall_s}, {"peak_mb", r.peak_rss_mb}};
  j["stages"] = stages;
  j["total_s"] = report.timer.total_s();
  const SolveEstimate& e = report.eigen_estimate;
  j["estimated_solve_s"] = e.time_s();
  // The estimate's terms, and what they can be checked against: the Lanczos vectors solved for,
  // the time of their triangular solves and of the M products (the rest of the iteration is the
  // reorthogonalisation and the Ritz vectors).
  j["estimate"] = {{"factor_s", e.factor_s},       {"iteration_s", e.iteration_s},
                   {"solve_s", e.solve_s},         {"mass_s", e.mass_s},
                   {"orthogonalisation_s", e.orthogonalisation_s}, {"ritz_s", e.ritz_s},
                   {"basis_columns", e.basis_columns}, {"nonzeros_lower", e.nonzeros_lower},
                   {"factor_entries", e.factor_entries}, {"factor_flops", e.factor_flops}};
  j["lanczos_vectors"] = report.solved_vectors;
  j["triangular_solve_s"] = report.triangular_solve_s;
  j["mass_products"] = report.mass_products;
  j["mass_product_s"] = report.mass_product_s;
  // The eigen stage per mode returned (rigid-body modes are solved for too, but not returned).
  j["eigen_ms_per_mode"] =
      model.modes.empty() ? 0.0 : 1e3 * report.timer.seconds("eigen solve") / model.modes.size();
  // Every rank's own peak (one without MPI): what a cluster's nodes must hold.
  const std::vector<double> rank_peaks = rank_peak_memory_mb();
  j["solver"] = settings.solver;
  j["radiation"] = settings.radiation;
  j["scale"] = settings.scale;  // the boundary-element solve's time is the "radiation" stage
  j["ranks"] = rank_peaks.size();
  j["rank_peak_mb"] = rank_peaks;
  j["peak_mb"] = rank_peaks.front();
  // The benchmark bar's own size only: scaled, its modes are another bar's.
  if (std::filesystem::path(c.mesh).filename().string().starts_with("bar_") && settings.scale == 1) {
    double worst = 0;
    for (double ref : kBarTimoshenkoHz) {
      double best = INFINITY;
      for (const auto& m : model.modes) best = std::min(best, std::abs(m.frequency_hz / ref - 1));
      worst = std::max(worst, best);
    }
    j["bending_error_pct"] = 100 * worst;
  }
  return j;
}

// "mesh s" = reading, remeshing (when the surface is finer than needed) and TetGen.
json run_case_or_error(const BenchCase& c, const BenchSettings& settings) {
  try {
    return run_case(c, settings);
  } catch (const std::exception& e) {
    return json{{"case", c.label}, {"order", c.order}, {"error", e.what()}};
  }
}

// Runs one case in a child so that the peak memory is the case's own. Under MPI a process
// cannot fork (the child could not take part in the solves): the case runs in this process,
// with every rank's peak memory reset before it.
json run_isolated(const BenchCase& c, const BenchSettings& settings) {
  if (parallel_session_running()) {
    reset_rank_peak_memory();
    return run_case_or_error(c, settings);
  }
  int fd[2];
  if (pipe(fd) != 0) throw Error("bench: cannot create a pipe");
  const pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    const std::string out = run_case_or_error(c, settings).dump();
    (void)!write(fd[1], out.data(), out.size());
    close(fd[1]);
    _exit(0);
  }
  close(fd[1]);
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd[0], buf, sizeof buf)) > 0) text.append(buf, n);
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (text.empty()) return json{{"case", c.label}, {"order", c.order}, {"error", "crashed"}};
  return json::parse(text);
}

double stage_s(const json& j, const char* name) {
  return j["stages"].contains(name) ? j["stages"][name]["s"].get<double>() : 0.0;
}

}  // namespace

void register_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "benchmarks: per-stage wall time and peak memory");
  struct Opts {
    std::vector<std::string> meshes;
    std::vector<int> orders{1, 2};
    std::vector<int> sizes;
    std::string size_mesh;
    BenchSettings settings;
    std::string json_out;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("meshes", o->meshes, "surface meshes to analyse (default: none)");
  cmd->add_option("--orders", o->orders, "element orders to run")->delimiter(',')->capture_default_str();
  cmd->add_option("--sizes", o->sizes,
                  "also run meshes of about these many tetrahedra (e.g. 10000,50000,200000)")
      ->delimiter(',');
  cmd->add_option("--size-mesh", o->size_mesh, "surface mesh refined for --sizes");
  cmd->add_option("--modes", o->settings.modes, "modes per case")->capture_default_str();
  cmd->add_option("--material", o->settings.material, "material preset")->capture_default_str();
  add_scale_options(*cmd, o->settings.scale);
  cmd->add_option("--element-scale", o->settings.element_scale,
                  "the sizing rules' element edge times this, in every case")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--json", o->json_out, "write all numbers to this JSON file");
  add_solver_option(*cmd, o->settings.solver);
  cmd->add_option("--radiation", o->settings.radiation,
                  "radiation model of the analysis: obrien, or bem (times the boundary-element "
                  "solve of every mode, its directivity included)")
      ->capture_default_str()
      ->check(CLI::IsMember({"obrien", "bem"}));
  cmd->callback([o] {
    std::vector<BenchCase> cases;
    for (const auto& m : o->meshes)
      for (int order : o->orders)
        cases.push_back({std::filesystem::path(m).stem().string(), m, order, std::nullopt});
    if (!o->sizes.empty()) {
      if (o->size_mesh.empty()) throw Error("bench: --sizes needs --size-mesh");
      auto surface = read_surface_mesh(o->size_mesh);
      check_and_orient_surface(surface);
      const double volume = signed_volume(surface) * std::pow(o->settings.scale, 3);  // m³ as analysed
      for (int size : o->sizes)
        for (int order : o->orders)
          // TetGen's quality meshes average about 0.8 of the volume bound per element.
          cases.push_back({fmt::format("{}k tets", size / 1000), o->size_mesh, order,
                           volume / (0.8 * size)});
    }
    if (cases.empty()) throw Error("bench: give meshes and/or --sizes with --size-mesh");
    json all = json::array();
    fmt::print("| case | P | tets | DOF | modes | mesh s | coarse pass s | assembly s | factor s | eigen s | eigen ms/mode | est. solve s | total s | peak MB | bending err % | peak MB per rank | radiation s |\n");
    fmt::print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const auto& c : cases) {
      const json j = run_isolated(c, o->settings);
      all.push_back(j);
      if (j.contains("error")) {
        fmt::print("| {} | {} | failed: {} |\n", c.label, c.order, j["error"].get<std::string>());
        continue;
      }
      std::string per_rank;
      for (double mb : j["rank_peak_mb"]) per_rank += fmt::format("{}{:.0f}", per_rank.empty() ? "" : " / ", mb);
      fmt::print("| {} | {} | {} | {} | {} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.1f} | {:.1f} | {:.2f} | {:.0f} | {} | {} | {:.2f} |\n",
                 c.label, c.order, j["tetrahedra"].get<int>(), j["dof"].get<int>(),
                 j["modes"].get<int>(), stage_s(j, "read mesh") + stage_s(j, "surface remeshing") + stage_s(j, "tetrahedralization") +
                     stage_s(j, "volume meshing"),
                 stage_s(j, "coarse pass"),
                 stage_s(j, "assembly") + stage_s(j, "distributed assembly"), stage_s(j, "ordering") + stage_s(j, "factorization"),
                 stage_s(j, "eigen solve"),
                 j["eigen_ms_per_mode"].get<double>(), j["estimated_solve_s"].get<double>(),
                 j["total_s"].get<double>(), j["peak_mb"].get<double>(),
                 j.contains("bending_error_pct") ? fmt::format("{:.2f}", j["bending_error_pct"].get<double>()) : "",
                 per_rank, stage_s(j, "radiation"));
      std::fflush(stdout);
    }
    if (!o->json_out.empty()) write_text_atomically(o->json_out, all.dump(1) + "\n");
  });
}

}  // namespace mesh2dsp
