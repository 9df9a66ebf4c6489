#pragma once
// The modal model: the single hand-off between analysis and emission (the model
// file, format version 1). SI units, frequencies in Hz.
#include <Eigen/Core>
#include <array>
#include <complex>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "fem/material.hpp"

namespace mesh2dsp {

struct SurfaceShapes;  // modal/surface_shapes.hpp

struct ModalMode {
  double frequency_hz = 0;   // undamped natural frequency ω/2π
  double damping_ratio = 0;  // ξ
  double t60_s = 0;          // ln(1000)/(ξω); infinite when undamped (stored as null)
  double eigenvalue = 0;     // λ = ω² (rad²/s²) of K φ = λ M φ; kept for exact re-tuning
  // Far-field directivity from the boundary-element radiation solve (optional, empty otherwise):
  // complex coefficients c_lm of F(d) = Σ c_lm Y_lm(d), real orthonormal spherical harmonics
  // in ACN order (radiation/bem.hpp), up to `directivity_order`; p(centre + r·d) ≈ F(d)e^{ikr}/r
  // per unit modal velocity (Pa·m), centre = analysis.radiation_centre_m, time dependence e^{−iωt}.
  int directivity_order = -1;
  std::vector<std::complex<double>> directivity;
};

struct ModalExcitation {
  int vertex = -1;                  // surface vertex index in the tet mesh
  Eigen::Vector3d position = Eigen::Vector3d::Zero();
  Eigen::Vector3d direction = Eigen::Vector3d::Zero();  // unit strike direction
  std::vector<double> gains;        // per mode: φₙ(x)·d
};

struct ModalListener {
  Eigen::Vector3d position = Eigen::Vector3d::Zero();
  std::vector<double> gains;  // per mode: radiated pressure per unit modal velocity
  double delay_s = 0;         // propagation delay r/c from the radiating surface (weighted mean)
  // Per mode, the complex pressure per unit modal velocity (Pa·s/m, time dependence e^{−iωt})
  // from the boundary-element solve; empty with O'Brien's weights.
  std::vector<std::complex<double>> pressure;
};

struct ModalMeshInfo {
  std::string source;       // the mesh file as given on the command line
  int vertices = 0;         // tet-mesh nodes (corner vertices)
  int tetrahedra = 0;
  int element_order = 2;
  double scale = 1.0;       // --scale applied to the source coordinates
};

struct ModalAnalysisInfo {
  double fmin_hz = 20, fmax_hz = 20000;
  int requested_modes = 0;
  std::vector<std::string> fixed;  // --fix predicates
  std::string normalization = "physical";  // "physical" or "per-point"
  std::string radiation = "obrien";        // listener gains by "obrien" weights or a "bem" solve
  Eigen::Vector3d radiation_centre_m = Eigen::Vector3d::Zero();  // the directivity's origin
};

struct ModalModel {
  std::string name;
  ModalMeshInfo mesh;
  Material material;
  ModalAnalysisInfo analysis;
  std::vector<ModalMode> modes;  // ascending frequency, rigid-body modes excluded
  std::vector<ModalExcitation> excitations;
  std::vector<ModalListener> listeners;
  // Triangles over the excitation points (indices into `excitations`), for barycentric gain
  // interpolation of a moving contact (van den Doel & Pai 2003, §2.3, Fig. 4). Optional; empty when not computed.
  std::vector<std::array<int, 3>> excitation_triangles;
  // The surface with per-vertex shapes for the browser page (`view`), when known: set by the
  // analysis, read from the sidecar the model file names ("surface": {"file": ...}), written
  // beside the model by write_modal_model. Null: the model file carries none.
  std::shared_ptr<const SurfaceShapes> surface;
  std::string surface_file;  // the sidecar's name as the model file gives it (relative to it)
};

// Recomputes ξ and T60 of every mode from the material's Rayleigh pair and the eigenvalues.
// Drops overdamped modes (ξ ≥ 1) and returns how many were dropped.
int apply_rayleigh_damping(ModalModel& model);

// Exact re-tuning to a new material without re-solving: at fixed ν, λ ∝ E/ρ and the
// mass-normalised shapes scale by 1/√ρ (φᵀMφ = 1 with M ∝ ρ). Throws mesh2dsp::Error when ν
// changes (that needs a re-solve). Damping: recomputed from the Rayleigh pair when the pair
// changes or the modes' damping is the old pair's; otherwise (per-mode damping) each mode's
// damping ratio is kept, with a notice. Undamped modes after it are named in a notice.
void retune_material(ModalModel& model, const Material& new_material);

// JSON (de)serialisation; read throws mesh2dsp::Error on anything malformed, naming the field.
std::string modal_model_to_json(const ModalModel& model);
ModalModel modal_model_from_json(const std::string& text, const std::string& origin = "model");
ModalModel read_modal_model(const std::filesystem::path& path);
void write_modal_model(const std::filesystem::path& path, const ModalModel& model);

}  // namespace mesh2dsp
