#include "fem/mesh_input.hpp"

#include <fmt/format.h>

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <limits>

#include "fem/mesh_units.hpp"
#include "fem/surface_mesh.hpp"
#include "fem/resolution.hpp"
#include "fem/surface_remesh.hpp"
#include "fem/tetgen_files.hpp"
#include "fem/volume_mesh.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {
namespace {

// The frequency the mesh must resolve: --fmax, or the estimated N-th mode when it lies lower.
double choose_sizing_frequency_hz(const SurfaceMesh& surface, const Material& material,
                                  const MeshInputOptions& options) {
  if (options.sizing_frequency_hz) return std::min(options.fmax_hz, *options.sizing_frequency_hz);
  const double volume_m3 = std::abs(signed_volume(surface));
  const double sizing_hz = sizing_frequency_hz(volume_m3, material, options.modes, options.fmax_hz);
  if (sizing_hz < options.fmax_hz)
    notice(fmt::format(
        "mesh sized for the {} modes asked, up to {:.0f} Hz (Weyl's estimate of mode {}: {:.0f} "
        "Hz, x{}), not for --fmax {:.0f} Hz; --resolution band sizes it for --fmax",
        options.modes, sizing_hz, options.modes, sizing_hz / kResolutionMargin,
        kResolutionMargin, options.fmax_hz));
  return sizing_hz;
}

// A surface whose mean edge exceeds the needed element edge by kRefineSurfaceAbove is refined to
// kRefinedSurfaceEdge times it. P2 frequency errors grow as the fourth power of the edge, and the
// needed edge is sized with margin (14 per bending wavelength at 1.5x the last mode): the bundled
// plate refined to 1.5x is within 1 % of Mindlin's theory at a sixth of the elements of 1x.
constexpr double kRefineSurfaceAbove = 2.0;
constexpr double kRefinedSurfaceEdge = 1.5;
// A surface whose mean edge is below this fraction of the needed element edge is too fine to
// keep: the volume is meshed for the physics (fem/volume_mesh.hpp).
constexpr double kCoarsenSurfaceBelow = 0.5;
// A triangle this much longer than it is wide (longest edge over the altitude to it) is a sliver:
// kept as it is, it makes flat elements (a CAD bracket's exporter fans, aspect up to 413; a
// revolved bell's pole, 134), and TetGen's attempt at the kept surface is thrown away after it
// took most of the meshing time. Such a surface is meshed by volume from the start.
constexpr double kSliverTriangleAspect = 50;
// How far the boundary of a physics-sized mesh may leave the input: a fraction of the local
// wall and of the object's size (a chord's sag; curved quadratic elements follow the input
// between their corners).
constexpr double kBoundaryDistancePerWall = 0.02;
constexpr double kBoundaryDistancePerSize = 1e-3;
// Solids and walls are meshed differently (meshed_as_walls). A solid's cells keep a
// circumradius within 1.5 of their shortest edge, and its boundary may be held to 2 % of an
// element edge. At Mesh_3's usual 3 and 3 %, caps and needles in a solid's limbs and their
// chords left spot's scan 3.45 % high on its horns' modes against a converged reference (input
// surface kept, 8x smaller elements), the statue 1.36 % (median 0.93 and 0.77 %); at 1.5 and 2 %
// within 0.93 % and 0.39 % (median 0.15 and 0.03 %), for about twice the elements. Where walls set the
// elements (a bell, a blade), that would add to meshes already the largest: they keep 3, and a
// boundary floor of 6 % of an element edge (a blade scan's noise, 0.1 mm on 4 mm, is not to be
// followed, nor a blade's rounded edge, 1.5 mm thick, below the elements' scale). With the
// creases seen at the elements' scale (volume_mesh.cpp), from 3 to 6 %:
// a sword scan 90 k -> 68 k elements (its blade's edges had held 16 k in their outer half
// millimetre), worst error against its converged reference 0.49 -> 0.46 %, median 0.10 -> 0.17
// %; a CAD bracket 16.4 k -> 9.0 k, 0.29 -> 0.47 % (median 0.20 -> 0.25 %). At 8 % the bracket's
// worst was 0.67 %, median 0.26 %.
constexpr double kSolidRadiusEdgeBound = 1.5;
constexpr double kWallRadiusEdgeBound = 3.0;
constexpr double kMinBoundaryDistancePerSolidEdge = 0.02;
constexpr double kMinBoundaryDistancePerWallEdge = 0.06;
// At a re-entrant crease (a neck, the root of a blade) a boundary that cuts the corner fills it
// in, and what bends there is stiffened: a sword scan's pommel on its 17 mm neck, filled in by
// 0.96 mm at the plain bound, put its modes up to 2.3 % high (0.49 % with this rule, for 22 %
// more elements; 1.1-1.2 % at twice either bound). There the boundary is held to a small fraction
// of the wall, with no element-edge floor (a crease is not scan noise), and not below a
// fraction of the object's size, which bounds the refinement along the crease.
constexpr double kCreaseBoundaryDistancePerWall = 0.005;
constexpr double kMinCreaseBoundaryDistancePerSize = 1e-4;

double worst_triangle_aspect(const SurfaceMesh& surface) {
  double worst = 0;
  for (Eigen::Index f = 0; f < surface.faces.rows(); ++f) {
    const Eigen::Vector3d a = surface.vertices.row(surface.faces(f, 0)), b = surface.vertices.row(surface.faces(f, 1)),
                          c = surface.vertices.row(surface.faces(f, 2));
    const double longest_sq = std::max({(b - a).squaredNorm(), (c - b).squaredNorm(), (a - c).squaredNorm()});
    const double twice_area = (b - a).cross(c - a).norm();
    worst = std::max(worst, twice_area > 0 ? longest_sq / twice_area : std::numeric_limits<double>::infinity());
  }
  return worst;
}

std::string deviation_text(const SurfaceDeviation& d) {
  return fmt::format("max deviation {:.3g} mm, volume change {:+.3f} %", 1e3 * d.max_distance_m,
                     100 * d.relative_volume_change);
}

// The surface TetGen meshes: the input, a refinement of it when it is much coarser than the
// analysis needs, or the user's --surface-edge remesh. (A much finer one is not meshed by
// TetGen: physics_sized_mesh.) `input_vertices` gets the vertices as read when it changes.
SurfaceMesh analysis_surface(SurfaceMesh surface, double needed_edge_m, const MeshInputOptions& options,
                             StageTimer& t, Eigen::MatrixXd& input_vertices) {
  if (options.keep_surface) return surface;
  if (options.surface_edge_m && !(*options.surface_edge_m > 0))
    throw Error(fmt::format("--surface-edge must be positive (got {})", *options.surface_edge_m));
  const double input_edge_m = mean_edge_length(surface);
  // Too coarse: TetGen keeps the surface triangles (-Y) and a thin part cannot get interior
  // points, so the elements stay as long as the input's (the bundled 5 mm plate kept its 10 mm
  // grid and came out 4.5 % stiff at 8 kHz against Mindlin's theory). Split to the needed edge.
  const bool refine = !options.surface_edge_m && input_edge_m > kRefineSurfaceAbove * needed_edge_m;
  if (!options.surface_edge_m && !refine) return surface;

  t.start("surface remeshing");
  Progress progress("surface remeshing");
  progress.update(0.0, fmt::format("{} vertices", surface.vertices.rows()));
  const auto before = surface.vertices.rows();
  // The user's edge is taken as given; the notice says what it did to the shape. Refining
  // only adds points on the input's faces, so the shape is kept.
  const double edge_m = refine ? kRefinedSurfaceEdge * needed_edge_m : *options.surface_edge_m;
  SurfaceMesh remeshed = remesh_surface(surface, edge_m);
  const SurfaceDeviation deviation = surface_deviation(surface, remeshed);
  t.stop();
  progress.finish(fmt::format("{} vertices", remeshed.vertices.rows()));
  notice(fmt::format(
      "surface remeshed from {} to {} vertices (mean edge {:.2f} mm -> {:.2f} mm; {}); "
      "--keep-surface keeps it as it is",
      before, remeshed.vertices.rows(), 1e3 * input_edge_m, 1e3 * edge_m, deviation_text(deviation)));
  input_vertices = std::move(surface.vertices);
  return remeshed;
}

// Surface triangles with an edge more than 4× the element edge the volume bound allows: with
// -Y TetGen may not split them, and the elements along them stay as long as they are.
int overlong_surface_triangles(const SurfaceMesh& surface, double max_tet_volume_m3) {
  const double limit_m = 4.0 * std::cbrt(6.0 * std::sqrt(2.0) * max_tet_volume_m3);
  int count = 0;
  for (int f = 0; f < surface.faces.rows(); ++f) {
    double longest = 0;
    for (int k = 0; k < 3; ++k)
      longest = std::max(longest, (surface.vertices.row(surface.faces(f, k)) -
                                   surface.vertices.row(surface.faces(f, (k + 1) % 3))).norm());
    count += longest > limit_m;
  }
  return count;
}

// A volume mesh of the input's domain sized by the physics (fem/volume_mesh.hpp): elements
// from the wavelength at `sizing_hz` and the local wall thickness, the boundary within a
// small distance of the input.
TetMesh physics_sized_mesh(const SurfaceMesh& input, const Material& material, double sizing_hz,
                           double heard_wavelength_m, const MeshInputOptions& options,
                           StageTimer& t, const std::string& why, SurfaceMeshingCache* cache) {
  t.start("volume meshing");
  Progress progress("volume meshing");
  progress.update(0.0, fmt::format("{} input vertices", input.vertices.rows()));
  const double diagonal_m =
      (input.vertices.colwise().maxCoeff() - input.vertices.colwise().minCoeff()).norm();
  VolumeMeshOptions v;
  const std::optional<double> fixed_edge_m =
      options.max_tet_volume_m3
          ? std::optional<double>(std::cbrt(6 * std::sqrt(2.0) * *options.max_tet_volume_m3))
          : std::nullopt;
  const auto rule_edge_m = [&](double wall_m) { return element_edge_length(material, sizing_hz, wall_m); };
  v.vertex_thickness_m = surface_wall_thickness(input, cache);
  // Classified by the sizing rule and the walls' thinness even when a volume bound fixes the
  // edge (the coarse pass, or --max-tet-volume): a bell stays a bell.
  const bool walled = meshed_as_walls(input, v.vertex_thickness_m, rule_edge_m);
  // Cubic elements in walls: a layer of elements a few walls long, made by collapsing the
  // Delaunay mesh's short edges along each skin.
  const bool cubic_allowed = options.element_order == 3 || options.element_order == 0;
  // The coarse pass too (its volume bound fixes the edge): a bell's coarse mesh, one cell
  // through its walls (11 902 refined cells collapsed to 4 163), made its pass 4.7 -> 3.4 s, and its quadratic
  // estimate of the 50th mode stayed where it was (2 779 against 2 783 Hz).
  v.collapse_short_edges = walled && cubic_allowed && (!fixed_edge_m || options.rough_boundary);
  v.edge_length_m = [&](double wall_m) {
    if (fixed_edge_m) return *fixed_edge_m;
    return options.element_scale * (v.collapse_short_edges ? cubic_wall_edge_length(material, sizing_hz, wall_m)
                                                           : rule_edge_m(wall_m));
  };
  v.cell_radius_edge_bound = walled ? kWallRadiusEdgeBound : kSolidRadiusEdgeBound;
  const double min_boundary_distance_per_edge =
      walled ? kMinBoundaryDistancePerWallEdge : kMinBoundaryDistancePerSolidEdge;
  // A mode moves by about the relative change of the dimension that sets it: a wall's
  // thickness for a shell's bending, the size for a solid; the wavelength heard bounds it too.
  v.max_boundary_distance_m = [&](double wall_m) {
    // The quadratic rule's edge even for cubic elements: their longer edges along a wall do
    // not make the shape's error matter less.
    const double edge_m = fixed_edge_m ? *fixed_edge_m : options.element_scale * rule_edge_m(wall_m);
    if (options.rough_boundary) return 0.1 * edge_m;
    if (options.boundary_distance_m) return *options.boundary_distance_m;
    // Not below a small fraction of the element edge: a scan's noise (a sword's 0.1 mm on a
    // 4 mm blade) would otherwise refine the boundary to follow it (1.1 M DOF, 8.5 GB).
    return std::max(min_boundary_distance_per_edge * edge_m,
                    std::min({kBoundaryDistancePerWall * wall_m, kBoundaryDistancePerSize * diagonal_m,
                              heard_wavelength_m / 100}));
  };
  // Walled bodies only: on a scan's or a marching surface's tessellation the same test finds
  // folds between triangles (a statue scan went from 29 k to 185 k elements, spot from 18 k to
  // 33 k), and a solid's boundary is held to 2 % of its elements' edge already (its necks are
  // kept: spot's horns, the statue's limbs, within 1 % of their converged references).
  if (walled && !options.rough_boundary && !options.boundary_distance_m)
    v.max_crease_boundary_distance_m = [&](double wall_m) {
      return std::max(kMinCreaseBoundaryDistancePerSize * diagonal_m,
                      std::min(kCreaseBoundaryDistancePerWall * wall_m, v.max_boundary_distance_m(wall_m)));
    };
  TetMesh mesh = mesh_volume(input, v);
  progress.finish(fmt::format("{} tetrahedra", mesh.tets.rows()));
  t.stop();
  // The deviation is for the notice only: not measured when notices are off (the coarse pass:
  // 0.1 s of a sword scan's).
  if (!is_quiet()) {
    const SurfaceDeviation deviation =
        surface_deviation(input, SurfaceMesh{mesh.vertices.topRows(mesh.surface_vertex_count), mesh.surface_faces});
    notice(fmt::format(
        "{}: the volume was meshed for the physics ({} tetrahedra, {} surface vertices from the "
        "input's {}; the boundary within {:.3g} mm of the input, volume change {:+.3f} %); "
        "--keep-surface keeps the input's triangles",
        why, mesh.tets.rows(), mesh.surface_vertex_count, input.vertices.rows(),
        1e3 * deviation.max_distance_m, 100 * deviation.relative_volume_change));
  }
  mesh.resolved_frequency_hz = sizing_hz;
  if (v.collapse_short_edges) mesh.element_order = 3;
  check_tet_quality(mesh, kRejectTetQuality);
  return mesh;
}

}  // namespace

Eigen::VectorXd surface_wall_thickness(const SurfaceMesh& surface, SurfaceMeshingCache* cache) {
  if (cache && cache->surface == &surface && cache->vertex_thickness_m.size() == surface.vertices.rows())
    return cache->vertex_thickness_m;
  Eigen::VectorXd thickness_m = local_thickness(surface);
  if (cache) *cache = {&surface, thickness_m};
  return thickness_m;
}

bool volume_meshed_from_the_start(const SurfaceMesh& surface, double needed_edge_m, const MeshInputOptions& options) {
  const bool free_surface = !options.keep_surface && !options.surface_edge_m;
  return free_surface && (mean_edge_length(surface) < kCoarsenSurfaceBelow * needed_edge_m ||
                          worst_triangle_aspect(surface) > kSliverTriangleAspect);
}

TetMesh mesh_surface(const SurfaceMesh& input, const Material& material,
                     const MeshInputOptions& options, StageTimer& t, SurfaceMeshingCache* cache) {
  const double shear_speed = shear_wave_speed_m_s(material);
  const double sizing_hz = choose_sizing_frequency_hz(input, material, options);
  // The shape may move by a fraction of the shortest wavelength a listener hears: that of the
  // N-th mode, which the sizing frequency exceeds by its margin (at least kResolutionMargin),
  // or of --fmax when the band is what is analysed. (Taken at the sizing frequency, the bound
  // kept a 1.5 m scan's 12 mm surface for 300 modes: 871 k DOF and 24 GB, where a 28 mm remesh
  // moves it by 1.4 mm, λ/190 at its 300th mode.)
  const double analysed_hz = sizing_hz < options.fmax_hz ? sizing_hz / kResolutionMargin : sizing_hz;
  // The element edge the analysis needs: that of the volume bound when one is given.
  const double needed_edge_m = options.max_tet_volume_m3
                                   ? std::cbrt(6 * std::sqrt(2.0) * *options.max_tet_volume_m3)
                                   : options.element_scale * default_edge_length(input, material, sizing_hz);
  // A surface much finer than the analysis needs (a scan, a CAD export, a finely drawn asset):
  // its triangles would set the size of the analysis. Mesh the volume for the physics instead.
  const bool free_surface = !options.keep_surface && !options.surface_edge_m;
  if (volume_meshed_from_the_start(input, needed_edge_m, options)) {
    const double input_edge_m = mean_edge_length(input);
    const std::string why =
        input_edge_m < kCoarsenSurfaceBelow * needed_edge_m
            ? fmt::format("the surface (mean edge {:.2f} mm) is finer than the {:.2f} mm the analysis needs",
                          1e3 * input_edge_m, 1e3 * needed_edge_m)
            : fmt::format("the surface has sliver triangles (one {:.0f} times longer than wide) that would "
                          "give flat elements", worst_triangle_aspect(input));
    return physics_sized_mesh(input, material, sizing_hz, shear_speed / analysed_hz, options, t, why, cache);
  }
  Eigen::MatrixXd input_vertices;
  const SurfaceMesh surface = analysis_surface(input, needed_edge_m, options, t, input_vertices);

  t.start("tetrahedralization");
  Progress progress("tetrahedralization");
  progress.update(0.0, fmt::format("{} surface vertices", surface.vertices.rows()));
  TetrahedralizeOptions tet_options;
  tet_options.max_tet_volume_m3 = options.max_tet_volume_m3
                                      ? *options.max_tet_volume_m3
                                      : std::pow(options.element_scale, 3) *
                                            default_max_tet_volume(surface, material, sizing_hz);
  TetMesh mesh = tetrahedralize(surface, tet_options);
  // An edge given with --surface-edge is the user's choice of surface resolution: only flat
  // elements make TetGen split its triangles then.
  const bool overlong = !options.surface_edge_m &&
                        overlong_surface_triangles(surface, *tet_options.max_tet_volume_m3) > 0;
  const bool slivers = tet_quality_report(mesh, kRejectTetQuality).near_degenerate > 0;
  if ((slivers || overlong) && free_surface && input_vertices.rows() == 0) {
    // Sliver or long surface triangles that the elements cannot follow (CAD and STL exports):
    // a volume mesh of the same domain does not depend on them.
    t.stop();
    progress.finish("");
    return physics_sized_mesh(
        input, material, sizing_hz, shear_speed / analysed_hz, options, t,
        slivers ? "the surface has sliver triangles that would give flat elements"
                : "the surface has triangles too long for the elements the analysis needs",
        cache);
  }
  if (slivers || overlong) {
    // Sliver surface triangles (CAD and STL exports) force flat tetrahedra when the surface is
    // kept triangle for triangle, and long ones stop TetGen from refining next to them (a
    // 60 mm prong drawn with 60 mm triangles came out as 48 elements, its modes 19 % high):
    // let TetGen split them with points on the surface instead. The shape is exactly the same;
    // the new points are surface nodes like the others.
    progress.update(0.5, "splitting sliver surface triangles");
    tet_options.keep_surface_triangles = false;
    mesh = tetrahedralize(surface, tet_options);
    notice(fmt::format(
        "the surface has sliver or long triangles that the elements cannot follow: TetGen split "
        "them with {} points on the surface (the shape is unchanged)",
        mesh.surface_steiner_points));
  }
  if (input_vertices.rows() > 0) mesh.input_faces = input.faces;
  mesh.input_vertices = std::move(input_vertices);
  mesh.resolved_frequency_hz = sizing_hz;
  progress.finish(fmt::format("{} tetrahedra", mesh.tets.rows()));
  t.stop();
  check_tet_quality(mesh, kRejectTetQuality);
  return mesh;
}

bool is_tet_mesh_path(const std::filesystem::path& path) {
  auto ext = path.extension().string();
  for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".node" || ext == ".ele" || ext == ".msh";
}

void check_mesh_input(const std::filesystem::path& path, const MeshInputOptions& options) {
  if (!(options.scale > 0) || !std::isfinite(options.scale))
    throw Error(fmt::format("--scale must be a positive number (got {})", options.scale));
  if (options.max_tet_volume_m3 && !(*options.max_tet_volume_m3 > 0))
    throw Error(fmt::format("--max-tet-volume must be positive (got {})", *options.max_tet_volume_m3));
  if (!(options.element_scale > 0) || !std::isfinite(options.element_scale))
    throw Error(fmt::format("--element-scale must be a positive number (got {})", options.element_scale));
  if (options.boundary_distance_m && !(*options.boundary_distance_m > 0 && std::isfinite(*options.boundary_distance_m)))
    throw Error(fmt::format("--boundary-distance must be a positive length in metres (got {})",
                            *options.boundary_distance_m));
  if (!std::filesystem::exists(path)) throw Error(fmt::format("{}: no such file", path.string()));
}

TetMesh load_tet_mesh(const std::filesystem::path& path, const Material& material,
                      const MeshInputOptions& options, StageTimer* timer) {
  check_mesh_input(path, options);
  StageTimer local;
  StageTimer& t = timer ? *timer : local;
  if (is_tet_mesh_path(path)) {
    t.start("read mesh");
    auto file = read_tet_mesh_file(path, options.scale);
    notice_implausible_size(file.vertices, options.scale);
    TetMesh mesh = tet_mesh_from_elements(std::move(file.vertices), std::move(file.tets));
    t.stop();
    check_tet_quality(mesh);
    return mesh;
  }
  t.start("read mesh");
  const SurfaceMesh surface = read_checked_surface_mesh(path, options.scale, options.repair);
  t.stop();
  return mesh_surface(surface, material, options, t);
}

}  // namespace mesh2dsp
