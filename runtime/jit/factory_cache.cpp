#include "runtime/jit/factory_cache.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "runtime/jit/hash.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/progress.hpp"

namespace mesh2dsp::runtime {
namespace {

constexpr std::string_view kMagic = "mesh2dsp-faust-cache 1\n";

std::optional<std::string> read_all(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(text).str();
}

// The file layout: magic, then length-prefixed fields, so any byte may appear in the key or the
// machine code:  <magic> key <n>\n<bytes> deps <count>\n (<hash> <n>\n<path>)* code <n>\n<bytes>
void put_field(std::ostream& out, std::string_view tag, std::string_view bytes) {
  out << tag << ' ' << bytes.size() << '\n';
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

bool get_field(std::istream& in, std::string_view tag, std::string& bytes) {
  std::string seen;
  std::size_t size = 0;
  if (!(in >> seen >> size) || seen != tag || in.get() != '\n') return false;
  bytes.resize(size);
  return static_cast<bool>(in.read(bytes.data(), static_cast<std::streamsize>(size)));
}

}  // namespace

FactoryCache::FactoryCache(std::filesystem::path directory) : directory_(std::move(directory)) {}

std::filesystem::path FactoryCache::default_directory() {
  if (const char* dir = std::getenv("MESH2DSP_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "mesh2dsp" / "faust";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "mesh2dsp" / "faust";
  return {};
}

std::filesystem::path FactoryCache::entry_path(const std::string& key) const {
  return directory_ / (content_hash_hex(key) + ".faustcache");
}

std::optional<CacheEntry> FactoryCache::load(const std::string& key) const {
  if (!enabled()) return std::nullopt;
  auto bytes = read_all(entry_path(key));
  if (!bytes || !bytes->starts_with(kMagic)) return std::nullopt;
  std::istringstream in(bytes->substr(kMagic.size()));
  std::string stored_key;
  if (!get_field(in, "key", stored_key) || stored_key != key) return std::nullopt;
  std::string tag;
  std::size_t dependency_count = 0;
  if (!(in >> tag >> dependency_count) || tag != "deps" || in.get() != '\n') return std::nullopt;
  CacheEntry entry;
  for (std::size_t i = 0; i < dependency_count; ++i) {
    std::string hash, path;
    if (!(in >> hash) || in.get() != ' ' || !get_field(in, "path", path)) return std::nullopt;
    in.get();  // the newline after the path
    const auto content = read_all(path);
    if (!content || content_hash_hex(*content) != hash) return std::nullopt;  // library edited
    entry.dependencies.emplace_back(path);
  }
  if (!get_field(in, "code", entry.machine_code)) return std::nullopt;
  return entry;
}

void FactoryCache::store(const std::string& key, const CacheEntry& entry) const {
  if (!enabled()) return;
  std::error_code ec;
  std::filesystem::create_directories(directory_, ec);
  try {
    write_file_atomically(entry_path(key), [&](std::ostream& out) {
      out << kMagic;
      put_field(out, "key", key);
      out << "deps " << entry.dependencies.size() << '\n';
      for (const auto& dependency : entry.dependencies) {
        const auto content = read_all(dependency);
        out << (content ? content_hash_hex(*content) : std::string("missing")) << ' ';
        put_field(out, "path", dependency.string());
        out << '\n';
      }
      put_field(out, "code", entry.machine_code);
    });
  } catch (const Error& e) {
    static bool told = false;  // one notice per run is enough
    if (!told) notice(fmt::format("compile cache not written: {}", e.what()));
    told = true;
  }
}

}  // namespace mesh2dsp::runtime
