// The `mesh2dsp` Python module: the library API (analysis/analysis.hpp, emit/emitters.hpp,
// runtime/render/offline_render.hpp) with NumPy arrays in and out. Thin: every check and every
// message is the library's, so an error raises mesh2dsp.Error with the CLI's own message.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <fmt/format.h>

#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "analysis/analysis.hpp"
#include "emit/emitters.hpp"
#include "fem/mesh_units.hpp"
#include "modal/memory_estimate.hpp"
#ifdef MESH2DSP_HAVE_SLEPC
#include "modal/slepc_solve.hpp"
#endif
#include "modal/surface_shapes.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"
#include "reference_job.hpp"
#ifdef MESH2DSP_PYTHON_HAVE_RUNTIME
#include "runtime/jit/factory_cache.hpp"
#include "runtime/render/offline_render.hpp"
#endif
#ifdef MESH2DSP_PYTHON_HAVE_VALIDATE
#include "validate/recording_fit.hpp"
#include "validate/validate.hpp"
#endif

namespace py = pybind11;
using namespace py::literals;

namespace mesh2dsp {
namespace {

using Array = py::array_t<double>;

// One number per mode from the model's modes.
template <class Field>
Array per_mode(const ModalModel& m, Field field) {
  Array out(static_cast<py::ssize_t>(m.modes.size()));
  auto v = out.mutable_unchecked<1>();
  for (size_t n = 0; n < m.modes.size(); ++n) v(n) = field(m.modes[n]);
  return out;
}

// rows × modes from per-row gain vectors.
template <class Rows>
Array gain_matrix(const Rows& rows, size_t modes) {
  Array out({static_cast<py::ssize_t>(rows.size()), static_cast<py::ssize_t>(modes)});
  auto v = out.mutable_unchecked<2>();
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t n = 0; n < modes; ++n) v(r, n) = rows[r].gains[n];
  return out;
}

template <class Rows, class Vec>
Array row_vectors(const Rows& rows, Vec vec) {
  Array out({static_cast<py::ssize_t>(rows.size()), py::ssize_t{3}});
  auto v = out.mutable_unchecked<2>();
  for (size_t r = 0; r < rows.size(); ++r)
    for (int c = 0; c < 3; ++c) v(r, c) = vec(rows[r])[c];
  return out;
}

const SurfaceShapes& surface_of(const ModalModel& m) {
  if (!m.surface)
    throw Error("the model carries no surface data: analyse the mesh, or load a model written with "
                "surface data (save(path, surface_data=True), `mesh2dsp modes --surface-data`)");
  return *m.surface;
}

// The material keywords shared by analyze() and Model.retune(), as the CLI's overrides.
struct MaterialKeywords {
  std::optional<std::string> material;
  std::optional<double> youngs_modulus, poisson_ratio, density, rayleigh_mass, rayleigh_stiffness;

  void apply_to(AnalysisOptions& o) const {
    if (material) {
      o.material_name = *material;
      o.material_given = true;
    }
    o.material_overrides.youngs_modulus_pa = youngs_modulus;
    o.material_overrides.poisson_ratio = poisson_ratio;
    o.material_overrides.density_kg_m3 = density;
    o.material_overrides.rayleigh_mass_per_s = rayleigh_mass;
    o.material_overrides.rayleigh_stiffness_s = rayleigh_stiffness;
  }
};

std::vector<std::string> listener_texts(const std::vector<Eigen::Vector3d>& listeners) {
  std::vector<std::string> texts;
  for (const auto& p : listeners) texts.push_back(fmt::format("{:.17g},{:.17g},{:.17g}", p.x(), p.y(), p.z()));
  return texts;
}

// Equal-length channels -> a channels × frames float32 array.
py::array_t<float> channels_array(const std::vector<std::vector<float>>& channels) {
  const auto count = static_cast<py::ssize_t>(channels.size());
  const auto frames = static_cast<py::ssize_t>(count ? channels[0].size() : 0);
  py::array_t<float> out({count, frames});
  auto v = out.mutable_unchecked<2>();
  for (py::ssize_t c = 0; c < count; ++c)
    for (py::ssize_t i = 0; i < frames; ++i) v(c, i) = channels[c][i];
  return out;
}

using MeshArgument = std::variant<std::filesystem::path, std::pair<Eigen::MatrixXd, Eigen::MatrixXi>>;

ModalModel analyze_py(const MeshArgument& mesh, const MaterialKeywords& material, int modes, double fmin,
                      double fmax, int element_order, double scale, std::optional<std::string> units,
                      bool repair, std::optional<double> max_tet_volume, std::optional<double> surface_edge,
                      bool keep_surface, const std::string& resolution, const std::vector<std::string>& fix,
                      const std::string& excite, const std::vector<Eigen::Vector3d>& listeners,
                      const std::string& normalize, std::optional<std::string> name,
                      std::optional<std::string> max_memory, const std::string& solver) {
  AnalysisOptions o;
  material.apply_to(o);
  o.modes = modes;
  o.fmin_hz = fmin;
  o.fmax_hz = fmax;
  o.element_order = element_order;
  o.scale = scale;
  if (units) {
    const auto metres = unit_scale(*units);
    if (!metres) throw Error(fmt::format("--units: \"{}\" is not one of mm, cm, m, in", *units));
    if (scale != 1.0 && std::abs(scale / *metres - 1) > 1e-12)
      throw Error(fmt::format("--units {} means --scale {:g}, but --scale {:g} was given; give one of them",
                              *units, *metres, scale));
    o.scale = *metres;
  }
  o.repair = repair;
  o.max_tet_volume_m3 = max_tet_volume;
  o.surface_edge_m = surface_edge;
  o.keep_surface = keep_surface;
  o.resolution = resolution;
  o.fix = fix;
  o.excite = excite;
  o.listeners = listener_texts(listeners);
  o.normalize = normalize;
  if (name) o.name = *name;
  if (max_memory) o.max_memory_bytes = parse_memory_size(*max_memory);
  o.solver = solver;
  py::gil_scoped_release unlocked;  // minutes on a large mesh: other Python threads run meanwhile
  if (const auto* path = std::get_if<std::filesystem::path>(&mesh)) {
    o.input = path->string();
    return analyze(o);
  }
  const auto& [vertices, faces] = std::get<1>(mesh);
  if (vertices.cols() != 3 || faces.cols() != 3)
    throw Error(fmt::format("a surface is (vertices n x 3, faces m x 3); got {} x {} and {} x {}", vertices.rows(),
                            vertices.cols(), faces.rows(), faces.cols()));
  if (faces.size() > 0 && (faces.minCoeff() < 0 || faces.maxCoeff() >= vertices.rows()))
    throw Error(fmt::format("a face names vertex {} of {}", faces.minCoeff() < 0 ? faces.minCoeff() : faces.maxCoeff(),
                            vertices.rows()));
  return analyze(SurfaceMesh{vertices, faces}, o);
}

EmitSettings emit_settings(const std::string& excitations, const std::string& resonator, const std::string& author,
                           const std::string& license) {
  EmitSettings s;
  s.excitations = parse_excitations(excitations);
  if (resonator != "reson" && resonator != "modefilter")
    throw Error(fmt::format("--resonator: \"{}\" is not one of reson, modefilter", resonator));
  s.resonator = resonator == "modefilter" ? FaustResonator::modefilter : FaustResonator::reson;
  s.author = author;
  s.license = license;
  return s;
}

FaustVariant faust_variant(const std::string& variant) {
  if (variant == "instrument") return FaustVariant::instrument;
  if (variant == "effect") return FaustVariant::effect;
  if (variant == "library") return FaustVariant::library;
  throw Error(fmt::format("variant \"{}\" is not one of instrument, effect, library", variant));
}

#ifdef MESH2DSP_PYTHON_HAVE_RUNTIME
py::array_t<float> render_py(const std::variant<std::string, std::filesystem::path>& dsp, double seconds,
                             int sample_rate, const std::vector<std::string>& sets,
                             const std::vector<std::string>& triggers, std::optional<std::filesystem::path> input,
                             const std::vector<std::string>& faust_options, int opt_level, bool cache) {
  runtime::RenderJob job;
  if (const auto* path = std::get_if<std::filesystem::path>(&dsp)) {
    job.dsp_path = *path;
  } else {
    job.dsp_path = "program.dsp";
    job.dsp_source = std::get<std::string>(dsp);
  }
  job.duration_s = seconds;
  job.sample_rate_hz = sample_rate;
  job.input_path = input;
  for (const auto& s : sets) job.events.push_back(runtime::parse_set(s));
  for (const auto& t : triggers)
    for (auto& e : runtime::parse_trigger(t)) job.events.push_back(std::move(e));
  job.compile.faust_args = faust_options;
  job.compile.opt_level = opt_level;
  if (cache) job.compile.cache_directory = runtime::FactoryCache::default_directory();
  runtime::RenderedAudio audio;
  {
    py::gil_scoped_release unlocked;
    audio = runtime::render(job);
  }
  return channels_array(audio.channels);
}
#endif

py::dict material_dict(const Material& m) {
  return py::dict("name"_a = m.name, "density"_a = m.density_kg_m3, "youngs_modulus"_a = m.youngs_modulus_pa,
                  "poisson_ratio"_a = m.poisson_ratio, "rayleigh_mass"_a = m.rayleigh_mass_per_s,
                  "rayleigh_stiffness"_a = m.rayleigh_stiffness_s);
}

}  // namespace
}  // namespace mesh2dsp

PYBIND11_MODULE(_mesh2dsp, m) {  // the compiled part of the package (mesh2dsp/__init__.py)
  using namespace mesh2dsp;
  m.doc() = "mesh2dsp: a 3D object (surface mesh + material) -> its vibration modes -> modal sound code";
  m.attr("__version__") = MESH2DSP_VERSION;
#ifdef MESH2DSP_HAVE_SLEPC
  register_slepc_solver();  // solver="slepc": SLEPc on this process alone
#endif
  // Every mesh2dsp::Error (a bad mesh, option or file) raises mesh2dsp.Error with the message the
  // CLI prints after "mesh2dsp: error: ".
  py::register_exception<Error>(m, "Error", PyExc_RuntimeError);

  m.def("set_quiet", &set_quiet, "quiet"_a = true, "No progress lines and no notices on stderr (as mesh2dsp -q).");

  py::class_<ModalModel>(m, "Model", "A modal model: modes, excitation and listener gains, material, provenance.")
      .def_readwrite("name", &ModalModel::name)
      .def_property_readonly("frequencies_hz", [](const ModalModel& x) { return per_mode(x, [](auto& d) { return d.frequency_hz; }); })
      .def_property_readonly("damping_ratios", [](const ModalModel& x) { return per_mode(x, [](auto& d) { return d.damping_ratio; }); })
      .def_property_readonly("t60_s", [](const ModalModel& x) { return per_mode(x, [](auto& d) { return d.t60_s; }); })
      .def_property_readonly("eigenvalues", [](const ModalModel& x) { return per_mode(x, [](auto& d) { return d.eigenvalue; }); })
      .def_property_readonly("gains", [](const ModalModel& x) { return gain_matrix(x.excitations, x.modes.size()); },
                             "excitation points x modes: phi_n(x_k) . d_k (mass-normalised shapes)")
      .def_property_readonly("excitation_positions", [](const ModalModel& x) {
        return row_vectors(x.excitations, [](const ModalExcitation& e) { return e.position; });
      })
      .def_property_readonly("excitation_directions", [](const ModalModel& x) {
        return row_vectors(x.excitations, [](const ModalExcitation& e) { return e.direction; });
      })
      .def_property_readonly("excitation_vertices", [](const ModalModel& x) {
        std::vector<int> v;
        for (const auto& e : x.excitations) v.push_back(e.vertex);
        return v;
      })
      .def_property_readonly("listener_positions", [](const ModalModel& x) {
        return row_vectors(x.listeners, [](const ModalListener& l) { return l.position; });
      })
      .def_property_readonly("listener_gains", [](const ModalModel& x) { return gain_matrix(x.listeners, x.modes.size()); },
                             "listeners x modes: radiated pressure per unit modal velocity (O'Brien eq. 10)")
      .def_property_readonly("listener_delays_s", [](const ModalModel& x) {
        std::vector<double> d;
        for (const auto& l : x.listeners) d.push_back(l.delay_s);
        return d;
      })
      .def_property_readonly("material", [](const ModalModel& x) { return material_dict(x.material); })
      .def_property_readonly("mesh", [](const ModalModel& x) {
        return py::dict("source"_a = x.mesh.source, "vertices"_a = x.mesh.vertices, "tetrahedra"_a = x.mesh.tetrahedra,
                        "element_order"_a = x.mesh.element_order, "scale"_a = x.mesh.scale);
      })
      .def_property_readonly("has_surface", [](const ModalModel& x) { return static_cast<bool>(x.surface); })
      .def_property_readonly("surface_vertices", [](const ModalModel& x) -> Eigen::MatrixXd { return surface_of(x).positions; })
      .def_property_readonly("surface_normals", [](const ModalModel& x) -> Eigen::MatrixXd { return surface_of(x).normals; })
      .def_property_readonly("surface_faces", [](const ModalModel& x) -> Eigen::MatrixXi { return surface_of(x).triangles; })
      .def_property_readonly("surface_gains", [](const ModalModel& x) -> Eigen::MatrixXd { return surface_of(x).gains; },
                             "surface vertices x modes: phi_n . normal")
      .def_property_readonly(
          "surface_shapes",
          [](const ModalModel& x) {
            // 3V × N (x, y, z interleaved) -> V × 3 × N.
            const SurfaceShapes& s = surface_of(x);
            const auto vertices = static_cast<py::ssize_t>(s.vertex_count()), modes = static_cast<py::ssize_t>(s.mode_count());
            Array out({vertices, py::ssize_t{3}, modes});
            auto v = out.mutable_unchecked<3>();
            for (py::ssize_t i = 0; i < vertices; ++i)
              for (py::ssize_t c = 0; c < 3; ++c)
                for (py::ssize_t n = 0; n < modes; ++n) v(i, c, n) = s.displacement(3 * i + c, n);
            return out;
          },
          "surface vertices x 3 x modes: the mode shapes' displacement at the surface")
      .def(
          "retune",
          [](const ModalModel& x, std::optional<std::string> material, std::optional<double> youngs_modulus,
             std::optional<double> poisson_ratio, std::optional<double> density, std::optional<double> rayleigh_mass,
             std::optional<double> rayleigh_stiffness) {
            AnalysisOptions o;
            MaterialKeywords{material, youngs_modulus, poisson_ratio, density, rayleigh_mass, rayleigh_stiffness}.apply_to(o);
            ModalModel out = x;
            retune(out, o);
            return out;
          },
          "material"_a = py::none(), "youngs_modulus"_a = py::none(), "poisson_ratio"_a = py::none(),
          "density"_a = py::none(), "rayleigh_mass"_a = py::none(), "rayleigh_stiffness"_a = py::none(),
          "The model re-tuned exactly to another material (no re-solve), as `mesh2dsp modes M.modal.json --material`.")
      .def(
          "save",
          [](const ModalModel& x, const std::filesystem::path& path, bool surface_data) {
            ModalModel out = x;
            if (!surface_data) out.surface.reset();
            else surface_of(x);
            write_modal_model(path, out);
          },
          "path"_a, "surface_data"_a = false,
          "Writes the .modal.json (and, with surface_data, <name>.surface.bin beside it), atomically.")
      .def("to_json", [](const ModalModel& x) { return modal_model_to_json(x); })
      .def("__repr__", [](const ModalModel& x) {
        return fmt::format("<mesh2dsp.Model '{}': {} modes {:.1f}-{:.1f} Hz, {}, {} excitation point(s), {} listener(s)>",
                           x.name, x.modes.size(), x.modes.empty() ? 0.0 : x.modes.front().frequency_hz,
                           x.modes.empty() ? 0.0 : x.modes.back().frequency_hz, x.material.name, x.excitations.size(),
                           x.listeners.size());
      });

  m.def("load", [](const std::filesystem::path& path) { return read_modal_model(path); }, "path"_a,
        "Reads a .modal.json (and its surface data when it names some).");

  m.def(
      "analyze",
      [](const MeshArgument& mesh, std::optional<std::string> material, int modes, double fmin, double fmax,
         std::optional<int> element_order, double scale, std::optional<std::string> units, bool repair,
         std::optional<double> max_tet_volume, std::optional<double> surface_edge, bool keep_surface,
         const std::string& resolution, const std::vector<std::string>& fix, const std::string& excite,
         const std::vector<Eigen::Vector3d>& listeners, const std::string& normalize, std::optional<std::string> name,
         std::optional<std::string> max_memory, const std::string& solver, std::optional<double> youngs_modulus,
         std::optional<double> poisson_ratio, std::optional<double> density, std::optional<double> rayleigh_mass,
         std::optional<double> rayleigh_stiffness) {
        const MaterialKeywords m{material, youngs_modulus, poisson_ratio, density, rayleigh_mass, rayleigh_stiffness};
        // None: the mesh's order (cubic for a walled body meshed for the physics, else quadratic).
        return analyze_py(mesh, m, modes, fmin, fmax, element_order.value_or(0), scale, units, repair, max_tet_volume,
                          surface_edge, keep_surface, resolution, fix, excite, listeners, normalize, name,
                          max_memory, solver);
      },
      "mesh"_a, "material"_a = py::none(), "modes"_a = 50, "fmin"_a = 20.0, "fmax"_a = 20000.0, "element_order"_a = py::none(),
      "scale"_a = 1.0, "units"_a = py::none(), "repair"_a = false, "max_tet_volume"_a = py::none(),
      "surface_edge"_a = py::none(), "keep_surface"_a = false, "resolution"_a = "modes",
      "fix"_a = std::vector<std::string>{}, "excite"_a = "auto:8", "listeners"_a = std::vector<Eigen::Vector3d>{},
      "normalize"_a = "physical", "name"_a = py::none(), "max_memory"_a = py::none(), "solver"_a = "default",
      "youngs_modulus"_a = py::none(), "poisson_ratio"_a = py::none(), "density"_a = py::none(),
      "rayleigh_mass"_a = py::none(), "rayleigh_stiffness"_a = py::none(),
      "The modal model of a mesh file (a path; a .modal.json is read and re-tuned to `material`) or of a "
      "surface given as (vertices n x 3, faces m x 3). Keywords are `mesh2dsp modes`'s options (material "
      "default steel; listeners as (x, y, z) in metres).");

  m.def(
      "emit_faust",
      [](const ModalModel& model, const std::string& variant, const std::string& excitations,
         const std::string& resonator, const std::string& author, const std::string& license,
         const std::string& name) {
        return emit_faust(model, faust_variant(variant), emit_settings(excitations, resonator, author, license), name);
      },
      "model"_a, "variant"_a = "instrument", "excitations"_a = "impact,hammer", "resonator"_a = "reson",
      "author"_a = "mesh2dsp", "license"_a = "CC0-1.0", "name"_a = "",
      "The Faust program: instrument (strike UI), effect (audio in is the force) or library.");
  const auto emit_header = [](const ModalModel& model, const std::string& author, const std::string& license,
                              const std::string& name) {
    return emit_c_header(model, emit_settings("impact,hammer", "reson", author, license), name);
  };
  m.def("emit_cpp", emit_header, "model"_a, "author"_a = "mesh2dsp", "license"_a = "CC0-1.0", "name"_a = "",
        "The dependency-free C++ header (prepare/reset/strike/process).");
  m.def("emit_c", emit_header, "model"_a, "author"_a = "mesh2dsp", "license"_a = "CC0-1.0", "name"_a = "",
        "The same header, which compiles as C too.");

  m.def(
      "reference",
      [](const std::filesystem::path& mesh, std::optional<std::string> material, double duration,
         const std::string& strike, const std::vector<Eigen::Vector3d>& listeners, const std::string& force,
         double force_amplitude, int sample_rate, int oversampling, std::optional<double> dt, bool stereo,
         double scale, std::optional<int> element_order, std::optional<double> max_tet_volume, const std::vector<std::string>& fix,
         bool single_precision) {
        ReferenceJob job;
        MaterialKeywords{material}.apply_to(job.analysis);
        job.analysis.input = mesh.string();
        job.analysis.scale = scale;
        job.analysis.element_order = element_order.value_or(0);
        job.analysis.max_tet_volume_m3 = max_tet_volume;
        job.analysis.fix = fix;
        job.analysis.listeners = listener_texts(listeners);
        job.duration_s = duration;
        job.strike = strike;
        job.strike_given = true;
        job.force = force;
        job.force_amplitude = force_amplitude;
        job.sample_rate_hz = sample_rate;
        job.oversampling = oversampling;
        job.dt_s = dt;
        job.stereo = stereo;
        job.single_precision = single_precision;
        check_analysis_options(job.analysis);
        ReferenceRender run;
        {
          py::gil_scoped_release unlocked;
          run = render_reference_job(job);
        }
        return channels_array(run.result.channels);
      },
      "mesh"_a, "material"_a = py::none(), "duration"_a = 1.0, "strike"_a = "auto",
      "listeners"_a = std::vector<Eigen::Vector3d>{}, "force"_a = "cosine:0.0001", "force_amplitude"_a = 1.0,
      "sample_rate"_a = 48000, "oversampling"_a = 0, "dt"_a = py::none(), "stereo"_a = false, "scale"_a = 1.0,
      "element_order"_a = py::none(), "max_tet_volume"_a = py::none(), "fix"_a = std::vector<std::string>{},
      "single_precision"_a = true,
      "The reference render (`mesh2dsp reference`): the full FEM in time radiated to the listeners "
      "(default 0.5 m above the object): channels x frames float32, in O'Brien's eq. 10 units (Pa m).");

#ifdef MESH2DSP_PYTHON_HAVE_VALIDATE
  m.def(
      "validate",
      [](std::optional<std::filesystem::path> mesh, std::optional<std::filesystem::path> model,
         std::optional<std::filesystem::path> dsp, std::optional<std::filesystem::path> reference,
         const std::filesystem::path& report, std::optional<std::string> material, const std::string& strike,
         const std::vector<Eigen::Vector3d>& listeners, double duration, bool analytic) {
        ValidateOptions o;
        MaterialKeywords{material}.apply_to(o.analysis);
        if (mesh) o.analysis.input = mesh->string();
        if (model) o.model = model->string();
        if (dsp) o.dsp = dsp->string();
        if (reference) o.reference = reference->string();
        o.report = report.string();
        o.strike = strike;
        o.analysis.listeners = listener_texts(listeners);
        o.duration_s = duration;
        o.analytic = analytic;
        o.compile.cache_directory = runtime::FactoryCache::default_directory();
        ValidationVerdict verdict;
        {
          py::gil_scoped_release unlocked;
          verdict = validate_model(o);
        }
        return py::make_tuple(verdict.passed, verdict.text);
      },
      "mesh"_a = py::none(), "model"_a = py::none(), "dsp"_a = py::none(), "reference"_a = py::none(),
      "report"_a = "validate-report", "material"_a = py::none(), "strike"_a = "", 
      "listeners"_a = std::vector<Eigen::Vector3d>{}, "duration"_a = 0.25, "analytic"_a = false,
      "`mesh2dsp validate`: (passed, verdict text); the report is written to `report`. analytic=True "
      "compares the model with the continuum theory of a bar or a thin plate.");
  m.def(
      "fit",
      [](const ModalModel& model, const py::list& references, std::optional<double> sample_rate,
         double frequency_tolerance, double min_explained) {
        // Each reference: a sound file (every channel), or samples (1-D, or channels x frames) at sample_rate.
        std::vector<validate::Recording> recordings;
        for (std::size_t i = 0; i < references.size(); ++i) {
          const py::handle item = references[i];
          if (py::isinstance<py::array>(item)) {
            if (!sample_rate || !(*sample_rate > 0))
              throw Error("fit: samples given as an array need sample_rate (Hz)");
            const auto a = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(item);
            if (!a || a.ndim() < 1 || a.ndim() > 2) throw Error("fit: a reference array is 1-D or channels x frames");
            const py::ssize_t channels = a.ndim() == 1 ? 1 : a.shape(0), frames = a.shape(a.ndim() - 1);
            for (py::ssize_t c = 0; c < channels; ++c) {
              std::vector<float> x(a.data() + c * frames, a.data() + (c + 1) * frames);
              recordings.push_back({fmt::format("reference {}{}", i, channels > 1 ? fmt::format(" ch{}", c) : ""),
                                    std::move(x), *sample_rate});
            }
          } else {
            for (auto& r : validate::read_recordings(py::str(item).cast<std::string>())) recordings.push_back(std::move(r));
          }
        }
        validate::FitSettings settings;
        settings.tolerance = frequency_tolerance / 100;
        settings.pair_spread = std::max(settings.pair_spread, settings.tolerance);
        settings.min_explained = min_explained / 100;
        validate::FitResult r;
        {
          py::gil_scoped_release unlocked;
          r = validate::fit_model(model, recordings, settings);
        }
        if (!r.same_object) throw Error(r.verdict);
        py::list rows;
        for (const auto& row : r.rows)
          rows.append(py::dict("recording"_a = row.recording, "modes"_a = row.modes, "model_hz"_a = row.model_hz,
                               "fitted_hz"_a = row.fitted_hz, "recorded_hz"_a = row.recorded_hz,
                               "error"_a = row.error, "model_t60_s"_a = row.model_t60_s,
                               "recorded_t60_s"_a = row.decay.measured ? py::cast(row.decay.fit.t60_s) : py::none(),
                               "t60_range_db"_a = row.decay.fit.fit_range_db));
        return py::dict("model"_a = r.fitted, "frequency_scale"_a = r.frequency_scale,
                        "youngs_modulus_scale"_a = r.stiffness_scale,
                        "rayleigh_mass"_a = r.fitted.material.rayleigh_mass_per_s,
                        "rayleigh_stiffness"_a = r.fitted.material.rayleigh_stiffness_s,
                        "damping_fitted"_a = r.damping.fitted, "matched"_a = r.match.matched,
                        "considered"_a = r.match.considered, "verdict"_a = r.verdict, "rows"_a = rows,
                        "notes"_a = r.notes, "flags"_a = validate::material_flags(r.fitted.material),
                        "table"_a = validate::fit_table(r));
      },
      "model"_a, "references"_a, "sample_rate"_a = py::none(), "frequency_tolerance"_a = 0.5,
      "min_explained"_a = 60.0,
      "`mesh2dsp fit`: one E/rho scale and Rayleigh alpha, beta fitted to recordings of the object (paths, "
      "or numpy arrays at sample_rate; every channel is one recording, all fitted jointly). Returns a dict: "
      "'model' (re-tuned exactly, no re-solve), 'frequency_scale', 'youngs_modulus_scale', 'rayleigh_mass', "
      "'rayleigh_stiffness', 'rows' (per matched partial), 'flags', 'table', 'verdict'. Raises mesh2dsp.Error "
      "when the recordings do not look like this object.");
#endif

#ifdef MESH2DSP_PYTHON_HAVE_RUNTIME
  m.def("render", &render_py, "dsp"_a, "seconds"_a = 3.0, "sample_rate"_a = 48000,
        "sets"_a = std::vector<std::string>{}, "triggers"_a = std::vector<std::string>{}, "input"_a = py::none(),
        "faust_options"_a = std::vector<std::string>{}, "opt_level"_a = 0, "cache"_a = true,
        "JIT-compiles a Faust program (its text, or a pathlib.Path to a .dsp) and renders it offline: "
        "channels x frames float32. sets/triggers as `mesh2dsp render --set/--trigger` (e.g. \"gate@0\").");
#endif
}
