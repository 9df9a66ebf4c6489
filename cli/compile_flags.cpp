#include "cli/compile_flags.hpp"

#include <CLI/CLI.hpp>

#include "runtime/jit/factory_cache.hpp"

namespace mesh2dsp::runtime {

void CompileFlags::add_to(CLI::App& cmd) {
  cmd.add_option("--faust-option", faust_options,
                 "an option for the Faust compiler, one per flag, e.g. --faust-option=-ftz --faust-option=2")
      ->allow_extra_args(false);
  cmd.add_option("--opt-level", opt_level, "LLVM optimisation level -1..4 (0 compiles fastest)")
      ->check(CLI::Range(-1, 4))
      ->capture_default_str();
  cmd.add_option("--cache-dir", cache_dir,
                 "compiled-program cache (default $MESH2DSP_CACHE_DIR or ~/.cache/mesh2dsp/faust)");
  cmd.add_flag("--no-cache", no_cache, "always compile; neither read nor write the cache");
}

CompileOptions CompileFlags::resolve() const {
  CompileOptions options;
  options.faust_args = faust_options;
  options.opt_level = opt_level;
  if (!no_cache)
    options.cache_directory = cache_dir.empty() ? FactoryCache::default_directory()
                                                : std::filesystem::path(cache_dir);
  return options;
}

}  // namespace mesh2dsp::runtime
