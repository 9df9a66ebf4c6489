#include "fem/surface_mesh.hpp"

#include <fmt/format.h>
#include <tiny_obj_loader.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <numbers>
#include <numeric>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "fem/disjoint_sets.hpp"
#include "fem/gltf_input.hpp"
#include "fem/mesh_units.hpp"
#include "fem/surface_repair.hpp"
#include "fem/surface_shells.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

// Why our own STL/OFF/PLY readers: vertex indices must follow the file (`--excite vertex:I`
// names vertex I of the file), and general importers such as assimp re-order, split or merge
// vertices. These formats are small enough that a compact, fully guarded reader is simpler
// than taming an importer. OBJ goes through tinyobjloader (without its triangulation, which
// reads vertex positions through unchecked indices); we fan-triangulate and check indices.
// glTF goes through tinygltf (gltf_input.cpp); its vertices, split at UV and normal seams, are
// merged by exact position like STL's.

namespace mesh2dsp {
namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------------------------------------
// Small input helpers

[[noreturn]] void fail(const fs::path& path, const std::string& message) {
  throw Error(fmt::format("{}: {}", path.string(), message));
}

std::string read_file_bytes(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) fail(path, "no such file");
  if (fs::is_directory(path, ec)) fail(path, "is a directory, not a mesh file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open the file for reading");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail(path, "read error");
  return data;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

// Parses a whole token as a double (accepts a leading '+', "nan", "inf"). False if not a number.
bool parse_double(std::string_view t, double& out) {
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  if (t.empty()) return false;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  if (ec == std::errc::result_out_of_range) {
    // from_chars leaves `out` untouched on overflow: report it as not finite.
    out = std::numeric_limits<double>::infinity();
    return p == t.data() + t.size();
  }
  return ec == std::errc() && p == t.data() + t.size();
}

bool parse_int64(std::string_view t, long long& out) {
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  if (t.empty()) return false;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  return ec == std::errc() && p == t.data() + t.size();
}

// Whitespace-separated tokens with line numbers; `comment` starts a comment to end of line.
class Tokens {
 public:
  Tokens(std::string_view text, std::size_t offset, int first_line, char comment = '\0')
      : s_(text), pos_(offset), line_(first_line), comment_(comment) {}

  // Next token, or empty at the end of the text. line() is the token's line afterwards.
  std::string_view next() {
    skip();
    if (pos_ >= s_.size()) return {};
    const std::size_t b = pos_;
    while (pos_ < s_.size() && !is_space(s_[pos_]) && s_[pos_] != comment_) ++pos_;
    return s_.substr(b, pos_ - b);
  }
  bool at_end() {
    skip();
    return pos_ >= s_.size();
  }
  int line() const { return line_; }

 private:
  void skip() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
      } else if (is_space(c)) {
        ++pos_;
      } else if (comment_ != '\0' && c == comment_) {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }
  std::string_view s_;
  std::size_t pos_;
  int line_;
  char comment_;
};

// Splits the text into lines (without the line break), comments stripped, tokens split.
struct Line {
  int number = 0;  // 1-based
  std::vector<std::string_view> tokens;
};

std::vector<std::string_view> split_tokens(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    const std::size_t b = i;
    while (i < s.size() && !is_space(s[i])) ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

// Non-empty lines (after stripping `comment`-to-end-of-line) of the text.
std::vector<Line> nonempty_lines(std::string_view text, char comment) {
  std::vector<Line> lines;
  std::size_t pos = 0;
  int number = 0;
  while (pos < text.size()) {
    ++number;
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (comment != '\0') {
      const auto c = line.find(comment);
      if (c != std::string_view::npos) line = line.substr(0, c);
    }
    auto tokens = split_tokens(line);
    if (!tokens.empty()) lines.push_back({number, std::move(tokens)});
    pos = end + 1;
  }
  return lines;
}

std::string shorten(std::string_view token) {
  if (token.size() <= 40) return std::string(token);
  return std::string(token.substr(0, 37)) + "...";
}

// Appends polygon `poly` (indices into the file's vertices) as a triangle fan.
void add_fan(std::vector<Eigen::Vector3i>& tris, const std::vector<long long>& poly) {
  for (std::size_t k = 1; k + 1 < poly.size(); ++k)
    tris.emplace_back(static_cast<int>(poly[0]), static_cast<int>(poly[k]),
                      static_cast<int>(poly[k + 1]));
}

// Appends a triangle strip: triangle j is (j, j+1, j+2) for even j and (j+1, j, j+2) for odd
// j, so all share one orientation; triangles repeating a vertex (strip joins) are skipped.
void add_strip(std::vector<Eigen::Vector3i>& tris, const std::vector<long long>& strip) {
  for (std::size_t j = 0; j + 2 < strip.size(); ++j) {
    long long a = strip[j], b = strip[j + 1];
    const long long c = strip[j + 2];
    if (j % 2 == 1) std::swap(a, b);
    if (a == b || b == c || a == c) continue;
    tris.emplace_back(static_cast<int>(a), static_cast<int>(b), static_cast<int>(c));
  }
}

SurfaceMesh make_mesh(const std::vector<Eigen::Vector3d>& verts,
                      const std::vector<Eigen::Vector3i>& tris) {
  SurfaceMesh m;
  m.vertices.resize(static_cast<Eigen::Index>(verts.size()), 3);
  for (std::size_t i = 0; i < verts.size(); ++i)
    m.vertices.row(static_cast<Eigen::Index>(i)) = verts[i].transpose();
  m.faces.resize(static_cast<Eigen::Index>(tris.size()), 3);
  for (std::size_t i = 0; i < tris.size(); ++i)
    m.faces.row(static_cast<Eigen::Index>(i)) = tris[i].transpose();
  return m;
}

// ---------------------------------------------------------------------------------------------
// OBJ (tinyobjloader)

SurfaceMesh read_obj(const fs::path& path, const std::string& text) {
  // tinyobjloader silently turns an unparsable coordinate ("nan", "1.0.0") into 0: check the
  // `v` lines first so a bad coordinate is reported with its line.
  {
    std::size_t pos = 0;
    int number = 0;
    while (pos < text.size()) {
      ++number;
      std::size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      std::string_view line(text.data() + pos, end - pos);
      pos = end + 1;
      std::size_t b = 0;
      while (b < line.size() && (line[b] == ' ' || line[b] == '\t')) ++b;
      if (line.size() < b + 2 || line[b] != 'v' || (line[b + 1] != ' ' && line[b + 1] != '\t'))
        continue;
      const auto c = line.find('#');
      if (c != std::string_view::npos) line = line.substr(0, c);
      const auto tok = split_tokens(line.substr(b + 1));
      if (tok.size() < 3)
        fail(path,
             fmt::format("line {}: vertex needs 3 coordinates, found {}", number, tok.size()));
      for (int k = 0; k < 3; ++k) {
        double x;
        if (!parse_double(tok[k], x))
          fail(path, fmt::format("line {}: '{}' is not a number", number, shorten(tok[k])));
        if (!std::isfinite(x))
          fail(path, fmt::format("line {}: vertex coordinate '{}' is not finite", number,
                                 shorten(tok[k])));
      }
    }
  }

  tinyobj::ObjReaderConfig config;
  config.triangulate = false;  // its triangulation reads positions through unchecked indices
  config.vertex_color = false;
  tinyobj::ObjReader reader;
  if (!reader.ParseFromString(text, "", config)) {
    std::string err = reader.Error();
    while (!err.empty() && is_space(err.back())) err.pop_back();
    fail(path, fmt::format("not a readable OBJ file ({})", err.empty() ? "parse error" : err));
  }
  const auto& attrib = reader.GetAttrib();
  const long long nv = static_cast<long long>(attrib.vertices.size() / 3);
  std::vector<Eigen::Vector3d> verts(static_cast<std::size_t>(nv));
  for (long long i = 0; i < nv; ++i)
    verts[static_cast<std::size_t>(i)] = {attrib.vertices[3 * i], attrib.vertices[3 * i + 1],
                                          attrib.vertices[3 * i + 2]};
  std::vector<Eigen::Vector3i> tris;
  std::vector<long long> poly;
  long long face_number = 0;
  for (const auto& shape : reader.GetShapes()) {
    std::size_t offset = 0;
    for (const auto n : shape.mesh.num_face_vertices) {
      ++face_number;
      if (offset + n > shape.mesh.indices.size()) fail(path, "inconsistent face data");
      poly.clear();
      for (std::size_t k = 0; k < n; ++k) {
        const long long vi = shape.mesh.indices[offset + k].vertex_index;
        if (vi < 0 || vi >= nv)
          fail(path,
               fmt::format("face {} refers to vertex {} (1-based), but the file has {} vertices",
                           face_number, vi + 1, nv));
        poly.push_back(vi);
      }
      offset += n;
      if (n < 3) fail(path, fmt::format("face {} has only {} vertices", face_number, n));
      add_fan(tris, poly);
    }
  }
  return make_mesh(verts, tris);
}

// Little-endian uint32 at p, on any host.
std::uint32_t le32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return static_cast<std::uint32_t>(b[0]) | static_cast<std::uint32_t>(b[1]) << 8 |
         static_cast<std::uint32_t>(b[2]) << 16 | static_cast<std::uint32_t>(b[3]) << 24;
}

// ---------------------------------------------------------------------------------------------
// STL (ascii and binary). STL has no shared vertices: exactly equal positions are merged, in
// the order of their first appearance.

struct PositionHash {
  std::size_t operator()(const Eigen::Vector3d& p) const {
    std::uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int k = 0; k < 3; ++k) {
      h ^= std::bit_cast<std::uint64_t>(p[k]) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    }
    return static_cast<std::size_t>(h);
  }
};
struct PositionEq {
  bool operator()(const Eigen::Vector3d& a, const Eigen::Vector3d& b) const { return a == b; }
};

class VertexMerger {
 public:
  int add(Eigen::Vector3d p) {
    p = p.array() + 0.0;  // -0.0 → +0.0, so that equal positions hash equally
    auto [it, inserted] = index_.try_emplace(p, static_cast<int>(verts_.size()));
    if (inserted) verts_.push_back(p);
    return it->second;
  }
  const std::vector<Eigen::Vector3d>& vertices() const { return verts_; }
  void reserve(std::size_t n) {
    index_.reserve(n);
    verts_.reserve(n);
  }

 private:
  std::unordered_map<Eigen::Vector3d, int, PositionHash, PositionEq> index_;
  std::vector<Eigen::Vector3d> verts_;
};

SurfaceMesh read_stl_binary(const fs::path& path, const std::string& data) {
  if (data.size() < 84)
    fail(path, fmt::format("truncated binary STL: {} bytes, shorter than the 84-byte header",
                           data.size()));
  const std::uint32_t count = le32(data.data() + 80);
  const std::uint64_t needed = 84ull + 50ull * count;
  if (data.size() < needed)
    fail(path, fmt::format("truncated binary STL: the header announces {} triangles ({} bytes), "
                           "the file has {} bytes",
                           count, needed, data.size()));
  VertexMerger merger;
  merger.reserve(count / 2 + 3);
  std::vector<Eigen::Vector3i> tris;
  tris.reserve(count);
  for (std::uint32_t t = 0; t < count; ++t) {
    const char* rec = data.data() + 84 + 50ull * t + 12;  // skip the normal
    Eigen::Vector3i tri;
    for (int c = 0; c < 3; ++c) {
      Eigen::Vector3d p;
      for (int k = 0; k < 3; ++k) {
        p[k] = static_cast<double>(std::bit_cast<float>(le32(rec + 12 * c + 4 * k)));
      }
      if (!p.allFinite())
        fail(path, fmt::format("triangle {}: vertex coordinate is not finite ({}, {}, {})", t,
                               p.x(), p.y(), p.z()));
      tri[c] = merger.add(p);
    }
    tris.push_back(tri);
  }
  return make_mesh(merger.vertices(), tris);
}

SurfaceMesh read_stl_ascii(const fs::path& path, const std::string& text) {
  Tokens tok(text, 0, 1);
  VertexMerger merger;
  std::vector<Eigen::Vector3i> tris;
  std::vector<long long> poly;
  bool in_facet = false;
  int facet_line = 0;
  for (;;) {
    const auto t = tok.next();
    if (t.empty()) break;
    const std::string word = lower(std::string(t));
    if (word == "facet") {
      if (in_facet)
        fail(path, fmt::format("line {}: 'facet' inside a facet (missing 'endfacet')", tok.line()));
      in_facet = true;
      facet_line = tok.line();
      poly.clear();
    } else if (word == "vertex") {
      if (!in_facet) fail(path, fmt::format("line {}: 'vertex' outside a facet", tok.line()));
      Eigen::Vector3d p;
      for (int k = 0; k < 3; ++k) {
        const auto v = tok.next();
        double x;
        if (!parse_double(v, x))
          fail(path, fmt::format("line {}: expected a coordinate, found '{}'", tok.line(),
                                 v.empty() ? std::string("end of file") : shorten(v)));
        if (!std::isfinite(x))
          fail(path, fmt::format("line {}: vertex coordinate '{}' is not finite", tok.line(),
                                 shorten(v)));
        p[k] = x;
      }
      poly.push_back(merger.add(p));
    } else if (word == "endfacet") {
      if (!in_facet) fail(path, fmt::format("line {}: 'endfacet' without 'facet'", tok.line()));
      if (poly.size() < 3)
        fail(path, fmt::format("line {}: facet has {} vertices, needs 3", facet_line, poly.size()));
      add_fan(tris, poly);
      in_facet = false;
    }
    // everything else (solid, normal n n n, outer loop, endloop, endsolid name) carries no data
  }
  if (in_facet)
    fail(path, fmt::format("file ends inside the facet of line {} (truncated?)", facet_line));
  return make_mesh(merger.vertices(), tris);
}

SurfaceMesh read_stl(const fs::path& path, const std::string& data) {
  // Binary if the size matches the triangle count in the header (some binary files begin with
  // "solid" too); ascii if it starts with "solid"; binary otherwise (then checked for truncation).
  if (data.size() >= 84) {
    const std::uint32_t count = le32(data.data() + 80);
    if (84ull + 50ull * count == data.size()) return read_stl_binary(path, data);
  }
  std::size_t b = 0;
  while (b < data.size() && is_space(data[b])) ++b;
  if (data.size() - b >= 5 && lower(data.substr(b, 5)) == "solid" &&
      data.find('\0') == std::string::npos)
    return read_stl_ascii(path, data);
  return read_stl_binary(path, data);
}

// ---------------------------------------------------------------------------------------------
// glTF: a triangle soup (vertices split at UV and normal seams), merged like STL.

SurfaceMesh read_gltf(const fs::path& path) {
  const auto soup = read_gltf_triangles(path);
  VertexMerger merger;
  merger.reserve(soup.size() / 4 + 3);
  std::vector<Eigen::Vector3i> tris;
  tris.reserve(soup.size() / 3);
  for (std::size_t i = 0; i + 2 < soup.size(); i += 3) {
    Eigen::Vector3i t;
    for (int k = 0; k < 3; ++k) t[k] = merger.add(soup[i + static_cast<std::size_t>(k)]);  // in order
    tris.push_back(t);
  }
  return make_mesh(merger.vertices(), tris);
}

// ---------------------------------------------------------------------------------------------
// OFF

SurfaceMesh read_off(const fs::path& path, const std::string& text) {
  const auto lines = nonempty_lines(text, '#');
  if (lines.empty()) fail(path, "empty file (no OFF header)");
  std::size_t li = 0;
  auto header = lines[0].tokens;
  std::string magic = std::string(header[0]);
  // Accept OFF and its variants with per-vertex extras (COFF, NOFF, STOFF, ...): the extras
  // follow x y z on each vertex line and are ignored. 4OFF/nOFF (other dimensions) and binary
  // OFF are not supported.
  if (magic.size() < 3 || magic.substr(magic.size() - 3) != "OFF")
    fail(path, fmt::format("line {}: not an OFF file (first word '{}', expected 'OFF')",
                           lines[0].number, shorten(magic)));
  if (magic.find('4') != std::string::npos || magic.find('n') != std::string::npos)
    fail(path,
         fmt::format("line {}: '{}' (not 3-dimensional) is not supported", lines[0].number, magic));
  std::vector<std::string_view> counts(header.begin() + 1, header.end());
  if (counts.size() >= 1 && counts[0] == "BINARY") fail(path, "binary OFF is not supported");
  ++li;
  if (counts.empty()) {
    if (li >= lines.size()) fail(path, "file ends before the vertex and face counts");
    counts = lines[li].tokens;
    ++li;
  }
  const int counts_line = lines[li - 1].number;
  long long nv = 0, nf = 0;
  if (counts.size() < 2 || !parse_int64(counts[0], nv) || !parse_int64(counts[1], nf) || nv < 0 ||
      nf < 0)
    fail(path, fmt::format("line {}: expected 'vertex_count face_count edge_count'", counts_line));
  if (nv > std::numeric_limits<int>::max() || nf > std::numeric_limits<int>::max())
    fail(path, fmt::format("line {}: counts too large", counts_line));
  if (static_cast<std::size_t>(nv) + static_cast<std::size_t>(nf) > lines.size() - li)
    fail(path,
         fmt::format("the header announces {} vertices and {} faces, but the file has only {} "
                     "more non-empty lines (truncated?)",
                     nv, nf, lines.size() - li));
  std::vector<Eigen::Vector3d> verts(static_cast<std::size_t>(nv));
  for (long long i = 0; i < nv; ++i, ++li) {
    const auto& l = lines[li];
    if (l.tokens.size() < 3)
      fail(path, fmt::format("line {}: vertex {} needs 3 coordinates, found {}", l.number, i,
                             l.tokens.size()));
    for (int k = 0; k < 3; ++k) {
      double x;
      if (!parse_double(l.tokens[k], x))
        fail(path, fmt::format("line {}: '{}' is not a number", l.number, shorten(l.tokens[k])));
      if (!std::isfinite(x))
        fail(path, fmt::format("line {}: vertex {} coordinate '{}' is not finite", l.number, i,
                               shorten(l.tokens[k])));
      verts[static_cast<std::size_t>(i)][k] = x;
    }
  }
  std::vector<Eigen::Vector3i> tris;
  std::vector<long long> poly;
  for (long long f = 0; f < nf; ++f, ++li) {
    const auto& l = lines[li];
    long long n;
    if (!parse_int64(l.tokens[0], n) || n < 0)
      fail(path, fmt::format("line {}: face {} should start with its vertex count", l.number, f));
    if (n < 3)
      fail(path, fmt::format("line {}: face {} has {} vertices, needs at least 3", l.number, f, n));
    if (static_cast<long long>(l.tokens.size()) < n + 1)
      fail(path, fmt::format("line {}: face {} announces {} vertices but lists {}", l.number, f, n,
                             l.tokens.size() - 1));
    poly.clear();
    for (long long k = 0; k < n; ++k) {
      long long vi;
      const auto t = l.tokens[static_cast<std::size_t>(k + 1)];
      if (!parse_int64(t, vi))
        fail(path, fmt::format("line {}: '{}' is not a vertex index", l.number, shorten(t)));
      if (vi < 0 || vi >= nv)
        fail(path, fmt::format("line {}: face {} refers to vertex {}, but the file has {} vertices "
                               "(0 to {})",
                               l.number, f, vi, nv, nv - 1));
      poly.push_back(vi);
    }
    add_fan(tris, poly);
  }
  return make_mesh(verts, tris);
}

// ---------------------------------------------------------------------------------------------
// PLY (ascii, binary_little_endian, binary_big_endian)

enum class PlyType { i8, u8, i16, u16, i32, u32, f32, f64 };

bool ply_type(std::string_view s, PlyType& t) {
  static const std::pair<std::string_view, PlyType> names[] = {
      {"char", PlyType::i8},    {"int8", PlyType::i8},     {"uchar", PlyType::u8},
      {"uint8", PlyType::u8},   {"short", PlyType::i16},   {"int16", PlyType::i16},
      {"ushort", PlyType::u16}, {"uint16", PlyType::u16},  {"int", PlyType::i32},
      {"int32", PlyType::i32},  {"uint", PlyType::u32},    {"uint32", PlyType::u32},
      {"float", PlyType::f32},  {"float32", PlyType::f32}, {"double", PlyType::f64},
      {"float64", PlyType::f64}};
  for (const auto& [n, ty] : names)
    if (s == n) {
      t = ty;
      return true;
    }
  return false;
}

std::size_t ply_size(PlyType t) {
  switch (t) {
    case PlyType::i8:
    case PlyType::u8:
      return 1;
    case PlyType::i16:
    case PlyType::u16:
      return 2;
    case PlyType::i32:
    case PlyType::u32:
    case PlyType::f32:
      return 4;
    case PlyType::f64:
      return 8;
  }
  return 0;
}

struct PlyProperty {
  std::string name;
  bool is_list = false;
  PlyType count_type = PlyType::u8;
  PlyType type = PlyType::f32;
};
struct PlyElement {
  std::string name;
  long long count = 0;
  std::vector<PlyProperty> properties;
};

class PlyInput {
 public:
  enum class Format { ascii, little, big };
  PlyInput(const fs::path& path, const std::string& data, std::size_t offset, int line, Format f)
      : path_(path), data_(data), pos_(offset), tokens_(data, offset, line), format_(f) {}

  // Reads one value of instance `index` of element `element` (named in error messages).
  double read(PlyType t, const std::string& element, long long index) {
    auto where = [&] { return fmt::format("{} {}", element, index); };
    if (format_ == Format::ascii) {
      const auto tok = tokens_.next();
      if (tok.empty()) fail(path_, fmt::format("file ends in {} (truncated?)", where()));
      double x;
      if (!parse_double(tok, x))
        fail(path_, fmt::format("line {}: '{}' is not a number ({})", tokens_.line(), shorten(tok),
                                where()));
      return x;
    }
    const std::size_t n = ply_size(t);
    if (pos_ + n > data_.size())
      fail(path_, fmt::format("truncated binary PLY: file ends in {}", where()));
    unsigned char b[8];
    std::memcpy(b, data_.data() + pos_, n);
    pos_ += n;
    const bool swap = (format_ == Format::little) != (std::endian::native == std::endian::little);
    if (swap) std::reverse(b, b + n);
    switch (t) {
      case PlyType::i8: {
        std::int8_t v;
        std::memcpy(&v, b, 1);
        return v;
      }
      case PlyType::u8:
        return b[0];
      case PlyType::i16: {
        std::int16_t v;
        std::memcpy(&v, b, 2);
        return v;
      }
      case PlyType::u16: {
        std::uint16_t v;
        std::memcpy(&v, b, 2);
        return v;
      }
      case PlyType::i32: {
        std::int32_t v;
        std::memcpy(&v, b, 4);
        return v;
      }
      case PlyType::u32: {
        std::uint32_t v;
        std::memcpy(&v, b, 4);
        return v;
      }
      case PlyType::f32: {
        float v;
        std::memcpy(&v, b, 4);
        return v;
      }
      case PlyType::f64: {
        double v;
        std::memcpy(&v, b, 8);
        return v;
      }
    }
    return 0;
  }
  std::string line_info() const {
    return format_ == Format::ascii ? fmt::format("line {}: ", tokens_.line()) : std::string();
  }

 private:
  const fs::path& path_;
  const std::string& data_;
  std::size_t pos_;
  Tokens tokens_;
  Format format_;
};

SurfaceMesh read_ply(const fs::path& path, const std::string& data) {
  // Header: lines up to "end_header".
  std::size_t pos = 0;
  int line_no = 0;
  std::vector<PlyElement> elements;
  PlyInput::Format format = PlyInput::Format::ascii;
  bool have_format = false, ended = false;
  while (pos < data.size()) {
    ++line_no;
    std::size_t end = data.find('\n', pos);
    if (end == std::string::npos) end = data.size();
    const std::string_view line(data.data() + pos, end - pos);
    pos = end + 1;
    const auto tok = split_tokens(line);
    if (line_no == 1) {
      if (tok.size() != 1 || tok[0] != "ply")
        fail(path, "not a PLY file (first line is not 'ply')");
      continue;
    }
    if (tok.empty() || tok[0] == "comment" || tok[0] == "obj_info") continue;
    if (tok[0] == "end_header") {
      ended = true;
      break;
    }
    if (tok[0] == "format") {
      if (tok.size() < 2) fail(path, fmt::format("line {}: incomplete format line", line_no));
      if (tok[1] == "ascii")
        format = PlyInput::Format::ascii;
      else if (tok[1] == "binary_little_endian")
        format = PlyInput::Format::little;
      else if (tok[1] == "binary_big_endian")
        format = PlyInput::Format::big;
      else
        fail(path, fmt::format("line {}: unknown PLY format '{}'", line_no, shorten(tok[1])));
      have_format = true;
    } else if (tok[0] == "element") {
      long long n;
      if (tok.size() != 3 || !parse_int64(tok[2], n) || n < 0)
        fail(path, fmt::format("line {}: expected 'element NAME COUNT'", line_no));
      elements.push_back({std::string(tok[1]), n, {}});
    } else if (tok[0] == "property") {
      if (elements.empty())
        fail(path, fmt::format("line {}: property before any element", line_no));
      PlyProperty p;
      if (tok.size() == 5 && tok[1] == "list") {
        p.is_list = true;
        if (!ply_type(tok[2], p.count_type) || !ply_type(tok[3], p.type))
          fail(path, fmt::format("line {}: unknown property type", line_no));
        if (p.count_type == PlyType::f32 || p.count_type == PlyType::f64)
          fail(path, fmt::format("line {}: list count must be an integer type", line_no));
        p.name = std::string(tok[4]);
      } else if (tok.size() == 3) {
        if (!ply_type(tok[1], p.type))
          fail(path, fmt::format("line {}: unknown property type '{}'", line_no, shorten(tok[1])));
        p.name = std::string(tok[2]);
      } else {
        fail(path, fmt::format("line {}: malformed property line", line_no));
      }
      elements.back().properties.push_back(p);
    } else {
      fail(path, fmt::format("line {}: unexpected header line '{}'", line_no, shorten(tok[0])));
    }
  }
  if (!ended) fail(path, "PLY header has no 'end_header' (truncated?)");
  if (!have_format) fail(path, "PLY header has no 'format' line");

  const PlyElement* vertex_el = nullptr;
  const PlyElement* face_el = nullptr;
  const PlyElement* strip_el = nullptr;  // "tristrips": triangle strips, -1 restarts a strip
  for (const auto& e : elements) {
    if (e.name == "vertex") vertex_el = &e;
    if (e.name == "face") face_el = &e;
    if (e.name == "tristrips") strip_el = &e;
  }
  if (!vertex_el) fail(path, "PLY file has no 'vertex' element");
  if (!face_el && !strip_el) fail(path, "PLY file has no 'face' (or 'tristrips') element");
  auto index_list = [&](const PlyElement* e) {
    if (!e) return -1;
    for (std::size_t k = 0; k < e->properties.size(); ++k) {
      const auto& p = e->properties[k];
      if (p.is_list && (p.name == "vertex_indices" || p.name == "vertex_index"))
        return static_cast<int>(k);
    }
    fail(path, fmt::format("PLY '{}' element lacks a 'vertex_indices' list", e->name));
  };
  const int iface = index_list(face_el), istrip = index_list(strip_el);
  int ix = -1, iy = -1, iz = -1;
  for (std::size_t k = 0; k < vertex_el->properties.size(); ++k) {
    const auto& p = vertex_el->properties[k];
    if (p.is_list) continue;
    if (p.name == "x") ix = static_cast<int>(k);
    if (p.name == "y") iy = static_cast<int>(k);
    if (p.name == "z") iz = static_cast<int>(k);
  }
  if (ix < 0 || iy < 0 || iz < 0) fail(path, "PLY 'vertex' element lacks x, y or z");
  const long long nv = vertex_el->count;
  for (const auto& e : elements)
    if (e.count > std::numeric_limits<int>::max()) fail(path, "PLY element counts too large");

  PlyInput in(path, data, pos, line_no + 1, format);
  std::vector<Eigen::Vector3d> verts;
  std::vector<Eigen::Vector3i> tris;
  std::vector<long long> poly;
  for (const auto& e : elements) {
    const bool is_vertex = &e == vertex_el, is_face = &e == face_el, is_strip = &e == strip_el;
    // Each vertex takes at least a byte of the file: a header count beyond that cannot be met
    // (the read fails at the end of the data), so it does not size the reservation.
    if (is_vertex)
      verts.reserve(static_cast<std::size_t>(std::min<long long>(e.count, static_cast<long long>(data.size()))));
    for (long long i = 0; i < e.count; ++i) {
      Eigen::Vector3d p = Eigen::Vector3d::Zero();
      for (std::size_t k = 0; k < e.properties.size(); ++k) {
        const auto& prop = e.properties[k];
        if (!prop.is_list) {
          const double x = in.read(prop.type, e.name, i);
          if (is_vertex) {
            const int ik = static_cast<int>(k);
            const int axis = ik == ix ? 0 : ik == iy ? 1 : ik == iz ? 2 : -1;
            if (axis >= 0) {
              if (!std::isfinite(x))
                fail(path,
                     fmt::format("{}vertex {} coordinate {} is not finite", in.line_info(), i, x));
              p[axis] = x;
            }
          }
          continue;
        }
        const double n = in.read(prop.count_type, e.name, i);
        if (n < 0 || n != std::floor(n) || n > (is_strip ? 1e9 : 1e6))
          fail(path, fmt::format("{}{} {}: bad list length {}", in.line_info(), e.name, i, n));
        const bool wanted = is_face && static_cast<int>(k) == iface;
        const bool strip = is_strip && static_cast<int>(k) == istrip;
        if (wanted || strip) poly.clear();
        for (long long j = 0; j < static_cast<long long>(n); ++j) {
          const double v = in.read(prop.type, e.name, i);
          if (strip && (v == -1 || (v == 4294967295.0 && prop.type == PlyType::u32))) {
            add_strip(tris, poly);  // -1 (or its unsigned twin) ends a strip
            poly.clear();
            continue;
          }
          if (!wanted && !strip) continue;
          if (v != std::floor(v) || v < 0 || v >= static_cast<double>(nv))
            fail(path, fmt::format(
                           "{}{} {} refers to vertex {}, but the file has {} vertices (0 to {})",
                           in.line_info(), strip ? "triangle strip" : "face", i, v, nv, nv - 1));
          poly.push_back(static_cast<long long>(v));
        }
        if (strip) add_strip(tris, poly);
        if (wanted) {
          if (poly.size() < 3)
            fail(path, fmt::format("{}face {} has {} vertices, needs at least 3", in.line_info(), i,
                                   poly.size()));
          add_fan(tris, poly);
        }
      }
      if (is_vertex) verts.push_back(p);
    }
  }
  return make_mesh(verts, tris);
}

// ---------------------------------------------------------------------------------------------
// Checks

// Open-addressing hash map from an undirected edge to its faces: a std::unordered_map costs a
// node allocation per edge, this one a flat array (100k-face meshes check in milliseconds).
struct EdgeInfo {
  std::uint64_t key = ~0ull;  // (min << 32) | max; ~0 = empty slot
  int count = 0;              // faces using the edge
  int forward = 0;            // of which use it as min → max
  int face[2] = {-1, -1};     // first two faces
};

class EdgeMap {
 public:
  explicit EdgeMap(std::size_t expected) {
    std::size_t cap = 16;
    while (cap < 2 * expected) cap <<= 1;
    slots_.resize(cap);
    mask_ = cap - 1;
  }
  static std::uint64_t key(int a, int b) {
    const auto lo = static_cast<std::uint32_t>(std::min(a, b));
    const auto hi = static_cast<std::uint32_t>(std::max(a, b));
    return (static_cast<std::uint64_t>(lo) << 32) | hi;
  }
  EdgeInfo& operator[](std::uint64_t k) {
    std::size_t i = hash(k) & mask_;
    while (slots_[i].key != k && slots_[i].key != ~0ull) i = (i + 1) & mask_;
    slots_[i].key = k;
    return slots_[i];
  }
  const EdgeInfo& at(std::uint64_t k) const {
    std::size_t i = hash(k) & mask_;
    while (slots_[i].key != k) i = (i + 1) & mask_;
    return slots_[i];
  }

 private:
  static std::size_t hash(std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return static_cast<std::size_t>(k);
  }
  std::vector<EdgeInfo> slots_;
  std::size_t mask_;
};

double bbox_diagonal(const Eigen::MatrixXd& v) {
  if (v.rows() == 0) return 0;
  return (v.colwise().maxCoeff() - v.colwise().minCoeff()).norm();
}

}  // namespace

SurfaceMesh read_surface_mesh(const fs::path& path, double scale) {
  if (!std::isfinite(scale) || scale <= 0)
    throw Error(fmt::format("scale must be a positive finite number (got {})", scale));
  const std::string ext = lower(path.extension().string());
  if (ext != ".obj" && ext != ".stl" && ext != ".off" && ext != ".ply" && ext != ".gltf" &&
      ext != ".glb")
    fail(path, fmt::format(
                   "unknown mesh format '{}' (supported: .obj, .stl, .off, .ply, .gltf, .glb)",
                   ext.empty() ? std::string("no extension") : ext));
  const std::string data = read_file_bytes(path);
  if (data.empty()) fail(path, "empty file (no vertices, no faces)");
  SurfaceMesh mesh;
  if (ext == ".gltf" || ext == ".glb")
    mesh = read_gltf(path);
  else if (ext == ".obj")
    mesh = read_obj(path, data);
  else if (ext == ".stl")
    mesh = read_stl(path, data);
  else if (ext == ".off")
    mesh = read_off(path, data);
  else
    mesh = read_ply(path, data);
  if (mesh.faces.rows() == 0)
    fail(path, fmt::format("empty mesh: no faces ({} vertices)", mesh.vertices.rows()));
  if (scale != 1.0) {
    mesh.vertices *= scale;
    if (!mesh.vertices.allFinite())
      fail(path, fmt::format("coordinates are not finite after scaling by {}", scale));
  }
  return mesh;
}

ShellReport check_and_orient_surface(SurfaceMesh& mesh) {
  const auto& V = mesh.vertices;
  auto& F = mesh.faces;
  const Eigen::Index nv = V.rows(), nf = F.rows();
  if (nf == 0 || nv == 0) throw Error("surface mesh is empty (no faces)");
  if (V.cols() != 3 || F.cols() != 3)
    throw Error(fmt::format("surface mesh: expected n×3 vertices and m×3 faces (got {}×{}, {}×{})",
                            V.rows(), V.cols(), F.rows(), F.cols()));

  // 1. Finite coordinates.
  for (Eigen::Index i = 0; i < nv; ++i)
    if (!V.row(i).allFinite())
      throw Error(
          fmt::format("surface mesh: vertex {} has a coordinate that is not finite ({}, {}, {})", i,
                      V(i, 0), V(i, 1), V(i, 2)));

  // 2. Indices in range, no repeated vertex, no zero-area face.
  const double diag = bbox_diagonal(V);
  const double min_area = 1e-12 * diag * diag;
  for (Eigen::Index f = 0; f < nf; ++f) {
    const int a = F(f, 0), b = F(f, 1), c = F(f, 2);
    for (const int i : {a, b, c})
      if (i < 0 || i >= nv)
        throw Error(fmt::format(
            "surface mesh: face {} refers to vertex {}, but there are {} vertices", f, i, nv));
    if (a == b || b == c || c == a)
      throw RepairableSurfaceError(
          fmt::format("surface mesh: face {} ({}, {}, {}) is degenerate: it repeats vertex {}", f,
                      a, b, c, a == b || a == c ? a : b));
    const Eigen::Vector3d ab = V.row(b) - V.row(a), ac = V.row(c) - V.row(a);
    const double area = 0.5 * ab.cross(ac).norm();
    if (!(area >= min_area))
      throw RepairableSurfaceError(
          fmt::format("surface mesh: face {} ({}, {}, {}) is degenerate: area {:.3g} m² "
                      "(zero-area or needle face; bounding-box diagonal {:.3g} m)",
                      f, a, b, c, area, diag));
  }

  // 3. Every edge in exactly two faces.
  EdgeMap edges(static_cast<std::size_t>(3 * nf / 2 + 1));
  for (Eigen::Index f = 0; f < nf; ++f)
    for (int k = 0; k < 3; ++k) {
      const int a = F(f, k), b = F(f, (k + 1) % 3);
      auto& e = edges[EdgeMap::key(a, b)];
      if (e.count < 2) e.face[e.count] = static_cast<int>(f);
      ++e.count;
      if (a < b) ++e.forward;
    }
  for (Eigen::Index f = 0; f < nf; ++f)
    for (int k = 0; k < 3; ++k) {
      const int a = std::min(F(f, k), F(f, (k + 1) % 3)), b = std::max(F(f, k), F(f, (k + 1) % 3));
      const auto& e = edges.at(EdgeMap::key(a, b));
      if (e.count == 1)
        throw RepairableSurfaceError(
            fmt::format("surface mesh: edge ({}, {}) is shared by 1 face (hole: the surface is "
                        "not closed; face {})",
                        a, b, f));
      if (e.count > 2)
        throw RepairableSurfaceError(
            fmt::format("surface mesh: edge ({}, {}) is shared by {} faces (non-manifold edge)", a,
                        b, e.count));
    }

  // 4. Every vertex used, and the faces around each vertex form one fan.
  std::vector<int> start(static_cast<std::size_t>(nv) + 1, 0);
  for (Eigen::Index f = 0; f < nf; ++f)
    for (int k = 0; k < 3; ++k) ++start[static_cast<std::size_t>(F(f, k)) + 1];
  for (Eigen::Index i = 0; i < nv; ++i) {
    if (start[static_cast<std::size_t>(i) + 1] == 0)
      throw RepairableSurfaceError(
          fmt::format("surface mesh: vertex {} is not used by any face (it would be a "
                      "free-floating node)",
                      i));
    start[static_cast<std::size_t>(i) + 1] += start[static_cast<std::size_t>(i)];
  }
  std::vector<int> fill(start.begin(), start.end() - 1), incident(static_cast<std::size_t>(3 * nf));
  for (Eigen::Index f = 0; f < nf; ++f)
    for (int k = 0; k < 3; ++k)
      incident[static_cast<std::size_t>(fill[F(f, k)]++)] = static_cast<int>(f);
  std::vector<int> ring;
  std::vector<std::pair<int, int>> links;
  DisjointSets sets;
  for (Eigen::Index v = 0; v < nv; ++v) {
    ring.clear();
    links.clear();
    for (int s = start[v]; s < start[v + 1]; ++s) {
      const int f = incident[static_cast<std::size_t>(s)];
      int o[2], n = 0;
      for (int k = 0; k < 3; ++k)
        if (F(f, k) != v) o[n++] = F(f, k);
      links.emplace_back(o[0], o[1]);
      ring.push_back(o[0]);
      ring.push_back(o[1]);
    }
    std::sort(ring.begin(), ring.end());
    ring.erase(std::unique(ring.begin(), ring.end()), ring.end());
    // Every edge is in two faces, so each neighbour has two link edges: the link is a union of
    // cycles, one per fan. A manifold vertex has exactly one.
    sets.reset(ring.size());
    auto idx = [&](int w) {
      return static_cast<int>(std::lower_bound(ring.begin(), ring.end(), w) - ring.begin());
    };
    std::size_t components = ring.size();
    for (const auto& [p, q] : links)
      if (sets.unite(idx(p), idx(q))) --components;
    if (components != 1)
      throw RepairableSurfaceError(
          fmt::format("surface mesh: vertex {} is non-manifold: its {} faces form {} separate "
                      "fans (surfaces touching at a point)",
                      v, start[v + 1] - start[v], components));
  }

  // 5. Consistent orientation: each edge used once in each direction.
  for (Eigen::Index f = 0; f < nf; ++f)
    for (int k = 0; k < 3; ++k) {
      const int a = std::min(F(f, k), F(f, (k + 1) % 3)), b = std::max(F(f, k), F(f, (k + 1) % 3));
      const auto& e = edges.at(EdgeMap::key(a, b));
      if (e.forward != 1)
        throw RepairableSurfaceError(
            fmt::format("surface mesh: inconsistent orientation: faces {} and {} traverse "
                        "their shared edge ({}, {}) in the same direction (one of them is "
                        "flipped)",
                        e.face[0], e.face[1], a, b));
    }

  // 6. Positive enclosed volume; an inside-out mesh is flipped.
  const double volume = signed_volume(mesh);
  if (!(std::abs(volume) > 1e-12 * diag * diag * diag))
    throw Error(fmt::format("surface mesh encloses no volume ({:.3g} m³)", volume));
  if (volume < 0) {
    F.col(1).swap(F.col(2));
    notice(fmt::format(
        "the surface mesh was inside out (all faces oriented inwards, volume {:.4g} m³); "
        "flipped it",
        volume));
  }

  // 7. Several closed shells: cavities, separate bodies, overlaps.
  return check_shells(mesh);
}

SurfaceMesh read_checked_surface_mesh(const fs::path& path, double scale, bool repair) {
  SurfaceMesh mesh = read_surface_mesh(path, scale);
  notice_implausible_size(mesh.vertices, scale);
  try {
    if (repair) repair_surface(mesh);
    if (const auto shells = check_and_orient_surface(mesh); !shells.bodies_notice.empty())
      notice(shells.bodies_notice);
  } catch (const RepairableSurfaceError& e) {
    if (repair) fail(path, fmt::format("{} (left after --repair)", e.what()));
    fail(path, fmt::format("{}; try --repair", e.what()));
  } catch (const Error& e) {
    fail(path, e.what());
  }
  return mesh;
}

double signed_volume(const SurfaceMesh& mesh) {
  const auto& V = mesh.vertices;
  const auto& F = mesh.faces;
  if (V.rows() == 0) return 0;
  // Relative to the bounding-box centre: exact for a closed surface, and no cancellation for
  // meshes far from the origin.
  const Eigen::RowVector3d o = 0.5 * (V.colwise().maxCoeff() + V.colwise().minCoeff());
  double sum = 0;
  for (Eigen::Index f = 0; f < F.rows(); ++f) {
    const Eigen::Vector3d a = V.row(F(f, 0)) - o, b = V.row(F(f, 1)) - o, c = V.row(F(f, 2)) - o;
    sum += a.dot(b.cross(c));
  }
  return sum / 6.0;
}

Eigen::MatrixXd vertex_normals(const SurfaceMesh& mesh) {
  // Angle-weighted (Thürmer & Wüthrich, "Computing Vertex Normals from Polygonal Facets", 1998):
  // each face's unit normal weighted by its interior angle at the vertex, so how a flat region
  // is split into triangles does not change the normal (area weighting made a box corner's
  // normal a triangulation artefact). The generator's strike directions and the reference
  // solver's forces both use it.
  const auto& V = mesh.vertices;
  const auto& F = mesh.faces;
  Eigen::MatrixXd N = Eigen::MatrixXd::Zero(V.rows(), 3);
  for (Eigen::Index f = 0; f < F.rows(); ++f) {
    const Eigen::Vector3d p[3] = {V.row(F(f, 0)), V.row(F(f, 1)), V.row(F(f, 2))};
    const Eigen::Vector3d n = (p[1] - p[0]).cross(p[2] - p[0]);
    if (!(n.norm() > 0)) continue;
    for (int k = 0; k < 3; ++k) {
      const Eigen::Vector3d a = p[(k + 1) % 3] - p[k], b = p[(k + 2) % 3] - p[k];
      N.row(F(f, k)) += std::atan2(a.cross(b).norm(), a.dot(b)) * n.normalized().transpose();
    }
  }
  for (Eigen::Index i = 0; i < N.rows(); ++i) {
    const double len = N.row(i).norm();
    if (len > 0) N.row(i) /= len;
  }
  return N;
}

}  // namespace mesh2dsp
