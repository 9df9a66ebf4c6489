#pragma once
// Wall time and the process's peak memory after each named stage, for summaries and `bench`.
#include <chrono>
#include <string>
#include <vector>

namespace mesh2dsp {

struct StageRecord {
  std::string name;
  double wall_s = 0;
  double peak_rss_mb = 0;  // high-water mark of the whole process when the stage ended
};

class StageTimer {
 public:
  void start(std::string name);
  void stop();  // ends the running stage, if any
  // Moves `seconds` of the last record into a new record `name` (a sub-stage measured inside).
  void split_last(const std::string& name, double seconds);
  const std::vector<StageRecord>& records() const { return records_; }
  double total_s() const;
  double seconds(const std::string& name) const;  // 0 when the stage did not run

 private:
  std::vector<StageRecord> records_;
  std::string running_;
  std::chrono::steady_clock::time_point start_;
};

double peak_rss_mb();

}  // namespace mesh2dsp
