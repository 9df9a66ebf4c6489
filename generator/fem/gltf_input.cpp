#include "fem/gltf_input.hpp"

#include <fmt/format.h>
#include <tiny_gltf.h>

#include <Eigen/Geometry>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <system_error>

#include "util/error.hpp"

namespace mesh2dsp {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& path, const std::string& message) {
  throw Error(fmt::format("{}: {}", path.string(), message));
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// Images carry nothing a vibration analysis needs: accept them unread.
bool skip_image(tinygltf::Image*, const int, std::string*, std::string*, int, int,
                const unsigned char*, int, void*) {
  return true;
}

// tinygltf's own reader opens whatever a buffer URI names and sizes it with tellg: a URI that
// resolves to a directory (or a FIFO, or a device) gives tellg's -1 and a resize to 2^63 bytes
// (found by the gltf fuzzer). Ours reads regular files only, sized by the file system.
bool read_regular_file(std::vector<unsigned char>* out, std::string* err, const std::string& name,
                       void*) {
  std::error_code kind_error, size_error;
  const bool regular = fs::is_regular_file(fs::path(name), kind_error);
  const auto size = regular ? fs::file_size(fs::path(name), size_error) : 0;
  if (!regular || kind_error || size_error) {
    if (err) *err += "'" + name + "' is not a regular file\n";
    return false;
  }
  std::ifstream in(name, std::ios::binary);
  out->resize(static_cast<std::size_t>(size));
  if (!in || !in.read(reinterpret_cast<char*>(out->data()), static_cast<std::streamsize>(size))) {
    if (err) *err += "cannot read '" + name + "'\n";
    return false;
  }
  return true;
}

// glTF URIs are not shell words: no expansion (tinygltf 2.7 agrees; this keeps it so).
std::string unexpanded(const std::string& name, void*) { return name; }

// The node's local transform: its matrix, or translation · rotation · scale (glTF 2.0 §5.25).
Eigen::Matrix4d local_transform(const tinygltf::Node& node) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  if (node.matrix.size() == 16) {
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) m(r, c) = node.matrix[static_cast<std::size_t>(4 * c + r)];
    return m;  // column-major in the file
  }
  Eigen::Affine3d a = Eigen::Affine3d::Identity();
  if (node.translation.size() == 3)
    a.translate(Eigen::Vector3d(node.translation[0], node.translation[1], node.translation[2]));
  if (node.rotation.size() == 4)  // x, y, z, w
    a.rotate(Eigen::Quaterniond(node.rotation[3], node.rotation[0], node.rotation[1],
                                node.rotation[2])
                 .normalized());
  if (node.scale.size() == 3) a.scale(Eigen::Vector3d(node.scale[0], node.scale[1], node.scale[2]));
  return a.matrix();
}

// Reads accessor `index` element by element, with every offset checked against its buffer.
class AccessorReader {
 public:
  AccessorReader(const fs::path& path, const tinygltf::Model& model, int index, const char* what)
      : path_(path), what_(what) {
    if (index < 0 || index >= static_cast<int>(model.accessors.size()))
      fail(path, fmt::format("{} accessor {} does not exist", what, index));
    const auto& a = model.accessors[static_cast<std::size_t>(index)];
    if (a.sparse.isSparse)
      fail(path, fmt::format("{} accessor {} is sparse (not supported)", what, index));
    if (a.bufferView < 0 || a.bufferView >= static_cast<int>(model.bufferViews.size()))
      fail(path, fmt::format("{} accessor {} has no buffer view", what, index));
    const auto& view = model.bufferViews[static_cast<std::size_t>(a.bufferView)];
    if (view.buffer < 0 || view.buffer >= static_cast<int>(model.buffers.size()))
      fail(path, fmt::format("{} accessor {}: its buffer view has no buffer", what, index));
    const auto& buffer = model.buffers[static_cast<std::size_t>(view.buffer)].data;
    components_ = tinygltf::GetNumComponentsInType(static_cast<std::uint32_t>(a.type));
    component_bytes_ = tinygltf::GetComponentSizeInBytes(static_cast<std::uint32_t>(a.componentType));
    if (components_ <= 0 || component_bytes_ <= 0)
      fail(path, fmt::format("{} accessor {} has an unknown type", what, index));
    type_ = a.componentType;
    count_ = a.count;
    const std::size_t element = static_cast<std::size_t>(components_ * component_bytes_);
    stride_ = view.byteStride ? view.byteStride : element;
    const std::size_t begin = view.byteOffset + a.byteOffset;
    const std::size_t needed = count_ == 0 ? 0 : (count_ - 1) * stride_ + element;
    if (view.byteOffset + view.byteLength > buffer.size() || a.byteOffset > view.byteLength ||
        needed > view.byteLength - a.byteOffset)
      fail(path, fmt::format("{} accessor {} reaches past the end of its buffer ({} elements of "
                             "{} bytes from byte {}, buffer of {} bytes)",
                             what, index, count_, element, begin, buffer.size()));
    data_ = buffer.data() + begin;
  }
  std::size_t count() const { return count_; }
  int components() const { return components_; }
  int component_type() const { return type_; }
  // Component k of element i, converted to double (integers as they are).
  double get(std::size_t i, int k) const {
    const unsigned char* p = data_ + i * stride_ + static_cast<std::size_t>(k * component_bytes_);
    switch (type_) {
      case TINYGLTF_COMPONENT_TYPE_BYTE: return static_cast<std::int8_t>(*p);
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return *p;
      case TINYGLTF_COMPONENT_TYPE_SHORT: return load<std::int16_t>(p);
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return load<std::uint16_t>(p);
      case TINYGLTF_COMPONENT_TYPE_INT: return load<std::int32_t>(p);
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: return load<std::uint32_t>(p);
      case TINYGLTF_COMPONENT_TYPE_FLOAT: return load<float>(p);
      case TINYGLTF_COMPONENT_TYPE_DOUBLE: return load<double>(p);
      default: fail(path_, fmt::format("{} accessor: unknown component type {}", what_, type_));
    }
  }

 private:
  template <class T>
  static double load(const unsigned char* p) {
    T v;  // glTF is little-endian, as every host mesh2dsp builds on
    std::memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
  }
  const fs::path& path_;
  const char* what_;
  const unsigned char* data_ = nullptr;
  std::size_t count_ = 0, stride_ = 0;
  int components_ = 0, component_bytes_ = 0, type_ = 0;
};

void add_primitive(const fs::path& path, const tinygltf::Model& model,
                   const tinygltf::Primitive& prim, const Eigen::Matrix4d& transform,
                   std::vector<Eigen::Vector3d>& soup) {
  const int mode = prim.mode < 0 ? TINYGLTF_MODE_TRIANGLES : prim.mode;
  if (mode != TINYGLTF_MODE_TRIANGLES && mode != TINYGLTF_MODE_TRIANGLE_STRIP &&
      mode != TINYGLTF_MODE_TRIANGLE_FAN)
    return;  // points and lines bound no volume
  if (prim.extensions.count("KHR_draco_mesh_compression"))
    fail(path, "Draco-compressed meshes (KHR_draco_mesh_compression) are not supported: export "
               "without compression");
  const auto position = prim.attributes.find("POSITION");
  if (position == prim.attributes.end()) fail(path, "a mesh primitive has no POSITION attribute");
  AccessorReader pos(path, model, position->second, "POSITION");
  if (pos.components() != 3 || pos.component_type() != TINYGLTF_COMPONENT_TYPE_FLOAT)
    fail(path, "POSITION must be float VEC3 (quantized positions are not supported)");
  std::vector<std::size_t> order;  // vertex indices in drawing order
  if (prim.indices >= 0) {
    AccessorReader idx(path, model, prim.indices, "index");
    if (idx.components() != 1) fail(path, "index accessor is not SCALAR");
    // glTF 2.0 §5.1.2 (accessor.componentType for indices): unsigned byte, short or int. A float
    // index could be NaN, which no range check catches (found by fuzzing).
    if (idx.component_type() != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE &&
        idx.component_type() != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
        idx.component_type() != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
      fail(path, "the index accessor's component type must be an unsigned integer (5121, 5123 or "
                 "5125), as glTF 2.0 requires");
    order.resize(idx.count());
    for (std::size_t i = 0; i < idx.count(); ++i) {
      const double v = idx.get(i, 0);
      if (!(v >= 0 && v < static_cast<double>(pos.count())))
        fail(path, fmt::format("index {} refers to vertex {}, but the primitive has {} vertices",
                               i, v, pos.count()));
      order[i] = static_cast<std::size_t>(v);
    }
  } else {
    order.resize(pos.count());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  }
  const Eigen::Matrix3d linear = transform.topLeftCorner<3, 3>();
  const Eigen::Vector3d shift = transform.topRightCorner<3, 1>();
  const bool mirrored = linear.determinant() < 0;
  auto corner = [&](std::size_t v) {
    const Eigen::Vector3d p(pos.get(v, 0), pos.get(v, 1), pos.get(v, 2));
    if (!p.allFinite()) fail(path, fmt::format("vertex {} has a coordinate that is not finite", v));
    return Eigen::Vector3d(linear * p + shift);
  };
  auto triangle = [&](std::size_t a, std::size_t b, std::size_t c) {
    if (a == b || b == c || a == c) return;  // strips join with degenerate triangles
    if (mirrored) std::swap(b, c);
    soup.push_back(corner(a));
    soup.push_back(corner(b));
    soup.push_back(corner(c));
  };
  if (mode == TINYGLTF_MODE_TRIANGLES) {
    if (order.size() % 3 != 0)
      fail(path, fmt::format("a triangle primitive has {} indices, not a multiple of 3", order.size()));
    for (std::size_t i = 0; i + 2 < order.size(); i += 3) triangle(order[i], order[i + 1], order[i + 2]);
  } else if (mode == TINYGLTF_MODE_TRIANGLE_STRIP) {
    // glTF 2.0 §3.7.2.1: triangle i is (i, i+1, i+2) for even i, (i+1, i, i+2) for odd i.
    for (std::size_t i = 0; i + 2 < order.size(); ++i)
      if (i % 2 == 0)
        triangle(order[i], order[i + 1], order[i + 2]);
      else
        triangle(order[i + 1], order[i], order[i + 2]);
  } else {
    for (std::size_t i = 1; i + 1 < order.size(); ++i) triangle(order[0], order[i], order[i + 1]);
  }
}

}  // namespace

std::vector<Eigen::Vector3d> read_gltf_triangles(const fs::path& path) {
  tinygltf::TinyGLTF loader;
  loader.SetImageLoader(skip_image, nullptr);
  // Anything that exists "exists", so a directory gets the reader's "not a regular file".
  loader.SetFsCallbacks({[](const std::string& name, void*) {
                           std::error_code ec;
                           return fs::exists(fs::path(name), ec);
                         },
                         unexpanded, read_regular_file, tinygltf::WriteWholeFile, nullptr});
  tinygltf::Model model;
  std::string err, warn;
  std::string ext = path.extension().string();
  for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  bool ok = false;
  try {
    ok = ext == ".glb" ? loader.LoadBinaryFromFile(&model, &err, &warn, path.string())
                       : loader.LoadASCIIFromFile(&model, &err, &warn, path.string());
  } catch (const std::exception& e) {
    err = e.what();
  }
  if (!ok)
    fail(path, fmt::format("not a readable glTF 2.0 file ({})",
                           err.empty() ? std::string("parse error") : trimmed(err)));
  for (const auto& required : model.extensionsRequired)
    if (required == "KHR_draco_mesh_compression" || required == "KHR_mesh_quantization" ||
        required == "EXT_meshopt_compression")
      fail(path, fmt::format("needs the glTF extension {}, which is not supported: export "
                             "without compression or quantization",
                             required));

  std::vector<Eigen::Vector3d> soup;
  auto add_mesh = [&](int mesh, const Eigen::Matrix4d& transform) {
    if (mesh < 0) return;
    if (mesh >= static_cast<int>(model.meshes.size()))
      fail(path, fmt::format("a node refers to mesh {}, which does not exist", mesh));
    for (const auto& prim : model.meshes[static_cast<std::size_t>(mesh)].primitives)
      add_primitive(path, model, prim, transform, soup);
  };
  const int scene = model.defaultScene >= 0 ? model.defaultScene : model.scenes.empty() ? -1 : 0;
  if (scene >= static_cast<int>(model.scenes.size()))
    fail(path, fmt::format("the default scene {} does not exist", scene));
  if (scene < 0) {
    // No scene: nothing says where the meshes are; take each once, untransformed.
    for (int m = 0; m < static_cast<int>(model.meshes.size()); ++m)
      add_mesh(m, Eigen::Matrix4d::Identity());
  } else {
    std::vector<int> depth(model.nodes.size(), 0);  // guards against cycles in a broken file
    std::function<void(int, const Eigen::Matrix4d&)> visit = [&](int n,
                                                                 const Eigen::Matrix4d& parent) {
      if (n < 0 || n >= static_cast<int>(model.nodes.size()))
        fail(path, fmt::format("node {} does not exist", n));
      if (depth[static_cast<std::size_t>(n)]++ > 0)
        fail(path, fmt::format("node {} is its own ancestor (a cycle in the node tree)", n));
      const auto& node = model.nodes[static_cast<std::size_t>(n)];
      const Eigen::Matrix4d transform = parent * local_transform(node);
      add_mesh(node.mesh, transform);
      for (const int child : node.children) visit(child, transform);
      --depth[static_cast<std::size_t>(n)];
    };
    for (const int root : model.scenes[static_cast<std::size_t>(scene)].nodes)
      visit(root, Eigen::Matrix4d::Identity());
  }
  if (soup.empty()) fail(path, "the glTF scene draws no triangles");
  return soup;
}

}  // namespace mesh2dsp
