#include "fem/gmsh_input.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "util/error.hpp"

// The format: Gmsh reference manual, section "MSH file format" (version 4.1) and its
// "Legacy formats" appendix (version 2.2). Both store $Nodes and $Elements sections; binary
// files keep the section headers as text and the data as raw ints/size_t/doubles after an
// endianness marker (the int 1) in $MeshFormat.

namespace mesh2dsp {
namespace fs = std::filesystem;

namespace {

// Nodes per element type (Gmsh element type numbers 1..31); 0 = unknown.
int nodes_per_element(long long type) {
  static constexpr int table[] = {0,  2,  3,  4,  4,  8,  6,  5,  3,  6,  9,  10, 27, 18, 14, 1,
                                  8,  20, 15, 13, 9,  10, 12, 15, 15, 21, 4,  5,  6,  20, 35, 56};
  return type >= 1 && type < static_cast<long long>(std::size(table)) ? table[type] : 0;
}
bool is_tetrahedron(long long type) {
  return type == 4 || type == 11 || type == 29 || type == 30 || type == 31;
}
const char* volume_element_name(long long type) {
  switch (type) {
    case 5: case 12: case 17: return "hexahedra";
    case 6: case 13: case 18: return "prisms";
    case 7: case 14: case 19: return "pyramids";
    default: return nullptr;
  }
}

class Cursor {
 public:
  Cursor(const fs::path& path, const std::string& data) : path_(path), d_(data) {}

  [[noreturn]] void fail(const std::string& message) const {
    if (binary_) throw Error(fmt::format("{}: {}", path_.string(), message));
    const auto line = 1 + std::count(d_.begin(), d_.begin() + static_cast<long>(std::min(pos_, d_.size())), '\n');
    throw Error(fmt::format("{}:{}: {}", path_.string(), line, message));
  }
  bool at_end() {
    skip_space();
    return pos_ >= d_.size();
  }
  std::size_t remaining() const { return pos_ < d_.size() ? d_.size() - pos_ : 0; }
  // The rest of the current line (without '\r'), moving past it.
  std::string_view line() {
    const std::size_t end = std::min(d_.find('\n', pos_), d_.size());
    std::string_view l(d_.data() + pos_, end - pos_);
    pos_ = end + (end < d_.size());
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
    return l;
  }
  std::string_view token(const char* what) {
    skip_space();
    const std::size_t b = pos_;
    while (pos_ < d_.size() && !std::isspace(static_cast<unsigned char>(d_[pos_]))) ++pos_;
    if (pos_ == b) fail(fmt::format("file ends before the {} (truncated?)", what));
    return std::string_view(d_.data() + b, pos_ - b);
  }
  long long integer(const char* what) {
    const auto t = token(what);
    long long v;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size())
      fail(fmt::format("{} '{}' is not an integer", what, t.substr(0, 40)));
    return v;
  }
  double real(const char* what) {
    const auto t = token(what);
    double v;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size())
      fail(fmt::format("{} '{}' is not a number", what, t.substr(0, 40)));
    return v;
  }
  // Binary data (after set_binary).
  template <class T>
  T raw(const char* what) {
    if (pos_ + sizeof(T) > d_.size()) fail(fmt::format("truncated binary data in the {}", what));
    unsigned char b[sizeof(T)];
    std::memcpy(b, d_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    if (swap_) std::reverse(b, b + sizeof(T));
    T v;
    std::memcpy(&v, b, sizeof(T));
    return v;
  }
  long long bin_int(const char* what) { return raw<std::int32_t>(what); }
  long long bin_size(const char* what) {
    const std::uint64_t v = size_bytes_ == 4 ? raw<std::uint32_t>(what) : raw<std::uint64_t>(what);
    if (v > (1ull << 62)) fail(fmt::format("implausible {} {}", what, v));
    return static_cast<long long>(v);
  }
  double bin_double(const char* what) { return raw<double>(what); }
  void set_binary(int size_bytes) {
    binary_ = true;
    size_bytes_ = size_bytes;
  }
  void set_swap(bool swap) { swap_ = swap; }
  bool binary() const { return binary_; }
  // Skips to the line after "$End<name>" (sections mesh2dsp does not need). In a text file the
  // end marker starts a line; in a binary file it may follow the section's raw data directly
  // (meshio writes $NodeData values and then "$EndNodeData" without a newline).
  void skip_section(std::string_view name) {
    const std::string end = "$End" + std::string(name);
    std::size_t at = pos_;
    for (;;) {
      at = d_.find(end, at);
      if (at == std::string::npos) fail(fmt::format("section ${} has no {} (truncated?)", name, end));
      if (at == 0 || d_[at - 1] == '\n' || binary_) break;
      ++at;
    }
    pos_ = at;
    line();
  }
  // The section's end marker, after any white space: binary data may be followed by a newline
  // (Gmsh) or directly by the marker (meshio), and both are read.
  void expect_end(std::string_view name) {
    skip_space();
    const auto l = line();
    if (l != "$End" + std::string(name))
      fail(fmt::format("expected $End{} after the section's data, found '{}'", name,
                       l.substr(0, 40)));
  }

 private:
  void skip_space() {
    while (pos_ < d_.size() && std::isspace(static_cast<unsigned char>(d_[pos_]))) ++pos_;
  }
  const fs::path& path_;
  const std::string& d_;
  std::size_t pos_ = 0;
  bool binary_ = false, swap_ = false;
  int size_bytes_ = 8;
};

struct GmshData {
  std::vector<Eigen::Vector3d> nodes;
  std::unordered_map<long long, int> index_of_tag;
  std::vector<std::array<long long, 4>> tet_tags;  // corner node tags
  int max_nodes_per_tet = 4;
  long long other_volume_elements = 0;
  const char* other_volume_name = nullptr;
};

void add_node(Cursor& in, GmshData& g, long long tag, const Eigen::Vector3d& p) {
  if (!p.allFinite()) in.fail(fmt::format("node {} has a coordinate that is not finite", tag));
  if (!g.index_of_tag.emplace(tag, static_cast<int>(g.nodes.size())).second)
    in.fail(fmt::format("node {} is defined twice", tag));
  g.nodes.push_back(p);
}

void add_element(Cursor& in, GmshData& g, long long type, const long long* node_tags) {
  if (is_tetrahedron(type)) {
    g.tet_tags.push_back({node_tags[0], node_tags[1], node_tags[2], node_tags[3]});
    g.max_nodes_per_tet = std::max(g.max_nodes_per_tet, nodes_per_element(type));
  } else if (const char* name = volume_element_name(type)) {
    ++g.other_volume_elements;
    g.other_volume_name = name;
  }
  (void)in;
}

int checked_nodes_per_element(Cursor& in, long long type) {
  const int n = nodes_per_element(type);
  if (n == 0) in.fail(fmt::format("unknown element type {}", type));
  return n;
}

// Every node and element takes at least two bytes of the file (a number and a separator), so a
// count larger than half the bytes left is a corrupt header; checked before anything is sized
// by it (a fuzzed count of 10^8 reserved gigabytes before the short read was noticed).
void check_count(Cursor& in, long long n, const char* what) {
  if (n < 0 || n > (1ll << 31)) in.fail(fmt::format("implausible {} {}", what, n));
  if (static_cast<unsigned long long>(n) > in.remaining() / 2)
    in.fail(fmt::format("{} {} is more than the {} bytes left in the file can hold", what, n,
                        in.remaining()));
}

// Version 2.2: "$Nodes n / tag x y z", "$Elements n / tag type ntags tags... nodes...".
void read_nodes_v2(Cursor& in, GmshData& g) {
  const long long n = in.integer("node count");
  check_count(in, n, "node count");
  if (in.binary()) in.line();
  g.nodes.reserve(static_cast<std::size_t>(std::min(n, 1ll << 24)));
  for (long long i = 0; i < n; ++i) {
    if (in.binary()) {
      const long long tag = in.bin_int("$Nodes section");
      Eigen::Vector3d p;
      for (int k = 0; k < 3; ++k) p[k] = in.bin_double("$Nodes section");
      add_node(in, g, tag, p);
    } else {
      const long long tag = in.integer("node tag");
      Eigen::Vector3d p;
      for (int k = 0; k < 3; ++k) p[k] = in.real("node coordinate");
      add_node(in, g, tag, p);
    }
  }
  in.expect_end("Nodes");
}

void read_elements_v2(Cursor& in, GmshData& g) {
  const long long n = in.integer("element count");
  check_count(in, n, "element count");
  std::vector<long long> nodes;
  if (in.binary()) {
    in.line();
    long long done = 0;
    while (done < n) {
      const long long type = in.bin_int("$Elements section");
      const long long follow = in.bin_int("$Elements section");
      const long long tags = in.bin_int("$Elements section");
      if (follow <= 0 || follow > n - done || tags < 0 || tags > 100)
        in.fail(fmt::format("bad element block header (type {}, {} elements, {} tags)", type,
                            follow, tags));
      const int per = checked_nodes_per_element(in, type);
      nodes.resize(static_cast<std::size_t>(per));
      for (long long e = 0; e < follow; ++e) {
        in.bin_int("$Elements section");  // element tag
        for (long long t = 0; t < tags; ++t) in.bin_int("$Elements section");
        for (int k = 0; k < per; ++k) nodes[static_cast<std::size_t>(k)] = in.bin_int("$Elements section");
        add_element(in, g, type, nodes.data());
      }
      done += follow;
    }
  } else {
    for (long long e = 0; e < n; ++e) {
      in.integer("element tag");
      const long long type = in.integer("element type");
      const long long tags = in.integer("tag count");
      if (tags < 0 || tags > 100) in.fail(fmt::format("bad tag count {}", tags));
      for (long long t = 0; t < tags; ++t) in.integer("element tag");
      const int per = checked_nodes_per_element(in, type);
      nodes.resize(static_cast<std::size_t>(per));
      for (int k = 0; k < per; ++k) nodes[static_cast<std::size_t>(k)] = in.integer("element node");
      add_element(in, g, type, nodes.data());
    }
  }
  in.expect_end("Elements");
}

// Version 4.1: entity blocks; in each node block all tags first, then all coordinates.
// Version 4.1 numbers: size_t and int in binary files, text otherwise.
struct V4Numbers {
  Cursor& in;
  long long size(const char* what) { return in.binary() ? in.bin_size(what) : in.integer(what); }
  long long integer(const char* what) { return in.binary() ? in.bin_int(what) : in.integer(what); }
  // "numEntityBlocks numX minTag maxTag", the first two checked and returned.
  std::pair<long long, long long> section_header(const char* what) {
    const long long blocks = size("entity block count");
    const long long total = size(what);
    size("minimum tag");
    size("maximum tag");
    check_count(in, blocks, "entity block count");
    check_count(in, total, what);
    return {blocks, total};
  }
};

void read_nodes_v4(Cursor& in, GmshData& g) {
  const bool bin = in.binary();
  V4Numbers n{in};
  auto size = [&](const char* what) { return n.size(what); };
  auto integer = [&](const char* what) { return n.integer(what); };
  const auto [blocks, total] = n.section_header("node count");
  g.nodes.reserve(static_cast<std::size_t>(std::min(total, 1ll << 24)));
  std::vector<long long> tags;
  for (long long b = 0; b < blocks; ++b) {
    const long long dim = integer("entity dimension");
    integer("entity tag");
    const long long parametric = integer("parametric flag");
    const long long count = size("node count of the block");
    check_count(in, count, "node count of the block");
    if (static_cast<long long>(g.nodes.size()) + count > total)
      in.fail(fmt::format("the node blocks hold more than the {} nodes announced", total));
    tags.resize(static_cast<std::size_t>(count));
    for (auto& t : tags) t = size("node tag");
    const int extra = parametric ? static_cast<int>(std::clamp(dim, 0ll, 3ll)) : 0;
    for (long long i = 0; i < count; ++i) {
      Eigen::Vector3d p;
      for (int k = 0; k < 3; ++k) p[k] = bin ? in.bin_double("node coordinate") : in.real("node coordinate");
      for (int k = 0; k < extra; ++k) bin ? in.bin_double("parametric coordinate") : in.real("parametric coordinate");
      add_node(in, g, tags[static_cast<std::size_t>(i)], p);
    }
  }
  in.expect_end("Nodes");
}

void read_elements_v4(Cursor& in, GmshData& g) {
  V4Numbers n{in};
  auto size = [&](const char* what) { return n.size(what); };
  auto integer = [&](const char* what) { return n.integer(what); };
  const auto [blocks, total] = n.section_header("element count");
  (void)total;
  std::vector<long long> nodes;
  for (long long b = 0; b < blocks; ++b) {
    integer("entity dimension");
    integer("entity tag");
    const long long type = integer("element type");
    const long long count = size("element count of the block");
    check_count(in, count, "element count of the block");
    const int per = checked_nodes_per_element(in, type);
    nodes.resize(static_cast<std::size_t>(per));
    for (long long e = 0; e < count; ++e) {
      size("element tag");
      for (int k = 0; k < per; ++k) nodes[static_cast<std::size_t>(k)] = size("element node");
      add_element(in, g, type, nodes.data());
    }
  }
  in.expect_end("Elements");
}

}  // namespace

TetMeshFile read_gmsh_mesh(const fs::path& path, double scale) {
  if (!std::isfinite(scale) || scale <= 0)
    throw Error(fmt::format("scale must be a positive finite number (got {})", scale));
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw Error(fmt::format("{}: no such file", path.string()));
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error(fmt::format("{}: cannot open the file for reading", path.string()));
  const std::string data((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());

  Cursor in(path, data);
  int major = 0;
  bool have_format = false, have_nodes = false, have_elements = false;
  GmshData g;
  while (!in.at_end()) {
    const auto header = in.line();
    if (header.empty() || header[0] != '$')
      in.fail(fmt::format("expected a section such as $MeshFormat, found '{}'", header.substr(0, 40)));
    const std::string name(header.substr(1));
    if (name == "MeshFormat") {
      const auto version = in.token("format version");
      const long long type = in.integer("file type");
      const long long size_bytes = in.integer("data size");
      in.line();
      if (version == "4.1") {
        major = 4;
      } else if (version.size() >= 2 && version.substr(0, 2) == "2.") {
        major = 2;
      } else {
        in.fail(fmt::format("Gmsh format {} is not supported: save the mesh as version 4.1 or 2.2 "
                            "(gmsh -save -format msh41 or msh22)",
                            version));
      }
      if (type == 1) {
        if (size_bytes != 8 && !(major == 4 && size_bytes == 4))
          in.fail(fmt::format("binary data size {} is not supported", size_bytes));
        in.set_binary(static_cast<int>(size_bytes));
        const auto one = in.raw<std::int32_t>("endianness marker");
        if (one != 1) {
          in.set_swap(true);
          if (one != 0x01000000) in.fail("binary endianness marker is not the integer 1");
        }
        // Gmsh writes a newline after the marker, meshio (some versions) none: expect_end skips
        // whatever white space there is, so "...\x01\0\0\0$EndMeshFormat" reads as Gmsh reads it.
      } else if (type != 0) {
        in.fail(fmt::format("file type {} is neither 0 (ASCII) nor 1 (binary)", type));
      }
      in.expect_end("MeshFormat");
      have_format = true;
    } else if (!have_format) {
      in.fail(fmt::format("${} before $MeshFormat (not a Gmsh file?)", name));
    } else if (name == "Nodes") {
      if (have_nodes) in.fail("a second $Nodes section (not supported)");
      major == 4 ? read_nodes_v4(in, g) : read_nodes_v2(in, g);
      have_nodes = true;
    } else if (name == "Elements") {
      if (have_elements) in.fail("a second $Elements section (not supported)");
      major == 4 ? read_elements_v4(in, g) : read_elements_v2(in, g);
      have_elements = true;
    } else {
      in.skip_section(name);  // $PhysicalNames, $Entities, $Periodic, $NodeData, ...
    }
  }
  if (!have_format) throw Error(fmt::format("{}: not a Gmsh file (no $MeshFormat)", path.string()));
  if (!have_nodes || !have_elements)
    throw Error(fmt::format("{}: no ${} section", path.string(), have_nodes ? "Elements" : "Nodes"));
  if (g.other_volume_elements > 0)
    throw Error(fmt::format("{}: the mesh has {} {}; only tetrahedral meshes are supported",
                            path.string(), g.other_volume_elements, g.other_volume_name));
  if (g.tet_tags.empty())
    throw Error(fmt::format("{}: no tetrahedra (a surface mesh? export the volume mesh, or give "
                            "mesh2dsp the surface as STL/OBJ)",
                            path.string()));

  TetMeshFile out;
  out.vertices.resize(static_cast<Eigen::Index>(g.nodes.size()), 3);
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    out.vertices.row(static_cast<Eigen::Index>(i)) = scale * g.nodes[i].transpose();
  if (!out.vertices.allFinite())
    throw Error(fmt::format("{}: coordinates are not finite after scaling by {}", path.string(), scale));
  out.tets.resize(static_cast<Eigen::Index>(g.tet_tags.size()), 4);
  for (std::size_t t = 0; t < g.tet_tags.size(); ++t) {
    for (int k = 0; k < 4; ++k) {
      const auto it = g.index_of_tag.find(g.tet_tags[t][static_cast<std::size_t>(k)]);
      if (it == g.index_of_tag.end())
        throw Error(fmt::format("{}: tetrahedron {} refers to node {}, which $Nodes does not define",
                                path.string(), t + 1, g.tet_tags[t][static_cast<std::size_t>(k)]));
      out.tets(static_cast<Eigen::Index>(t), k) = it->second;
    }
    if (const auto problem = orient_tet(out.vertices, out.tets, static_cast<Eigen::Index>(t));
        !problem.empty())
      throw Error(fmt::format("{}: tetrahedron {} (nodes {} {} {} {}): {}", path.string(), t + 1,
                              g.tet_tags[t][0], g.tet_tags[t][1], g.tet_tags[t][2],
                              g.tet_tags[t][3], problem));
  }
  drop_unused_points(out, path.string(), g.max_nodes_per_tet > 4, 0);
  return out;
}

}  // namespace mesh2dsp
