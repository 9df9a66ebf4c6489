#include "fem/mesh_input.hpp"

#include <fmt/format.h>

#include <cmath>

#include "fem/mesh_units.hpp"
#include "fem/surface_mesh.hpp"
#include "fem/surface_remesh.hpp"
#include "fem/tetgen_files.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {

TetMesh load_tet_mesh(const std::filesystem::path& path, const Material& material,
                      const MeshInputOptions& options, StageTimer* timer) {
  if (!(options.scale > 0) || !std::isfinite(options.scale))
    throw Error(fmt::format("--scale must be a positive number (got {})", options.scale));
  if (options.max_tet_volume_m3 && !(*options.max_tet_volume_m3 > 0))
    throw Error(fmt::format("--max-tet-volume must be positive (got {})", *options.max_tet_volume_m3));
  if (!std::filesystem::exists(path)) throw Error(fmt::format("{}: no such file", path.string()));
  StageTimer local;
  StageTimer& t = timer ? *timer : local;
  auto ext = path.extension().string();
  for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));

  TetMesh mesh;
  if (ext == ".node" || ext == ".ele" || ext == ".msh") {
    t.start("read mesh");
    auto file = read_tet_mesh_file(path, options.scale);
    notice_implausible_size(file.vertices, options.scale);
    mesh = tet_mesh_from_elements(std::move(file.vertices), std::move(file.tets));
    t.stop();
  } else {
    t.start("read mesh");
    SurfaceMesh surface = read_checked_surface_mesh(path, options.scale, options.repair);
    t.stop();
    const double shear_speed = std::sqrt(lame_mu(material) / material.density_kg_m3);
    const double needed_edge_m = default_edge_length(surface, shear_speed, options.fmax_hz);
    const double input_edge_m = mean_edge_length(surface);
    Eigen::MatrixXd input_vertices;
    if (options.surface_edge_m && !(*options.surface_edge_m > 0))
      throw Error(fmt::format("--surface-edge must be positive (got {})", *options.surface_edge_m));
    const double target_edge_m = options.surface_edge_m ? *options.surface_edge_m : needed_edge_m;
    if (!options.keep_surface && (options.surface_edge_m || input_edge_m < 0.5 * needed_edge_m)) {
      t.start("surface remeshing");
      Progress progress("surface remeshing");
      progress.update(0.0, fmt::format("{} vertices", surface.vertices.rows()));
      input_vertices = surface.vertices;
      const auto before = surface.vertices.rows();
      surface = remesh_surface(surface, target_edge_m);
      progress.finish(fmt::format("{} vertices", surface.vertices.rows()));
      t.stop();
      notice(fmt::format(
          "surface remeshed from {} to {} vertices (mean edge {:.2f} mm -> {:.2f} mm, enough up to "
          "--fmax); --keep-surface keeps it as it is",
          before, surface.vertices.rows(), 1e3 * input_edge_m, 1e3 * target_edge_m));
    }
    t.start("tetrahedralization");
    Progress progress("tetrahedralization");
    progress.update(0.0, fmt::format("{} surface vertices", surface.vertices.rows()));
    TetrahedralizeOptions tet_options;
    tet_options.max_tet_volume_m3 =
        options.max_tet_volume_m3
            ? *options.max_tet_volume_m3
            : default_max_tet_volume(surface, shear_speed, options.fmax_hz);
    mesh = tetrahedralize(surface, tet_options);
    mesh.input_vertices = std::move(input_vertices);
    progress.finish(fmt::format("{} tetrahedra", mesh.tets.rows()));
    t.stop();
  }
  check_tet_quality(mesh);
  return mesh;
}

}  // namespace mesh2dsp
