#pragma once
// Runs a shell command for end-to-end tests and captures its exit code and its stdout + stderr.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace mesh2dsp::test {

struct CommandRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

inline CommandRun run_command(const std::string& command) {
  CommandRun r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace mesh2dsp::test
