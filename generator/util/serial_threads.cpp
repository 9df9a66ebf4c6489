#include "util/serial_threads.hpp"

#include <dlfcn.h>
#include <sys/resource.h>
#ifdef _OPENMP
#include <omp.h>
#endif

namespace mesh2dsp {

CpuTimes process_cpu_times() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return {seconds(usage.ru_utime), seconds(usage.ru_stime)};
}

SerialThreads::SerialThreads() {
  set_blas_ = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  auto get = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  if (set_blas_ && get) {
    previous_blas_ = get();
    set_blas_(1);
  }
#ifdef _OPENMP
  previous_omp_ = omp_get_max_threads();
  omp_set_num_threads(1);
#endif
}

SerialThreads::~SerialThreads() {
  if (set_blas_ && previous_blas_ > 0) set_blas_(previous_blas_);
#ifdef _OPENMP
  if (previous_omp_ > 0) omp_set_num_threads(previous_omp_);
#endif
}

}  // namespace mesh2dsp
