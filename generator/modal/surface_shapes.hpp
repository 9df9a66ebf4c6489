#pragma once
// The surface and its per-vertex mode shapes, for the browser page of `mesh2dsp view`: what the
// model file does not carry (it holds gains at K excitation points only). Kept in a binary
// sidecar named in the model, not inline: the model file stays small and its format
// unchanged.
//
// Sidecar encoding (`<name>.surface.bin`, little-endian, every array 4-byte aligned except the
// int16 block at the end):
//   char[8]  "M2DSURF1"
//   uint32   V (surface vertices), T (triangles), N (modes), 0 (reserved)
//   float32  positions[V][3]          m
//   float32  normals[V][3]            unit, outward, angle-weighted (the strike direction)
//   uint32   triangles[T][3]          outward, indices into the V surface vertices
//   int32    tet_vertex[V]            the vertex's index in the tet mesh (the model's `vertex`)
//   float32  gains[N][V]              φₙ(x)·n(x), exactly as excitation_gains computes the
//                                     model's excitation gains (same normalisation)
//   float32  displacement_scale[N]    largest |component| of φₙ over the surface
//   int16    displacement[N][V][3]    φₙ(x) quantized: value · scale / 32767
// Gains are float32 because they become the emitted program's coefficients; the displacement
// only animates the picture, so 16 bits (1/32767 of each mode's peak) are plenty.
#include <Eigen/Core>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "fem/tet_mesh.hpp"

namespace mesh2dsp {

struct ModalModel;

struct SurfaceShapes {
  Eigen::MatrixXd positions;     // V × 3
  Eigen::MatrixXd normals;       // V × 3
  Eigen::MatrixXi triangles;     // T × 3, into the V surface vertices
  std::vector<int> tet_vertex;   // V: index in the tet mesh
  Eigen::MatrixXd gains;         // V × N: φₙ·n per surface vertex (the model's normalisation)
  Eigen::MatrixXd displacement;  // 3V × N: φₙ at each surface vertex (x, y, z interleaved)

  int vertex_count() const { return static_cast<int>(positions.rows()); }
  int mode_count() const { return static_cast<int>(gains.cols()); }
};

// The surface of `tets` with every surface vertex's shape values (`shapes`: 3·nodes × modes,
// corner node i is tet vertex i) and gains φ·n, per-point normalised when `normalization` says so.
SurfaceShapes surface_shapes(const TetMesh& tets, const Eigen::MatrixXd& shapes,
                             const std::string& normalization);

// The modes `keep` (indices into the current ones, ascending) only.
SurfaceShapes select_surface_modes(const SurfaceShapes& surface, const std::vector<size_t>& keep);

// The sidecar's file name beside `model_path`: "bowl.modal.json" -> "bowl.surface.bin".
std::string surface_file_name(const std::filesystem::path& model_path);

// Binary sidecar (format above). write: atomically; read throws mesh2dsp::Error on a short,
// malformed or mismatched file (`expected_modes` < 0: any).
void write_surface_shapes(const std::filesystem::path& path, const SurfaceShapes& surface);
SurfaceShapes read_surface_shapes(const std::filesystem::path& path, int expected_modes = -1);
// The sidecar bytes as written (quantization included).
std::string encode_surface_shapes(const SurfaceShapes& surface);

// The model with every surface vertex as an excitation point (gains from `surface`, direction
// its normal) and the surface's own triangles as the excitation triangles: emitted, its moving
// contact (triangle t, barycentric u, v) interpolates φ·n inside any surface triangle — the
// same gains the page computes for a click there.
ModalModel surface_excitation_model(const ModalModel& model, const SurfaceShapes& surface);

}  // namespace mesh2dsp
