#pragma once
// Runs part(0) … part(parts − 1) at once, one thread each (the caller runs part 0), and returns
// when all are done. Its own threads rather than an OpenMP team: after a parallel region
// libgomp's idle workers spin (GOMP_SPINCOUNT, some milliseconds) while the caller goes on alone,
// and the eigen iteration calls this hundreds of times between single-threaded triangular
// solves. On a busy 2-core machine the spinning took a third of the CPU; the 5 mm benchmark bar's
// 50 modes took 9.6–10.2 s with it and 7.0–7.6 s without (OMP_WAIT_POLICY=passive). The workers
// are kept between calls and sleep on a condition variable: a thread started per call cost the
// bundled bell at 0.7 m (100 k DOF) 5 % of its quiet 17 s.
#include <functional>

namespace mesh2dsp {

// An exception from a part is rethrown here once all parts have ended. One caller at a time
// (the eigen iteration's thread); safe across fork() (a child starts its own workers).
void run_parts(int parts, const std::function<void(int)>& part);

// Rows split among the cores for a memory-bound pass over a block: one part per core, each of a
// few thousand rows at least (below that, handing over costs more than it saves).
int row_parts(int rows);
// The first row of `part` of `parts` (part == parts: `rows`).
int part_begin(int rows, int part, int parts);
// range(begin, end) for each of row_parts(rows) parts at once.
void run_row_parts(int rows, const std::function<void(int begin, int end)>& range);

}  // namespace mesh2dsp
