#pragma once
// Notices edits to a program's source files by polling their size and modification time.
// Polling (not inotify) also catches editors that save by writing a new file and renaming it.
#include <filesystem>
#include <optional>
#include <vector>

namespace mesh2dsp::runtime {

class FileWatcher {
 public:
  void watch(std::vector<std::filesystem::path> files);  // replaces the set; snapshots it now
  // True once after a change, when the files have stopped changing between two calls (so a
  // save in progress is not compiled half-written).
  bool changed();

 private:
  struct Stamp {
    bool exists = false;
    std::uintmax_t size = 0;
    std::filesystem::file_time_type modified{};
    bool operator==(const Stamp&) const = default;
  };
  static Stamp stamp_of(const std::filesystem::path& file);
  std::vector<std::filesystem::path> files_;
  std::vector<Stamp> seen_;
  std::optional<std::vector<Stamp>> settling_;
};

}  // namespace mesh2dsp::runtime
