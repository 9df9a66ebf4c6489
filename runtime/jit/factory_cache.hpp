#pragma once
// On-disk cache of compiled Faust factories as LLVM machine code, so a second start of the same
// program skips the Faust front end and LLVM (seconds) and only loads the object (milliseconds).
//
// An entry is keyed by the full compile key (source text, Faust options, optimisation level,
// libfaust version, LLVM target) and also records every library file the program imported with
// the hash of its content: editing an imported .lib invalidates the entry even though the .dsp
// did not change.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mesh2dsp::runtime {

struct CacheEntry {
  std::string machine_code;                        // libfaust writeDSPFactoryToMachine output
  std::vector<std::filesystem::path> dependencies;  // imported library files
};

class FactoryCache {
 public:
  // An empty directory disables the cache.
  explicit FactoryCache(std::filesystem::path directory);

  // $MESH2DSP_CACHE_DIR, else $XDG_CACHE_HOME/mesh2dsp/faust, else ~/.cache/mesh2dsp/faust.
  static std::filesystem::path default_directory();

  bool enabled() const { return !directory_.empty(); }
  const std::filesystem::path& directory() const { return directory_; }

  // The entry for `key` if present, intact, and all its dependencies unchanged.
  std::optional<CacheEntry> load(const std::string& key) const;

  // Best effort: a cache that cannot be written is reported once as a notice, never an error.
  void store(const std::string& key, const CacheEntry& entry) const;

  std::filesystem::path entry_path(const std::string& key) const;

 private:
  std::filesystem::path directory_;
};

}  // namespace mesh2dsp::runtime
