#include "runtime/live/file_watcher.hpp"

namespace mesh2dsp::runtime {

FileWatcher::Stamp FileWatcher::stamp_of(const std::filesystem::path& file) {
  std::error_code ec;
  Stamp s;
  s.size = std::filesystem::file_size(file, ec);
  if (ec) return {};
  s.modified = std::filesystem::last_write_time(file, ec);
  if (ec) return {};
  s.exists = true;
  return s;
}

void FileWatcher::watch(std::vector<std::filesystem::path> files) {
  files_ = std::move(files);
  seen_.clear();
  for (const auto& f : files_) seen_.push_back(stamp_of(f));
  settling_.reset();
}

bool FileWatcher::changed() {
  std::vector<Stamp> now;
  for (const auto& f : files_) now.push_back(stamp_of(f));
  if (now == seen_) {
    settling_.reset();
    return false;
  }
  if (settling_ && *settling_ == now && now.front().exists) {
    seen_ = std::move(now);
    settling_.reset();
    return true;
  }
  settling_ = std::move(now);  // changed: wait one more poll for it to settle
  return false;
}

}  // namespace mesh2dsp::runtime
