#include "modal/surface_shapes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

#include "modal/excitation.hpp"
#include "modal/modal_model.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace mesh2dsp {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the surface sidecar is written little-endian by a straight copy");

constexpr char kMagic[8] = {'M', '2', 'D', 'S', 'U', 'R', 'F', '1'};

template <class T>
void put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

class Reader {
 public:
  Reader(const std::string& bytes, std::string origin) : bytes_(bytes), origin_(std::move(origin)) {}
  template <class T>
  T take() {
    if (offset_ + sizeof(T) > bytes_.size())
      throw Error(fmt::format("{}: surface data file is truncated", origin_));
    T value;
    std::memcpy(&value, bytes_.data() + offset_, sizeof(T));
    offset_ += sizeof(T);
    return value;
  }
  bool at_end() const { return offset_ == bytes_.size(); }

 private:
  const std::string& bytes_;
  std::string origin_;
  size_t offset_ = 0;
};

}  // namespace

SurfaceShapes surface_shapes(const TetMesh& tets, const Eigen::MatrixXd& shapes,
                             const std::string& normalization) {
  // The surface vertices in tet-mesh order, renumbered 0..V-1 for the triangles.
  std::vector<int> index(tets.vertices.rows(), -1);
  for (int f = 0; f < tets.surface_faces.rows(); ++f)
    for (int k = 0; k < 3; ++k) index[tets.surface_faces(f, k)] = 0;
  SurfaceShapes s;
  for (int i = 0; i < static_cast<int>(index.size()); ++i)
    if (index[i] == 0) {
      index[i] = static_cast<int>(s.tet_vertex.size());
      s.tet_vertex.push_back(i);
    }
  const int v_count = static_cast<int>(s.tet_vertex.size());
  const int n_modes = static_cast<int>(shapes.cols());
  // The gains by the very function that makes the model's excitation gains: one definition of
  // φ·n (normal, normalisation) for the K points and for every surface point.
  const auto points = excitation_gains(s.tet_vertex, tets, shapes, normalization);
  s.positions.resize(v_count, 3);
  s.normals.resize(v_count, 3);
  s.gains.resize(v_count, n_modes);
  s.displacement.resize(3 * v_count, n_modes);
  for (int v = 0; v < v_count; ++v) {
    s.positions.row(v) = points[v].position.transpose();
    s.normals.row(v) = points[v].direction.transpose();
    for (int n = 0; n < n_modes; ++n) s.gains(v, n) = points[v].gains[n];
    s.displacement.middleRows(3 * v, 3) = shapes.middleRows(3 * s.tet_vertex[v], 3);
  }
  s.triangles.resize(tets.surface_faces.rows(), 3);
  for (int f = 0; f < tets.surface_faces.rows(); ++f)
    for (int k = 0; k < 3; ++k) s.triangles(f, k) = index[tets.surface_faces(f, k)];
  return s;
}

SurfaceShapes select_surface_modes(const SurfaceShapes& surface, const std::vector<size_t>& keep) {
  SurfaceShapes s = surface;
  s.gains.resize(surface.gains.rows(), static_cast<Eigen::Index>(keep.size()));
  s.displacement.resize(surface.displacement.rows(), static_cast<Eigen::Index>(keep.size()));
  for (size_t i = 0; i < keep.size(); ++i) {
    s.gains.col(i) = surface.gains.col(keep[i]);
    s.displacement.col(i) = surface.displacement.col(keep[i]);
  }
  return s;
}

std::string surface_file_name(const std::filesystem::path& model_path) {
  std::string name = model_path.filename().string();
  for (const char* suffix : {".modal.json", ".json", ".JSON"})
    if (name.ends_with(suffix)) {
      name.resize(name.size() - std::strlen(suffix));
      break;
    }
  return name + ".surface.bin";
}

std::string encode_surface_shapes(const SurfaceShapes& s) {
  const int v_count = s.vertex_count(), n_modes = s.mode_count();
  const int t_count = static_cast<int>(s.triangles.rows());
  std::string out(kMagic, sizeof kMagic);
  for (uint32_t x : {uint32_t(v_count), uint32_t(t_count), uint32_t(n_modes), uint32_t(0)})
    put(out, x);
  for (int v = 0; v < v_count; ++v)
    for (int c = 0; c < 3; ++c) put(out, static_cast<float>(s.positions(v, c)));
  for (int v = 0; v < v_count; ++v)
    for (int c = 0; c < 3; ++c) put(out, static_cast<float>(s.normals(v, c)));
  for (int t = 0; t < t_count; ++t)
    for (int c = 0; c < 3; ++c) put(out, static_cast<uint32_t>(s.triangles(t, c)));
  for (int v = 0; v < v_count; ++v) put(out, static_cast<int32_t>(s.tet_vertex[v]));
  for (int n = 0; n < n_modes; ++n)
    for (int v = 0; v < v_count; ++v) put(out, static_cast<float>(s.gains(v, n)));
  std::vector<double> scale(n_modes);
  for (int n = 0; n < n_modes; ++n) {
    scale[n] = s.displacement.col(n).cwiseAbs().maxCoeff();
    put(out, static_cast<float>(scale[n]));
  }
  for (int n = 0; n < n_modes; ++n)
    for (int i = 0; i < 3 * v_count; ++i) {
      const double q = scale[n] > 0 ? std::round(s.displacement(i, n) / scale[n] * 32767.0) : 0.0;
      put(out, static_cast<int16_t>(std::clamp(q, -32767.0, 32767.0)));
    }
  return out;
}

void write_surface_shapes(const std::filesystem::path& path, const SurfaceShapes& surface) {
  const std::string bytes = encode_surface_shapes(surface);
  write_file_atomically(path, [&](std::ostream& out) { out.write(bytes.data(), bytes.size()); });
}

SurfaceShapes read_surface_shapes(const std::filesystem::path& path, int expected_modes) {
  const std::string origin = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot read the surface data {}", origin));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw Error(fmt::format("{}: not a mesh2dsp surface data file", origin));
  Reader r(bytes, origin);
  for (size_t i = 0; i < sizeof kMagic; ++i) r.take<char>();
  const auto v_count = r.take<uint32_t>(), t_count = r.take<uint32_t>(),
             n_modes = r.take<uint32_t>();
  r.take<uint32_t>();
  // Sizes checked against the file before anything is allocated from them.
  const uint64_t need = 24 + uint64_t(v_count) * (12 + 12 + 4) + uint64_t(t_count) * 12 +
                        uint64_t(n_modes) * (4 * uint64_t(v_count) + 4 + 6 * uint64_t(v_count));
  if (need != bytes.size())
    throw Error(fmt::format("{}: {} bytes, expected {} for {} vertices, {} triangles, {} modes",
                            origin, bytes.size(), need, v_count, t_count, n_modes));
  if (expected_modes >= 0 && static_cast<int>(n_modes) != expected_modes)
    throw Error(fmt::format("{}: {} modes, the model has {}", origin, n_modes, expected_modes));
  SurfaceShapes s;
  s.positions.resize(v_count, 3);
  s.normals.resize(v_count, 3);
  s.triangles.resize(t_count, 3);
  s.tet_vertex.resize(v_count);
  s.gains.resize(v_count, n_modes);
  s.displacement.resize(3 * v_count, n_modes);
  for (uint32_t v = 0; v < v_count; ++v)
    for (int c = 0; c < 3; ++c) s.positions(v, c) = r.take<float>();
  for (uint32_t v = 0; v < v_count; ++v)
    for (int c = 0; c < 3; ++c) s.normals(v, c) = r.take<float>();
  for (uint32_t t = 0; t < t_count; ++t)
    for (int c = 0; c < 3; ++c) {
      const auto k = r.take<uint32_t>();
      if (k >= v_count) throw Error(fmt::format("{}: triangle {} refers to a missing vertex", origin, t));
      s.triangles(t, c) = static_cast<int>(k);
    }
  for (uint32_t v = 0; v < v_count; ++v) s.tet_vertex[v] = r.take<int32_t>();
  for (uint32_t n = 0; n < n_modes; ++n)
    for (uint32_t v = 0; v < v_count; ++v) s.gains(v, n) = r.take<float>();
  std::vector<double> scale(n_modes);
  for (auto& x : scale) x = r.take<float>();
  for (uint32_t n = 0; n < n_modes; ++n)
    for (uint32_t i = 0; i < 3 * v_count; ++i) s.displacement(i, n) = r.take<int16_t>() * scale[n] / 32767.0;
  if (!s.positions.allFinite() || !s.gains.allFinite() || !s.displacement.allFinite())
    throw Error(fmt::format("{}: surface data holds a number that is not finite", origin));
  return s;
}

ModalModel surface_excitation_model(const ModalModel& model, const SurfaceShapes& surface) {
  if (surface.mode_count() != static_cast<int>(model.modes.size()))
    throw Error(fmt::format("the surface data has {} modes, the model {}", surface.mode_count(),
                            model.modes.size()));
  ModalModel out = model;
  out.surface.reset();
  out.excitations.clear();
  for (int v = 0; v < surface.vertex_count(); ++v) {
    ModalExcitation e;
    e.vertex = surface.tet_vertex[v];
    e.position = surface.positions.row(v).transpose();
    e.direction = surface.normals.row(v).transpose();
    e.gains.resize(surface.mode_count());
    for (int n = 0; n < surface.mode_count(); ++n) e.gains[n] = surface.gains(v, n);
    out.excitations.push_back(std::move(e));
  }
  out.excitation_triangles.clear();
  for (int t = 0; t < surface.triangles.rows(); ++t)
    out.excitation_triangles.push_back(
        {surface.triangles(t, 0), surface.triangles(t, 1), surface.triangles(t, 2)});
  return out;
}

}  // namespace mesh2dsp
