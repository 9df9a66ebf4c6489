#pragma once
// Runs a scope on one thread: OpenBLAS (CHOLMOD's supernodal triangular solves call it) and
// OpenMP (Eigen's sparse products) both spin their idle threads while waiting for work. A
// time loop issues ~10⁵ small solves a second, each too small to share, so on a shared
// machine the spinning was 10–20 % system time and a 2–9× longer wall time (issue 12). The
// time loop's supernodal factorization runs serially as well (a threaded one's idle workers
// spin for ~0.1 s into the loop: SupernodalCholesky), and so does the Lanczos iteration of the eigen solve (single-vector
// solves: 4× slower with spinning threads on 2 cores). OpenBLAS is looked up at run time: with
// another BLAS the call does nothing.
namespace mesh2dsp {

// User and system CPU seconds of the whole process so far (getrusage).
struct CpuTimes {
  double user_s = 0, system_s = 0;
};
CpuTimes process_cpu_times();

class SerialThreads {
 public:
  SerialThreads();
  ~SerialThreads();
  SerialThreads(const SerialThreads&) = delete;
  SerialThreads& operator=(const SerialThreads&) = delete;

 private:
  void (*set_blas_)(int) = nullptr;
  int previous_blas_ = 0, previous_omp_ = 0;
};

}  // namespace mesh2dsp
