#include "modal/modal_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
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
// Relative agreement asked of values stored twice (eigenvalue and frequency, T60 and damping
// ratio): the writer's own values agree to round-off, a hand edit of one of them does not.
constexpr double kConsistencyTolerance = 1e-6;
// The highest rate the generated code is meant to run at (the emitted header and Faust switch
// off modes above Nyquist at run time); a model whose every mode lies above its Nyquist
// frequency is silent everywhere.
constexpr double kHighestSampleRate_hz = 192000;

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

// A finite number (JSON has no NaN, but "1e999" parses as infinity).
double get_finite(const json& j, const char* key, const std::string& where) {
  const double x = get<double>(j, key, where);
  if (!std::isfinite(x)) throw Error(fmt::format("{}: '{}' is not finite", where, key));
  return x;
}

double get_finite_or(const json& j, const char* key, double fallback, const std::string& where) {
  if (!j.contains(key) || j.at(key).is_null()) return fallback;
  return get_finite(j, key, where);
}

// A whole number in int's range: nlohmann converts 1e20 or 0.5 to int without a check (1e20 is
// undefined behaviour), so integers are read as numbers and checked here.
int get_int_or(const json& j, const char* key, int fallback, const std::string& where) {
  if (!j.is_object() || !j.contains(key) || j.at(key).is_null()) return fallback;
  const auto& v = j.at(key);
  if (!v.is_number()) throw Error(fmt::format("{}: field '{}' has the wrong type", where, key));
  const double x = v.get<double>();
  if (!(x == std::floor(x) && std::abs(x) <= std::numeric_limits<int>::max()))
    throw Error(fmt::format("{}: '{}' must be a whole number (got {})", where, key, v.dump()));
  return static_cast<int>(x);
}

// An array field (absent: empty), so that an object or a number in its place is one message.
const json& get_array(const json& j, const char* key, const std::string& where) {
  static const json empty = json::array();
  if (!j.contains(key)) return empty;
  if (!j.at(key).is_array())
    throw Error(fmt::format("{}: field '{}' must be an array", where, key));
  return j.at(key);
}

// An optional section ("mesh", "analysis") must be an object when present.
const json& get_section(const json& j, const char* key, const std::string& origin) {
  static const json empty = json::object();
  if (!j.contains(key)) return empty;
  if (!j.at(key).is_object())
    throw Error(fmt::format("{}: field '{}' must be an object", origin, key));
  return j.at(key);
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
    throw Error(fmt::format("{}: {} gains for {} modes ('gains' must have one per mode)", where,
                            g.size(), n_modes));
  for (size_t n = 0; n < g.size(); ++n)
    if (!std::isfinite(g[n])) throw Error(fmt::format("{}: gains[{}] is not finite", where, n));
  return g;
}

// Two parallel arrays of finite numbers, `count` long, as complex values (both absent: empty).
std::vector<std::complex<double>> get_complex_pair(const json& j, const char* re_key, const char* im_key,
                                                   size_t count, const std::string& where) {
  if (!j.contains(re_key) && !j.contains(im_key)) return {};
  const auto re = get<std::vector<double>>(j, re_key, where);
  const auto im = get<std::vector<double>>(j, im_key, where);
  if (re.size() != count || im.size() != count)
    throw Error(fmt::format("{}: '{}' and '{}' must have {} values each (got {} and {})", where,
                            re_key, im_key, count, re.size(), im.size()));
  std::vector<std::complex<double>> out(count);
  for (size_t n = 0; n < count; ++n) {
    if (!std::isfinite(re[n]) || !std::isfinite(im[n]))
      throw Error(fmt::format("{}: {}[{}] or {}[{}] is not finite", where, re_key, n, im_key, n));
    out[n] = {re[n], im[n]};
  }
  return out;
}

// A mode's optional far-field directivity: {"order": L, "re": [...], "im": [...]}, (L+1)² each.
void read_directivity(const json& mj, const std::string& where, ModalMode& m) {
  if (!mj.is_object() || !mj.contains("directivity")) return;
  const std::string w = where + ": directivity";
  const json& d = mj.at("directivity");
  if (!d.is_object()) throw Error(w + ": must be an object");
  const int order = get_int_or(d, "order", -1, w);
  if (order < 0 || order > 64) throw Error(fmt::format("{}: 'order' must be 0 .. 64 (got {})", w, order));
  m.directivity_order = order;
  m.directivity = get_complex_pair(d, "re", "im", static_cast<size_t>((order + 1) * (order + 1)), w);
  if (m.directivity.empty()) throw Error(w + ": missing 're' and 'im'");
}

// One mode, with its damping given as damping_ratio, t60_s or both (then they must agree: the
// emitter uses the ratio, so a hand-edited T60 beside a stale ratio would be ignored silently).
ModalMode read_mode(const json& mj, const std::string& w) {
  ModalMode m;
  m.frequency_hz = get<double>(mj, "frequency_hz", w);
  if (!std::isfinite(m.frequency_hz) || m.frequency_hz <= 0)
    throw Error(fmt::format("{}: frequency_hz must be positive and finite", w));
  const double omega = 2 * M_PI * m.frequency_hz;
  m.eigenvalue = get_finite_or(mj, "eigenvalue", omega * omega, w);
  // Re-tuning rescales the eigenvalue and recomputes the frequency from it: a frequency edited
  // by hand beside the old eigenvalue would silently come back.
  if (!(m.eigenvalue > 0) ||
      std::abs(std::sqrt(m.eigenvalue) / omega - 1) > kConsistencyTolerance)
    throw Error(fmt::format("{}: eigenvalue {} does not match frequency_hz {} (it must be "
                            "(2*pi*f)^2 = {}): edit both, or remove 'eigenvalue'",
                            w, m.eigenvalue, m.frequency_hz, omega * omega));
  const bool has_ratio = mj.contains("damping_ratio") && !mj.at("damping_ratio").is_null();
  const bool has_t60 = mj.contains("t60_s");  // null: undamped (infinite)
  if (has_ratio) {
    m.damping_ratio = get_finite(mj, "damping_ratio", w);
    if (m.damping_ratio < 0)
      throw Error(fmt::format("{}: damping_ratio must be >= 0 (got {})", w, m.damping_ratio));
    if (m.damping_ratio >= 1)
      throw Error(fmt::format("{}: damping_ratio {} is >= 1: an overdamped mode does not ring",
                              w, m.damping_ratio));
  }
  if (has_t60 && !mj.at("t60_s").is_null()) {
    m.t60_s = get<double>(mj, "t60_s", w);
    if (std::isnan(m.t60_s) || m.t60_s <= 0)
      throw Error(fmt::format("{}: t60_s must be positive (or null: undamped), got {}", w, m.t60_s));
  } else {
    m.t60_s = INFINITY;
  }
  if (has_ratio && has_t60) {
    const double implied = t60_seconds(m.damping_ratio, omega);
    const bool agree = std::isinf(implied) ? std::isinf(m.t60_s)
                                           : std::abs(m.t60_s / implied - 1) <= kConsistencyTolerance;
    if (!agree)
      throw Error(fmt::format("{}: t60_s {} disagrees with damping_ratio {} (which gives {} s): "
                              "edit one and remove the other",
                              w, m.t60_s, m.damping_ratio, implied));
  } else if (has_t60) {
    m.damping_ratio = std::isinf(m.t60_s) ? 0 : std::log(1000.0) / (m.t60_s * omega);
    if (m.damping_ratio >= 1)
      throw Error(fmt::format("{}: t60_s {} is shorter than one period's worth of decay: the mode "
                              "would be overdamped", w, m.t60_s));
  } else {
    m.t60_s = t60_seconds(m.damping_ratio, omega);  // ratio alone, or undamped
  }
  return m;
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
    for (auto& l : model.listeners) {
      select(l.gains);
      if (l.pressure.empty()) continue;
      std::vector<std::complex<double>> out;
      for (size_t i : kept_index) out.push_back(l.pressure[i]);
      l.pressure = std::move(out);
    }
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
  // The damping: a new Rayleigh pair (a preset's or --rayleigh-*) is applied; so is the old pair
  // when the modes' damping is that pair's (re-tuned exactly, ξ follows the new ω). Damping
  // that is not Rayleigh (fitted to a recording, written per mode) is kept, each mode's ratio ξ
  // as it was (its Q): recomputing it from a Rayleigh pair the model never used would replace
  // it, with (0, 0) by no damping at all.
  const bool new_pair = m.rayleigh_mass_per_s != old.rayleigh_mass_per_s ||
                        m.rayleigh_stiffness_s != old.rayleigh_stiffness_s;
  bool rayleigh = true;
  for (const auto& mode : model.modes) {
    const double xi = rayleigh_damping_ratio(old.rayleigh_mass_per_s, old.rayleigh_stiffness_s,
                                             2 * M_PI * mode.frequency_hz);
    if (!(std::abs(mode.damping_ratio - xi) <= 1e-6 * std::max(xi, 1e-12))) rayleigh = false;
  }
  for (auto& mode : model.modes) mode.eigenvalue *= eigen_scale;
  // Listener gains are pressure per unit modal velocity, proportional to φ as well.
  if (model.analysis.normalization == "physical")
    for (auto& e : model.excitations)
      for (double& g : e.gains) g *= shape_scale;
  for (auto& l : model.listeners) {
    for (double& g : l.gains) g *= shape_scale;
    for (auto& p : l.pressure) p *= shape_scale;
  }
  // A directivity belongs to its mode's frequency (its wavenumber): a new frequency needs a new
  // solve, so it is dropped; a density change alone scales it with the shapes.
  bool dropped_directivity = false;
  for (auto& mode : model.modes) {
    if (mode.directivity_order < 0) continue;
    if (std::abs(eigen_scale - 1) > 1e-12) {
      mode.directivity.clear();
      mode.directivity_order = -1;
      dropped_directivity = true;
    } else {
      for (auto& c : mode.directivity) c *= shape_scale;
    }
  }
  if (dropped_directivity)
    notice("the modes' far-field directivity was computed at their old frequencies: dropped "
           "(re-run the analysis with --radiation bem for it)");
  if (model.surface) {
    auto surface = std::make_shared<SurfaceShapes>(*model.surface);
    surface->displacement *= shape_scale;
    if (model.analysis.normalization == "physical") surface->gains *= shape_scale;
    model.surface = std::move(surface);
  }
  model.material = m;
  if (new_pair || rayleigh) {
    apply_rayleigh_damping(model);
  } else {
    for (auto& mode : model.modes) {
      const double omega = std::sqrt(mode.eigenvalue);
      mode.frequency_hz = omega / (2 * M_PI);
      mode.t60_s = t60_seconds(mode.damping_ratio, omega);
    }
    notice("re-tuned with each mode's own damping ratio kept (the model's damping is not its "
           "material's Rayleigh pair); give --rayleigh-mass / --rayleigh-stiffness to replace it");
  }
  int undamped = 0;
  for (const auto& mode : model.modes) undamped += !(mode.damping_ratio > 0);
  if (undamped)
    notice(fmt::format("{} of {} mode(s) are undamped after re-tuning (the material's Rayleigh pair is "
                       "{} 1/s, {} s): they would ring for ever; give a damping",
                       undamped, model.modes.size(), m.rayleigh_mass_per_s, m.rayleigh_stiffness_s));
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
  // Additive fields (readers that do not know them ignore them): written only with a
  // boundary-element radiation solve, so older files and O'Brien models stay as they were.
  if (model.analysis.radiation != "obrien") {
    j["analysis"]["radiation"] = model.analysis.radiation;
    j["analysis"]["radiation_centre_m"] = vec3(model.analysis.radiation_centre_m);
  }
  json modes = json::array();
  for (const auto& m : model.modes) {
    json mj = {{"frequency_hz", m.frequency_hz},
               {"damping_ratio", m.damping_ratio},
               {"t60_s", number_or_null(m.t60_s)},
               {"eigenvalue", m.eigenvalue}};
    if (m.directivity_order >= 0) {
      std::vector<double> re, im;
      for (const auto& c : m.directivity) re.push_back(c.real()), im.push_back(c.imag());
      mj["directivity"] = {{"order", m.directivity_order}, {"re", re}, {"im", im}};
    }
    modes.push_back(mj);
  }
  j["modes"] = modes;
  json ex = json::array();
  for (const auto& e : model.excitations)
    ex.push_back({{"vertex", e.vertex},
                  {"position", vec3(e.position)},
                  {"direction", vec3(e.direction)},
                  {"gains", e.gains}});
  j["excitations"] = ex;
  json li = json::array();
  for (const auto& l : model.listeners) {
    json lj = {{"position", vec3(l.position)}, {"delay_s", l.delay_s}, {"gains", l.gains}};
    if (!l.pressure.empty()) {
      std::vector<double> re, im;
      for (const auto& c : l.pressure) re.push_back(c.real()), im.push_back(c.imag());
      lj["pressure_re"] = re;
      lj["pressure_im"] = im;
    }
    li.push_back(lj);
  }
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
  // Every field is checked where it is read, and every failure names it ("origin: modes[3]:
  // t60_s must be positive ..."): a model file may be hand-edited, truncated or written by
  // another tool, and generate/validate must never turn it into a crash or a wrong program.
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for "1e999"
    throw Error(fmt::format("{}: not valid JSON ({})", origin, e.what()));
  }
  if (!j.is_object() || !j.contains("format") || j["format"] != kFormat)
    throw Error(fmt::format("{}: not a mesh2dsp modal model (\"format\" is not \"{}\")", origin,
                            kFormat));
  if (!j.contains("version")) throw Error(fmt::format("{}: missing field 'version'", origin));
  const int version = get_int_or(j, "version", 0, origin);
  if (version != kVersion)
    throw Error(fmt::format("{}: modal model version {} is not supported (this build reads {})",
                            origin, version, kVersion));
  ModalModel model;
  model.name = get_or<std::string>(j, "name", "model", origin);
  {
    const auto& mj = get_section(j, "mesh", origin);
    const std::string w = origin + ": mesh";
    model.mesh.source = get_or<std::string>(mj, "source", "", w);
    model.mesh.vertices = get_int_or(mj, "vertices", 0, w);
    model.mesh.tetrahedra = get_int_or(mj, "tetrahedra", 0, w);
    model.mesh.element_order = get_int_or(mj, "element_order", 2, w);
    model.mesh.scale = get_finite_or(mj, "scale", 1.0, w);
    if (model.mesh.vertices < 0 || model.mesh.tetrahedra < 0)
      throw Error(w + ": 'vertices' and 'tetrahedra' must be >= 0");
    if (model.mesh.element_order < 1 || model.mesh.element_order > 3)
      throw Error(fmt::format("{}: 'element_order' must be 1, 2 or 3 (got {})", w,
                              model.mesh.element_order));
    if (!(model.mesh.scale > 0)) throw Error(w + ": 'scale' must be positive");
  }
  {
    const std::string w = origin + ": material";
    if (!j.contains("material")) throw Error(origin + ": missing field 'material'");
    const auto& mj = get_section(j, "material", origin);
    auto& mat = model.material;
    mat.name = get_or<std::string>(mj, "name", "custom", w);
    mat.density_kg_m3 = get<double>(mj, "density", w);
    mat.youngs_modulus_pa = get<double>(mj, "youngs_modulus", w);
    mat.poisson_ratio = get<double>(mj, "poisson_ratio", w);
    mat.rayleigh_mass_per_s = get_or<double>(mj, "rayleigh_mass", 0.0, w);
    mat.rayleigh_stiffness_s = get_or<double>(mj, "rayleigh_stiffness", 0.0, w);
    mat.source = get_or<std::string>(mj, "source", "", w);
    try {
      validate_material(mat);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", w, e.what()));
    }
  }
  {
    const auto& aj = get_section(j, "analysis", origin);
    const std::string w = origin + ": analysis";
    auto& a = model.analysis;
    a.fmin_hz = get_finite_or(aj, "fmin_hz", 20.0, w);
    a.fmax_hz = get_finite_or(aj, "fmax_hz", 20000.0, w);
    a.requested_modes = get_int_or(aj, "requested_modes", 0, w);
    a.fixed = get_or<std::vector<std::string>>(aj, "fixed", {}, w);
    a.normalization = get_or<std::string>(aj, "normalization", "physical", w);
    if (!(a.fmin_hz >= 0 && a.fmax_hz > a.fmin_hz))
      throw Error(fmt::format("{}: the band fmin_hz {} .. fmax_hz {} is empty", w, a.fmin_hz,
                              a.fmax_hz));
    a.radiation = get_or<std::string>(aj, "radiation", "obrien", w);
    if (a.radiation != "obrien" && a.radiation != "bem")
      throw Error(fmt::format("{}: 'radiation' must be \"obrien\" or \"bem\" (got \"{}\")", w,
                              a.radiation));
    if (aj.contains("radiation_centre_m")) a.radiation_centre_m = get_vec3(aj, "radiation_centre_m", w);
    if (a.normalization != "physical" && a.normalization != "per-point")
      throw Error(fmt::format("{}: 'normalization' must be \"physical\" or \"per-point\" (got "
                              "\"{}\")", w, a.normalization));
  }
  if (!j.contains("modes") || !j["modes"].is_array())
    throw Error(origin + ": missing array 'modes'");
  if (j["modes"].empty()) throw Error(origin + ": 'modes' is empty: the model has no modes, nothing would sound");
  for (size_t i = 0; i < j["modes"].size(); ++i) {
    const std::string w = fmt::format("{}: modes[{}]", origin, i);
    ModalMode m = read_mode(j["modes"][i], w);
    read_directivity(j["modes"][i], w, m);
    if (!model.modes.empty() && m.frequency_hz < model.modes.back().frequency_hz)
      throw Error(fmt::format("{}: modes must be in ascending frequency ({} Hz after {} Hz)", w,
                              m.frequency_hz, model.modes.back().frequency_hz));
    model.modes.push_back(m);
  }
  if (model.modes.front().frequency_hz >= kHighestSampleRate_hz / 2)
    throw Error(fmt::format(
        "{}: modes[0]: frequency_hz {} (the lowest mode) is above the Nyquist frequency of every "
        "sample rate up to {} Hz: the program would be silent",
        origin, model.modes.front().frequency_hz, kHighestSampleRate_hz));
  const auto& excitations = get_array(j, "excitations", origin);
  for (size_t i = 0; i < excitations.size(); ++i) {
    const auto& ej = excitations[i];
    const std::string w = fmt::format("{}: excitations[{}]", origin, i);
    if (!ej.is_object()) throw Error(w + ": must be an object");
    ModalExcitation e;
    e.vertex = get_int_or(ej, "vertex", -1, w);
    e.position = get_vec3(ej, "position", w);
    e.direction = ej.contains("direction") ? get_vec3(ej, "direction", w)
                                           : Eigen::Vector3d::Zero();
    e.gains = get_gains(ej, w, model.modes.size());
    model.excitations.push_back(std::move(e));
  }
  const auto& listeners = get_array(j, "listeners", origin);
  for (size_t i = 0; i < listeners.size(); ++i) {
    const auto& lj = listeners[i];
    const std::string w = fmt::format("{}: listeners[{}]", origin, i);
    if (!lj.is_object()) throw Error(w + ": must be an object");
    ModalListener l;
    l.position = get_vec3(lj, "position", w);
    l.gains = get_gains(lj, w, model.modes.size());
    l.delay_s = get_finite_or(lj, "delay_s", 0.0, w);
    l.pressure = get_complex_pair(lj, "pressure_re", "pressure_im", model.modes.size(), w);
    if (l.delay_s < 0) throw Error(fmt::format("{}: delay_s must be >= 0 (got {})", w, l.delay_s));
    model.listeners.push_back(std::move(l));
  }
  const auto& triangles = get_array(j, "excitation_triangles", origin);
  for (size_t i = 0; i < triangles.size(); ++i) {
    const std::string w = fmt::format("{}: excitation_triangles[{}]", origin, i);
    const auto& tj = triangles[i];
    if (!tj.is_array() || tj.size() != 3)
      throw Error(w + ": must be an array of 3 excitation indices");
    std::array<int, 3> t{};
    for (size_t k = 0; k < 3; ++k) {
      const double x = tj[k].is_number() ? tj[k].get<double>() : -1.0;
      if (!(x == std::floor(x) && x >= 0 && x < static_cast<double>(model.excitations.size())))
        throw Error(fmt::format("{}: {} is not the index of an excitation (0 .. {})", w,
                                tj[k].dump(), static_cast<int>(model.excitations.size()) - 1));
      t[k] = static_cast<int>(x);
    }
    model.excitation_triangles.push_back(t);
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
