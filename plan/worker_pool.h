// Runs independent pieces of one request's work on the process's spare cores: the
// recommendation walks estimate each distinct hardware configuration of the catalog (a few
// hundred model estimates of several microseconds each) before ranking them.
//
// ParallelFor(n, work) calls work(i) once for every i in [0, n) and returns when all calls
// have returned. The calling thread takes part, so the call always makes progress, also when
// every worker is busy with other requests' work or the process has one core (no workers).
// Calls may run in any order and concurrently: `work` must be safe to call from several
// threads at once, and must not depend on thread-local state of the caller (plan/deadline.h's
// clock, db's per-request catalog state: read those before, on the calling thread). An
// exception thrown by `work` stops the handing out of further indices and is rethrown on the
// calling thread once the calls running have returned.
//
// Thread-safe: any number of threads may call ParallelFor at once (each call's pieces are
// shared out in the order the calls came), and a piece may call ParallelFor itself (the
// caller always runs its own pieces, so nothing waits on a busy pool). The workers are
// started on first use (the CPUs of the process's affinity mask - 1, at most 7; fewer if
// threads cannot be created) and joined at process exit: do not call it after main returns.
// A CPU quota (cgroup cpu.max) is not read: where one is far below the mask, the workers
// share it with the HTTP threads. Before a call wakes the workers it tries to keep them off
// the caller's CPU (their affinity becomes the mask's other CPUs, and stays so until a caller
// on another CPU changes it), so that they are not woken onto it to take turns with the
// caller while another CPU idles. Best effort: skipped while another caller sets it, turned
// off for good when a call fails. The mask is read when the pool starts: a later change of
// the process's affinity (taskset, a cpuset that grew) is not followed by the workers.
// Measured in docs/benchmarks.md (single requests, back to back, four concurrent callers).
#pragma once

#include <cstddef>
#include <functional>

namespace gpuplan::plan {

void ParallelFor(size_t n, const std::function<void(size_t)>& work);

// The same, with `first` run on the calling thread while the workers already take pieces
// (work of the caller's own that may overlap the pieces, such as reads of the request's
// catalog); the caller then takes pieces too. Returns when `first` and every piece have
// returned; an exception of `first` is rethrown then, before any of the pieces'.
void ParallelFor(size_t n, const std::function<void(size_t)>& work,
                 const std::function<void()>& first);

// While one lives on a thread, ParallelFor calls from that thread run `first` and then every
// piece on it, in order: tests compare an answer planned with and without the workers.
class SerialParallelFor {
 public:
  SerialParallelFor();
  ~SerialParallelFor();
  SerialParallelFor(const SerialParallelFor&) = delete;
  SerialParallelFor& operator=(const SerialParallelFor&) = delete;

 private:
  bool was_;
};

// How many threads besides the caller run pieces.
int ParallelWorkers();

}  // namespace gpuplan::plan
