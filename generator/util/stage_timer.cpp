#include "util/stage_timer.hpp"

#include <sys/resource.h>

namespace mesh2dsp {

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;  // Linux reports kilobytes
}

void StageTimer::start(std::string name) {
  stop();
  running_ = std::move(name);
  start_ = std::chrono::steady_clock::now();
}

void StageTimer::stop() {
  if (running_.empty()) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  records_.push_back({running_, s, peak_rss_mb()});
  running_.clear();
}

void StageTimer::split_last(const std::string& name, double seconds) {
  if (records_.empty()) return;
  records_.back().wall_s -= seconds;
  records_.insert(records_.end() - 1, {name, seconds, records_.back().peak_rss_mb});
}

double StageTimer::total_s() const {
  double t = 0;
  for (const auto& r : records_) t += r.wall_s;
  return t;
}

double StageTimer::seconds(const std::string& name) const {
  double t = 0;
  for (const auto& r : records_)
    if (r.name == name) t += r.wall_s;
  return t;
}

}  // namespace mesh2dsp
