#pragma once
// Progress for long work: a redrawn line on a terminal, nothing when stderr is not a terminal
// or when quiet. Notices (warnings the user should see) go to stderr unless quiet.
#include <chrono>
#include <string>

namespace mesh2dsp {

void set_quiet(bool quiet);
bool is_quiet();

// Prints "mesh2dsp: notice: ..." on stderr unless quiet.
void notice(const std::string& message);

class Progress {
 public:
  explicit Progress(std::string stage);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // fraction in [0, 1]; redraws at most ~10 times a second.
  void update(double fraction, const std::string& detail = {});
  void finish(const std::string& detail = {});
  double elapsed_s() const;

 private:
  std::string stage_;
  bool enabled_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace mesh2dsp
