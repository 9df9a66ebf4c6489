#pragma once
// The compile flags render, play and validate share: --faust-option, --opt-level, --cache-dir, --no-cache.
#include <string>
#include <vector>

#include "runtime/jit/faust_compiler.hpp"

namespace CLI {
class App;
}

namespace mesh2dsp::runtime {

struct CompileFlags {
  std::vector<std::string> faust_options;
  int opt_level = 0;
  std::string cache_dir;
  bool no_cache = false;

  void add_to(CLI::App& cmd);
  CompileOptions resolve() const;
};

}  // namespace mesh2dsp::runtime
