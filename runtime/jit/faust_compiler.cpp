#include "runtime/jit/faust_compiler.hpp"

#include <faust/dsp/llvm-dsp.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <dlfcn.h>

#include <array>
#include <chrono>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>
#include <vector>

#include "runtime/jit/factory_cache.hpp"
#include "util/progress.hpp"

#ifndef MESH2DSP_FAUST_LIBRARY_DIR
#define MESH2DSP_FAUST_LIBRARY_DIR "/usr/share/faust"
#endif

namespace mesh2dsp::runtime {
namespace {

// LLVM back-end passes that are slow on a modal bank's compute(), one basic block of a few
// tens of thousands of instructions, and buy it nothing: the machine combiner (FP reassociation
// by trace depth), the pre-RA machine scheduler and two-address rescheduling. Measured on a
// 1 000-mode instrument with a libfaust harness (quiet machine): compile 22.5 -> 15.2 s with all
// three (the combiner alone -3.6 s, the rescheduling alone -1.3 s); rendering 2 000 blocks of
// 256 took 3.8 s before and 3.7 s after. The basic register allocator instead of the greedy one
// (which splits live ranges, and has thousands of them here): LLVM's allocation of that
// compute() 1.0 -> 0.34 s, and the code renders no slower (3.15 -> 3.04 s for the blocks above).
// They are process-wide LLVM options: set once,
// before the first compile. LLVM is reached through libfaust, so its C entry point is looked up
// in the process rather than linked (no build dependency on LLVM's development package); if it
// is missing, compiles are just slower.
constexpr std::array<const char*, 4> kLlvmCodegenOptions = {
    "-x86-machine-combiner=false", "-enable-misched=false", "-twoaddr-reschedule=false",
    "-regalloc=basic"};

void set_llvm_codegen_options() {
  using ParseOptions = void (*)(int, const char* const*, const char*);
  const auto parse = reinterpret_cast<ParseOptions>(dlsym(RTLD_DEFAULT, "LLVMParseCommandLineOptions"));
  if (!parse) return;
  std::vector<const char*> argv{"mesh2dsp"};
  argv.insert(argv.end(), kLlvmCodegenOptions.begin(), kLlvmCodegenOptions.end());
  parse(static_cast<int>(argv.size()), argv.data(), nullptr);
}

// libfaust keeps global state (its factory table, the LLVM context): by default it must not be
// entered from two threads. Live play compiles on a background thread while the main thread may
// instantiate, so switch libfaust to its thread-safe mode once and serialise compiles as well.
std::mutex& libfaust_mutex() {
  static std::mutex mutex;
  static std::once_flag once;
  std::call_once(once, [] {
    startMTDSPFactories();
    set_llvm_codegen_options();
  });
  return mutex;
}

void delete_factory(llvm_dsp_factory* factory) {
  if (!factory) return;
  std::lock_guard lock(libfaust_mutex());
  deleteDSPFactory(factory);
}

// An instance that keeps its factory alive: the JIT code it runs belongs to the factory.
class OwnedInstance final : public decorator_dsp {
 public:
  OwnedInstance(dsp* instance, std::shared_ptr<llvm_dsp_factory> factory)
      : decorator_dsp(instance), factory_(std::move(factory)) {}
  ~OwnedInstance() override {
    delete fDSP;  // before factory_ is released (members die before the base destructor runs)
    fDSP = nullptr;
  }
  OwnedInstance* clone() override {
    return new OwnedInstance(static_cast<llvm_dsp*>(fDSP)->clone(), factory_);
  }

 private:
  std::shared_ptr<llvm_dsp_factory> factory_;
};

std::string read_source(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw Error(fmt::format("{}: no such file", path.string()));
  if (std::filesystem::is_directory(path, ec))
    throw Error(fmt::format("{}: is a directory, not a Faust .dsp file", path.string()));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot be read", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::string format_faust_error(const std::string& message, const std::string& name,
                               const std::string& path) {
  std::string text = message;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (name.empty() || path.empty()) return text;
  // Faust writes "name : 12 : ERROR : what"; editors and terminals understand "path:12: error:".
  const std::string prefix = name + " : ";
  std::string out;
  std::istringstream lines(text);
  std::string line;
  static const std::regex located(R"(^(\d+) : ERROR : (.*)$)");
  while (std::getline(lines, line)) {
    std::smatch m;
    const std::string rest = line.starts_with(prefix) ? line.substr(prefix.size()) : std::string();
    if (!rest.empty() && std::regex_match(rest, m, located))
      line = fmt::format("{}:{}: error: {}", path, m[1].str(), m[2].str());
    if (!out.empty()) out += '\n';
    out += line;
  }
  // Messages without a location ("ERROR : the Faust program has no output signal") still say
  // which file they are about.
  if (!out.starts_with(path)) {
    if (out.starts_with("ERROR : ")) out = out.substr(8);
    out = fmt::format("{}: {}", path, out);
  }
  return out;
}

std::unique_ptr<dsp> CompiledProgram::instantiate() const {
  if (!factory_) throw Error("internal: no compiled program");
  llvm_dsp* instance = nullptr;
  {
    std::lock_guard lock(libfaust_mutex());
    instance = factory_->createDSPInstance();
  }
  if (!instance) throw Error(fmt::format("{}: cannot create a DSP instance", name_));
  return std::make_unique<OwnedInstance>(instance, factory_);
}

FaustCompiler::FaustCompiler(CompileOptions options) : options_(std::move(options)) {}

CompiledProgram FaustCompiler::compile_file(const std::filesystem::path& path) const {
  const std::string source = read_source(path);
  const auto absolute = std::filesystem::absolute(path).lexically_normal();
  return compile(path.stem().string(), source, path, absolute.parent_path());
}

CompiledProgram FaustCompiler::compile_string(const std::string& name, const std::string& source,
                                              const std::filesystem::path& include_dir) const {
  return compile(name, source, {}, include_dir);
}

std::string jit_target() {
  // On x86-64 a fixed CPU level, not the host's:
  // - not the host's (AVX2 + FMA): LLVM would fuse multiply-adds, which rounds differently from
  //   the emitted C/C++ header and from Faust's own C++ backend (compiled without contraction).
  //   The modal banks do not care, but the scrape and roll noise filters (poles within 1e-4 of 1
  //   at 192 kHz) amplified that to 1.6e-3 of the peak.
  // - not the baseline x86-64 either: libfaust builds its JIT with unsafe FP math, and on CPUs
  //   without fast scalar square roots LLVM then computes sqrt as a reciprocal-square-root
  //   estimate plus a Newton step, off by an ulp for a third of inputs (measured here). The modes'
  //   damped frequencies go through sqrt: an ulp of pitch drifts the phase, and the JIT departed
  //   from the header by 2.7e-4 of the peak over a second.
  // - x86-64-v2 (SSE4.2, no AVX, no FMA; every x86-64 CPU since 2009) has exact sqrt and no
  //   fusion; a host below it gets the baseline.
  // - sandybridge (x86-64-v2 plus AVX, still no FMA), when the host has AVX (mainstream Intel and
  //   AMD CPUs since 2011; some low-end ones lack it and get x86-64-v2): exact sqrt and no fusion as well, and it compiles big banks faster. SSE arithmetic
  //   is two-address (the result overwrites an operand), and LLVM 14's two-address pass takes time
  //   quadratic in the length of a basic block: a 1 000-mode program's control block made it
  //   3.2 of the 7.6 s of LLVM's code generation. AVX's three-operand forms leave it 0.13 s
  //   (measured with -time-passes; cold JIT of 1 000 modes 14.5 -> 11.7 s).
  // Measured on this machine (znver3): the baseline rendered a 1 000-mode program no slower than
  // the host's CPU (6.7 s against 7.5 s for 20 s of audio) and compiled it faster; x86-64-v2
  // renders like the baseline (2.84 s against 2.82 s for 2 000 blocks of 256).
  const std::string host = getDSPMachineTarget();
  const auto colon = host.find(':');
  if (host.rfind("x86_64", 0) != 0 || colon == std::string::npos) return host;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // __builtin_cpu_supports("avx") also checks that the OS saves the AVX registers (XGETBV).
  const bool v2 = __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt") &&
                  __builtin_cpu_supports("ssse3");
  if (v2 && __builtin_cpu_supports("avx")) return host.substr(0, colon) + ":sandybridge";
  if (v2) return host.substr(0, colon) + ":x86-64-v2";
#endif
  return host.substr(0, colon) + ":x86-64";
}

CompiledProgram FaustCompiler::compile(const std::string& name, const std::string& source,
                                       const std::filesystem::path& source_path,
                                       const std::filesystem::path& include_dir) const {
  const auto start = std::chrono::steady_clock::now();
  // These change the compute() sample type away from FAUSTFLOAT = float, which this host's
  // buffers and zones are: the program would read and write past them.
  for (const auto& a : options_.faust_args)
    if (a == "-double" || a == "--double-precision-floats" || a == "-quad" ||
        a == "--quad-precision-floats" || a == "-fx" || a == "--fixed-point")
      throw Error(fmt::format("Faust option {}: the runtime runs programs in single precision "
                              "(float samples); drop the option", a));
  std::vector<std::string> args;
  if (!include_dir.empty()) args.insert(args.end(), {"-I", include_dir.string()});
  args.insert(args.end(), {"-I", MESH2DSP_FAUST_LIBRARY_DIR});
  args.insert(args.end(), options_.faust_args.begin(), options_.faust_args.end());
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());

  // Everything that changes the machine code is in the key; the source goes last so the key
  // is readable when inspecting a cache file.
  std::string key = fmt::format("libfaust {}\ntarget {}\nopt {}\nllvm {}\nname {}\nargs", getCLibFaustVersion(),
                                jit_target(), options_.opt_level, fmt::join(kLlvmCodegenOptions, " "), name);
  for (const auto& a : args) key += " " + a;
  key += "\nsource\n" + source;

  CompiledProgram program;
  program.name_ = name;
  if (!source_path.empty()) program.sources_.push_back(source_path);
  const FactoryCache cache(options_.cache_directory);

  if (auto entry = cache.load(key)) {
    std::string error;
    llvm_dsp_factory* factory = nullptr;
    {
      std::lock_guard lock(libfaust_mutex());
      factory = readDSPFactoryFromMachine(entry->machine_code, jit_target(), error);
    }
    if (factory) {
      program.factory_ = std::shared_ptr<llvm_dsp_factory>(factory, delete_factory);
      program.from_cache_ = true;
      program.sources_.insert(program.sources_.end(), entry->dependencies.begin(),
                              entry->dependencies.end());
      program.compile_s_ = seconds_since(start);
      return program;
    }
    // A stale or foreign entry: fall through and recompile (the store below replaces it).
  }

  std::string error;
  llvm_dsp_factory* factory = nullptr;
  CacheEntry entry;
  std::vector<std::string> warnings;
  {
    std::lock_guard lock(libfaust_mutex());
    factory = createDSPFactoryFromString(name, source, static_cast<int>(argv.size()), argv.data(),
                                         jit_target(), error, options_.opt_level);
    if (factory) {
      for (const auto& library : factory->getLibraryList()) entry.dependencies.emplace_back(library);
      warnings = factory->getWarningMessages();
      if (cache.enabled()) entry.machine_code = writeDSPFactoryToMachine(factory, jit_target());
    }
  }
  if (!factory) {
    if (error.empty()) error = "the Faust compiler failed without a message";
    throw CompileError(format_faust_error(error, name, source_path.string()));
  }
  for (const auto& w : warnings) notice(format_faust_error(w, name, source_path.string()));
  program.factory_ = std::shared_ptr<llvm_dsp_factory>(factory, delete_factory);
  program.sources_.insert(program.sources_.end(), entry.dependencies.begin(),
                          entry.dependencies.end());
  if (!entry.machine_code.empty()) cache.store(key, entry);
  program.compile_s_ = seconds_since(start);
  return program;
}

}  // namespace mesh2dsp::runtime
