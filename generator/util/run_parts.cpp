#include "util/run_parts.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>

#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace mesh2dsp {
namespace {

// What the caller and its workers share; the workers hold it, so it outlives a pool a forked
// child has to abandon.
struct Shared {
  std::mutex mutex;
  std::condition_variable wake, done;
  const std::function<void(int)>* job = nullptr;
  long generation = 0;
  int parts = 0, pending = 0;
  bool stop = false;
  std::vector<std::exception_ptr> failures;
};

void work(const std::shared_ptr<Shared>& s, int index) {
  long seen = 0;
  for (;;) {
    std::unique_lock lock(s->mutex);
    s->wake.wait(lock, [&] { return s->stop || s->generation != seen; });
    if (s->stop) return;
    seen = s->generation;
    if (index >= s->parts) continue;
    const std::function<void(int)>& job = *s->job;
    lock.unlock();
    std::exception_ptr failure;
    try {
      job(index);
    } catch (...) {
      failure = std::current_exception();
    }
    lock.lock();
    s->failures[index] = failure;
    if (--s->pending == 0) s->done.notify_one();
  }
}

class Pool {
 public:
  ~Pool() {
    // A forked child's copy has no threads behind it: nothing to stop or join.
    if (!threads_ || owner_ != ::getpid()) return;
    {
      std::lock_guard lock(shared_->mutex);
      shared_->stop = true;
    }
    shared_->wake.notify_all();
    for (auto& t : *threads_) t.join();
    delete threads_;
  }

  void run(int parts, const std::function<void(int)>& part) {
    if (owner_ != ::getpid()) {
      // After fork() the workers are gone; their std::thread objects cannot be destroyed while
      // joinable, so the old ones are kept aside (reachable, for leak checkers) and new ones
      // started.
      static std::vector<std::pair<std::shared_ptr<Shared>, std::vector<std::thread>*>> abandoned;
      abandoned.emplace_back(shared_, threads_);
      shared_ = std::make_shared<Shared>();
      threads_ = nullptr;
      owner_ = ::getpid();
    }
    if (!threads_) threads_ = new std::vector<std::thread>;
    while (static_cast<int>(threads_->size()) < parts - 1)
      threads_->emplace_back(work, shared_, static_cast<int>(threads_->size()) + 1);
    {
      std::lock_guard lock(shared_->mutex);
      shared_->job = &part;
      shared_->parts = parts;
      shared_->pending = parts - 1;
      shared_->failures.assign(parts, nullptr);
      ++shared_->generation;
    }
    shared_->wake.notify_all();
    std::exception_ptr mine;
    try {
      part(0);
    } catch (...) {
      mine = std::current_exception();
    }
    std::unique_lock lock(shared_->mutex);
    shared_->done.wait(lock, [&] { return shared_->pending == 0; });
    if (mine) std::rethrow_exception(mine);
    for (const auto& f : shared_->failures)
      if (f) std::rethrow_exception(f);
  }

 private:
  std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
  std::vector<std::thread>* threads_ = nullptr;
  pid_t owner_ = ::getpid();
};

}  // namespace

void run_parts(int parts, const std::function<void(int)>& part) {
  if (parts <= 1) {
    part(0);
    return;
  }
  static Pool pool;
  pool.run(parts, part);
}

int row_parts(int rows) { return std::max(1, std::min(omp_get_num_procs(), rows / 4096)); }

int part_begin(int rows, int part, int parts) {
  return static_cast<int>(static_cast<long>(rows) * part / parts);
}

void run_row_parts(int rows, const std::function<void(int, int)>& range) {
  const int parts = row_parts(rows);
  run_parts(parts, [&](int part) { range(part_begin(rows, part, parts), part_begin(rows, part + 1, parts)); });
}

}  // namespace mesh2dsp
