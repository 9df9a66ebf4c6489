#pragma once
// Runs part(0) … part(parts − 1) at once, one thread each (the caller runs part 0), and returns
// when all are done. Plain threads rather than an OpenMP team: after a parallel region libgomp's
// idle workers spin (GOMP_SPINCOUNT, some milliseconds) while the caller goes on alone, and the
// eigen iteration calls this hundreds of times between single-threaded triangular solves. On a
// busy 2-core machine the spinning took a third of the CPU; the 5 mm benchmark bar's 50 modes
// took 9.6–10.2 s with it and 7.0–7.6 s without (OMP_WAIT_POLICY=passive). Starting a thread
// costs some tens of microseconds, against products of a millisecond and more.
#include <exception>
#include <thread>
#include <vector>

namespace mesh2dsp {

template <class Part>
void run_parts(int parts, const Part& part) {
  if (parts <= 1) {
    part(0);
    return;
  }
  std::vector<std::exception_ptr> failures(parts);
  std::vector<std::thread> threads;
  threads.reserve(parts - 1);
  for (int p = 1; p < parts; ++p)
    threads.emplace_back([&, p] {
      try {
        part(p);
      } catch (...) {
        failures[p] = std::current_exception();
      }
    });
  try {
    part(0);
  } catch (...) {
    failures[0] = std::current_exception();
  }
  for (auto& t : threads) t.join();
  for (const auto& f : failures)
    if (f) std::rethrow_exception(f);
}

}  // namespace mesh2dsp
