#include "util/atomic_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <system_error>

#include "util/error.hpp"

namespace mesh2dsp {

std::filesystem::path temporary_sibling(const std::filesystem::path& path) {
  static std::atomic<int> counter{0};
  auto name = fmt::format(".{}.tmp{}-{}", path.filename().string(), static_cast<long>(getpid()),
                          counter++);
  return path.parent_path() / name;
}

void commit_temporary(const std::filesystem::path& temporary, const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    throw Error(fmt::format("cannot write {}: {}", path.string(), ec.message()));
  }
}

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write) {
  const auto dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  if (!std::filesystem::is_directory(dir))
    throw Error(fmt::format("cannot write {}: directory {} does not exist", path.string(),
                            dir.string()));
  const auto temporary = temporary_sibling(path);
  try {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(fmt::format("cannot write {}: cannot create a file there", path.string()));
    write(out);
    out.flush();
    if (!out) throw Error(fmt::format("cannot write {}: write failed (disk full?)", path.string()));
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(temporary, ec);
    throw;
  }
  commit_temporary(temporary, path);
}

void write_text_atomically(const std::filesystem::path& path, std::string_view text) {
  write_file_atomically(path, [&](std::ostream& out) { out.write(text.data(), text.size()); });
}

}  // namespace mesh2dsp
