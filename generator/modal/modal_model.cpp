#include "modal/modal_model.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "modal/damping.hpp"
#include "modal/surface_shapes.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp {
namespace {

using json = nlohmann::ordered_json;

constexpr const char* kFormat = "mesh2dsp-modal-model";
constexpr int kVersion = 1;

json vec3(const Eigen::Vector3d& v) { return json::array({v.x(), v.y(), v.z()}); }

// JSON has no infinity: an undamped mode's T60 is written as null.
json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

template <class T>
T get(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key))
    throw Error(fmt::format("{}: missing field '{}'", where, key));
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    throw Error(fmt::format("{}: field '{}' has the wrong type", where, key));
  }
}

template <class T>
T get_or(const json& j, const char* key, T fallback, const std::string& where) {
  if (!j.contains(key) || j.at(key).is_null()) return fallback;
  return get<T>(j, key, where);
}

Eigen::Vector3d get_vec3(const json& j, const char* key, const std::string& where) {
  auto v = get<std::vector<double>>(j, key, where);
  if (v.size() != 3) throw Error(fmt::format("{}: '{}' must have 3 components", where, key));
  for (double x : v)
    if (!std::isfinite(x)) throw Error(fmt::format("{}: '{}' is not finite", where, key));
  return {v[0], v[1], v[2]};
}

std::vector<double> get_gains(const json& j, const std::string& where, size_t n_modes) {
  auto g = get<std::vector<double>>(j, "gains", where);
  if (g.size() != n_modes)
    throw Error(fmt::format("{}: {} gains for {} modes", where, g.size(), n_modes));
  for (double x : g)
    if (!std::isfinite(x)) throw Error(fmt::format("{}: a gain is not finite", where));
  return g;
}

}  // namespace

int apply_rayleigh_damping(ModalModel& model) {
  std::vector<ModalMode> kept;
  int dropped = 0;
  std::vector<size_t> kept_index;
  for (size_t i = 0; i < model.modes.size(); ++i) {
    auto m = model.modes[i];
    const double omega = std::sqrt(m.eigenvalue);
    m.frequency_hz = omega / (2 * M_PI);
    m.damping_ratio = rayleigh_damping_ratio(model.material.rayleigh_mass_per_s,
                                             model.material.rayleigh_stiffness_s, omega);
    if (m.damping_ratio >= 1.0) {
      ++dropped;
      continue;
    }
    m.t60_s = t60_seconds(m.damping_ratio, omega);
    kept.push_back(m);
    kept_index.push_back(i);
  }
  if (dropped) {
    auto select = [&](std::vector<double>& gains) {
      std::vector<double> out;
      for (size_t i : kept_index) out.push_back(gains[i]);
      gains = std::move(out);
    };
    for (auto& e : model.excitations) select(e.gains);
    for (auto& l : model.listeners) select(l.gains);
    if (model.surface)
      model.surface = std::make_shared<SurfaceShapes>(select_surface_modes(*model.surface, kept_index));
    notice(fmt::format("{} overdamped mode(s) (damping ratio >= 1) dropped", dropped));
  }
  model.modes = std::move(kept);
  return dropped;
}

void retune_material(ModalModel& model, const Material& m) {
  validate_material(m);
  const Material& old = model.material;
  if (std::abs(m.poisson_ratio - old.poisson_ratio) > 1e-12)
    throw Error(fmt::format(
        "changing the Poisson ratio ({} -> {}) changes the mode shapes: re-run the analysis on the "
        "mesh instead of re-tuning the model",
        old.poisson_ratio, m.poisson_ratio));
  // λ = ω² scales with E/ρ at fixed ν; mass-normalised shapes scale with 1/√ρ.
  const double eigen_scale = (m.youngs_modulus_pa / m.density_kg_m3) /
                             (old.youngs_modulus_pa / old.density_kg_m3);
  const double shape_scale = std::sqrt(old.density_kg_m3 / m.density_kg_m3);
  // A listener's gain sums the surface's contributions with the phase each one's delay gives at
  // the mode's frequency: new frequencies need new sums, which need the shapes.
  if (!model.listeners.empty() && std::abs(eigen_scale - 1) > 1e-12)
    throw Error(
        "this model has listeners, whose gains depend on each mode's frequency (the propagation "
        "phase over the surface): a new E/density cannot re-tune them exactly; re-run the "
        "analysis on the mesh (changing only the damping is exact)");
  for (auto& mode : model.modes) mode.eigenvalue *= eigen_scale;
  // Listener gains are pressure per unit modal velocity, proportional to φ as well.
  if (model.analysis.normalization == "physical")
    for (auto& e : model.excitations)
      for (double& g : e.gains) g *= shape_scale;
  for (auto& l : model.listeners)
    for (double& g : l.gains) g *= shape_scale;
  if (model.surface) {
    auto surface = std::make_shared<SurfaceShapes>(*model.surface);
    surface->displacement *= shape_scale;
    if (model.analysis.normalization == "physical") surface->gains *= shape_scale;
    model.surface = std::move(surface);
  }
  model.material = m;
  apply_rayleigh_damping(model);
}

std::string modal_model_to_json(const ModalModel& model) {
  json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["name"] = model.name;
  j["mesh"] = {{"source", model.mesh.source},
               {"vertices", model.mesh.vertices},
               {"tetrahedra", model.mesh.tetrahedra},
               {"element_order", model.mesh.element_order},
               {"scale", model.mesh.scale}};
  const auto& mat = model.material;
  j["material"] = {{"name", mat.name},
                   {"density", mat.density_kg_m3},
                   {"youngs_modulus", mat.youngs_modulus_pa},
                   {"poisson_ratio", mat.poisson_ratio},
                   {"rayleigh_mass", mat.rayleigh_mass_per_s},
                   {"rayleigh_stiffness", mat.rayleigh_stiffness_s},
                   {"source", mat.source}};
  j["analysis"] = {{"fmin_hz", model.analysis.fmin_hz},
                   {"fmax_hz", model.analysis.fmax_hz},
                   {"requested_modes", model.analysis.requested_modes},
                   {"fixed", model.analysis.fixed},
                   {"normalization", model.analysis.normalization}};
  json modes = json::array();
  for (const auto& m : model.modes)
    modes.push_back({{"frequency_hz", m.frequency_hz},
                     {"damping_ratio", m.damping_ratio},
                     {"t60_s", number_or_null(m.t60_s)},
                     {"eigenvalue", m.eigenvalue}});
  j["modes"] = modes;
  json ex = json::array();
  for (const auto& e : model.excitations)
    ex.push_back({{"vertex", e.vertex},
                  {"position", vec3(e.position)},
                  {"direction", vec3(e.direction)},
                  {"gains", e.gains}});
  j["excitations"] = ex;
  json li = json::array();
  for (const auto& l : model.listeners)
    li.push_back({{"position", vec3(l.position)}, {"delay_s", l.delay_s}, {"gains", l.gains}});
  j["listeners"] = li;
  if (!model.excitation_triangles.empty()) j["excitation_triangles"] = model.excitation_triangles;
  if (model.surface && !model.surface_file.empty())
    j["surface"] = {{"file", model.surface_file},
                    {"encoding", "M2DSURF1: float32 positions, normals, gains; int16 displacement "
                                 "with a float32 scale per mode (generator/modal/surface_shapes.hpp)"},
                    {"vertices", model.surface->vertex_count()},
                    {"triangles", model.surface->triangles.rows()}};
  return j.dump(1) + "\n";
}

ModalModel modal_model_from_json(const std::string& text, const std::string& origin) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw Error(fmt::format("{}: not valid JSON ({})", origin, e.what()));
  }
  if (!j.is_object() || j.value("format", std::string()) != kFormat)
    throw Error(fmt::format("{}: not a mesh2dsp modal model (\"format\" is not \"{}\")", origin,
                            kFormat));
  const int version = get<int>(j, "version", origin);
  if (version != kVersion)
    throw Error(fmt::format("{}: modal model version {} is not supported (this build reads {})",
                            origin, version, kVersion));
  ModalModel model;
  model.name = get_or<std::string>(j, "name", "model", origin);
  if (j.contains("mesh")) {
    const auto& mj = j["mesh"];
    const std::string w = origin + ": mesh";
    model.mesh.source = get_or<std::string>(mj, "source", "", w);
    model.mesh.vertices = get_or<int>(mj, "vertices", 0, w);
    model.mesh.tetrahedra = get_or<int>(mj, "tetrahedra", 0, w);
    model.mesh.element_order = get_or<int>(mj, "element_order", 2, w);
    model.mesh.scale = get_or<double>(mj, "scale", 1.0, w);
  }
  {
    const std::string w = origin + ": material";
    if (!j.contains("material")) throw Error(origin + ": missing field 'material'");
    const auto& mj = j["material"];
    auto& mat = model.material;
    mat.name = get_or<std::string>(mj, "name", "custom", w);
    mat.density_kg_m3 = get<double>(mj, "density", w);
    mat.youngs_modulus_pa = get<double>(mj, "youngs_modulus", w);
    mat.poisson_ratio = get<double>(mj, "poisson_ratio", w);
    mat.rayleigh_mass_per_s = get_or<double>(mj, "rayleigh_mass", 0.0, w);
    mat.rayleigh_stiffness_s = get_or<double>(mj, "rayleigh_stiffness", 0.0, w);
    mat.source = get_or<std::string>(mj, "source", "", w);
    validate_material(mat);
  }
  if (j.contains("analysis")) {
    const auto& aj = j["analysis"];
    const std::string w = origin + ": analysis";
    model.analysis.fmin_hz = get_or<double>(aj, "fmin_hz", 20.0, w);
    model.analysis.fmax_hz = get_or<double>(aj, "fmax_hz", 20000.0, w);
    model.analysis.requested_modes = get_or<int>(aj, "requested_modes", 0, w);
    model.analysis.fixed = get_or<std::vector<std::string>>(aj, "fixed", {}, w);
    model.analysis.normalization = get_or<std::string>(aj, "normalization", "physical", w);
  }
  if (!j.contains("modes") || !j["modes"].is_array())
    throw Error(origin + ": missing array 'modes'");
  double previous = 0;
  for (size_t i = 0; i < j["modes"].size(); ++i) {
    const auto& mj = j["modes"][i];
    const std::string w = fmt::format("{}: modes[{}]", origin, i);
    ModalMode m;
    m.frequency_hz = get<double>(mj, "frequency_hz", w);
    m.damping_ratio = get_or<double>(mj, "damping_ratio", 0.0, w);
    m.t60_s = get_or<double>(mj, "t60_s", INFINITY, w);
    m.eigenvalue = get_or<double>(mj, "eigenvalue", std::pow(2 * M_PI * m.frequency_hz, 2), w);
    if (!std::isfinite(m.frequency_hz) || m.frequency_hz <= 0)
      throw Error(fmt::format("{}: frequency must be positive and finite", w));
    if (m.frequency_hz < previous)
      throw Error(fmt::format("{}: modes must be in ascending frequency", w));
    if (m.damping_ratio < 0 || !std::isfinite(m.damping_ratio))
      throw Error(fmt::format("{}: damping ratio must be a non-negative number", w));
    previous = m.frequency_hz;
    model.modes.push_back(m);
  }
  if (j.contains("excitations")) {
    for (size_t i = 0; i < j["excitations"].size(); ++i) {
      const auto& ej = j["excitations"][i];
      const std::string w = fmt::format("{}: excitations[{}]", origin, i);
      ModalExcitation e;
      e.vertex = get_or<int>(ej, "vertex", -1, w);
      e.position = get_vec3(ej, "position", w);
      e.direction = ej.contains("direction") ? get_vec3(ej, "direction", w)
                                             : Eigen::Vector3d::Zero();
      e.gains = get_gains(ej, w, model.modes.size());
      model.excitations.push_back(std::move(e));
    }
  }
  if (j.contains("listeners")) {
    for (size_t i = 0; i < j["listeners"].size(); ++i) {
      const auto& lj = j["listeners"][i];
      const std::string w = fmt::format("{}: listeners[{}]", origin, i);
      ModalListener l;
      l.position = get_vec3(lj, "position", w);
      l.gains = get_gains(lj, w, model.modes.size());
      l.delay_s = get_or<double>(lj, "delay_s", 0.0, w);
      model.listeners.push_back(std::move(l));
    }
  }
  if (j.contains("excitation_triangles")) {
    model.excitation_triangles =
        get<std::vector<std::array<int, 3>>>(j, "excitation_triangles", origin);
    for (const auto& t : model.excitation_triangles)
      for (int k : t)
        if (k < 0 || k >= static_cast<int>(model.excitations.size()))
          throw Error(origin + ": excitation_triangles refers to a missing excitation");
  }
  if (j.contains("surface"))
    model.surface_file = get<std::string>(j["surface"], "file", origin + ": surface");
  return model;
}

ModalModel read_modal_model(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read {}", path.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  ModalModel model = modal_model_from_json(ss.str(), path.string());
  if (!model.surface_file.empty()) {
    // A bare name beside the model: nothing else is ever written or followed.
    const std::filesystem::path name(model.surface_file);
    if (name.filename() != name || name == "." || name == "..")
      throw Error(fmt::format("{}: surface file \"{}\" must be a file name beside the model",
                              path.string(), model.surface_file));
    const auto sidecar = path.parent_path() / model.surface_file;
    std::error_code ec;
    if (std::filesystem::exists(sidecar, ec))
      model.surface = std::make_shared<SurfaceShapes>(
          read_surface_shapes(sidecar, static_cast<int>(model.modes.size())));
    else
      notice(fmt::format("{}: its surface data {} is missing (only `view` needs it)",
                         path.string(), sidecar.string()));
  }
  return model;
}

void write_modal_model(const std::filesystem::path& path, const ModalModel& model) {
  if (!model.surface) {
    ModalModel plain = model;
    plain.surface_file.clear();
    write_text_atomically(path, modal_model_to_json(plain));
    return;
  }
  // The sidecar first: a model file never names a sidecar that is not there.
  ModalModel named = model;
  named.surface_file = surface_file_name(path);
  write_surface_shapes(path.parent_path() / named.surface_file, *model.surface);
  write_text_atomically(path, modal_model_to_json(named));
}

}  // namespace mesh2dsp
