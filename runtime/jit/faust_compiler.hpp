#pragma once
// The JIT host: Faust source → libfaust LLVM factory → dsp instances, with the on-disk cache.
// Compiling is slow (the Faust front end plus LLVM: seconds for hundreds of modes) and never
// happens on the audio thread; instances are cheap and made per use.
#include <faust/dsp/dsp.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "util/error.hpp"

class llvm_dsp_factory;

namespace mesh2dsp::runtime {

// Faust rejected the program. what() is Faust's own message, with "file:line:" in front where
// Faust names a line of the compiled file.
struct CompileError : Error {
  using Error::Error;
};

struct CompileOptions {
  std::vector<std::string> faust_args;  // extra compiler options, e.g. "-ftz", "2" (not -double)
  // LLVM IR optimisation level passed to libfaust. 0 by default: measured on modal banks, -O1..3
  // make compiling 30-50 % slower while the generated code runs no faster (runtime_bench).
  int opt_level = 0;
  std::filesystem::path cache_directory;  // empty: no disk cache
};

// A compiled program. Copies share the factory; instances keep it alive.
class CompiledProgram {
 public:
  // A new, uninitialised instance (call init(sample_rate_hz) before compute).
  std::unique_ptr<dsp> instantiate() const;

  const std::string& name() const { return name_; }
  bool from_cache() const { return from_cache_; }
  double compile_s() const { return compile_s_; }
  // The files this program was built from (the .dsp and every imported library): a live player
  // watches them for hot reload.
  const std::vector<std::filesystem::path>& sources() const { return sources_; }

 private:
  friend class FaustCompiler;
  std::shared_ptr<llvm_dsp_factory> factory_;
  std::string name_;
  bool from_cache_ = false;
  double compile_s_ = 0;
  std::vector<std::filesystem::path> sources_;
};

class FaustCompiler {
 public:
  explicit FaustCompiler(CompileOptions options);

  // Reads the file and compiles it; its directory is searched for import()ed files first.
  // Throws Error for an unreadable file and CompileError for a Faust error.
  CompiledProgram compile_file(const std::filesystem::path& path) const;

  // `name` names the program (its UI root and error messages); `include_dir` may be empty.
  CompiledProgram compile_string(const std::string& name, const std::string& source,
                                 const std::filesystem::path& include_dir = {}) const;

  const CompileOptions& options() const { return options_; }

 private:
  CompiledProgram compile(const std::string& name, const std::string& source,
                          const std::filesystem::path& source_path,
                          const std::filesystem::path& include_dir) const;
  CompileOptions options_;
};

// The LLVM target programs are compiled for: the host's triple, with the baseline CPU on x86-64
// (no fused multiply-add, so the JIT computes what the emitted header computes).
std::string jit_target();

// Faust's message with "<name> : <line> : ERROR : " rewritten as "<path>:<line>: error: ".
std::string format_faust_error(const std::string& message, const std::string& name,
                               const std::string& path);

}  // namespace mesh2dsp::runtime
