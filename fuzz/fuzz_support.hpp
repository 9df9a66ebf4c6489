#pragma once
// Shared by the libFuzzer harnesses: the readers take a path (the extension picks the format),
// so each input is written to a private temporary file first; and the one rule every harness
// checks — a user's bytes end in mesh2dsp::Error (one clear message) or in success, never in
// a crash, a hang, a leak or another exception (which the CLI reports as "internal error").
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>
#include <string_view>
#include <typeinfo>

#include "util/error.hpp"

namespace mesh2dsp::fuzz {

// A directory of this process's own, removed at exit (libFuzzer may run several jobs at once).
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::string templ = std::string(base && *base ? base : "/tmp") + "/mesh2dsp-fuzz-XXXXXX";
    if (!mkdtemp(templ.data())) {
      std::perror("mesh2dsp fuzz: mkdtemp");
      std::abort();
    }
    static const std::string keep = templ;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(keep, ec);
    });
    return std::filesystem::path(templ);
  }();
  return dir;
}

// Writes `bytes` to scratch_dir()/name and returns the path.
inline std::filesystem::path write_scratch(const std::string& name, std::string_view bytes) {
  const auto path = scratch_dir() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "mesh2dsp fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
  return path;
}

// Runs `body`; mesh2dsp::Error is the expected outcome of bad input. Anything else escaping is
// a finding: abort so that libFuzzer (or the corpus replay test) reports it with the input.
template <class Body>
void expect_clean_outcome(Body&& body) {
  try {
    body();
  } catch (const Error&) {
    // the one clear message a user sees: fine
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mesh2dsp fuzz: unexpected %s: %s\n", typeid(e).name(), e.what());
    std::abort();
  }
}

}  // namespace mesh2dsp::fuzz
