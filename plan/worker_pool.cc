#include "plan/worker_pool.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace gpuplan::plan {

namespace {

// One ParallelFor call: its pieces are handed out by `next`; it lives on the caller's stack
// until every piece has returned and no worker holds it.
struct Job {
  const std::function<void(size_t)>* work = nullptr;
  size_t n = 0;
  std::atomic<size_t> next{0};
  int holders = 0;  // workers running pieces of this job (guarded by the pool's mutex)
  std::exception_ptr failure;
  std::condition_variable finished;
};

class Pool {
 public:
  static Pool& Instance() {
    static Pool pool;
    return pool;
  }
  int Workers() const { return static_cast<int>(threads_.size()); }

  void Run(size_t n, const std::function<void(size_t)>& work, const std::function<void()>* first) {
    Job job;
    job.work = &work;
    job.n = n;
    if (!threads_.empty() && n > (first ? 0 : 1)) {
      KeepOffCallersCpu();
      std::lock_guard lock(mutex_);
      jobs_.push_back(&job);
      wake_.notify_all();
    }
    std::exception_ptr first_failure;
    if (first) {
      try {
        (*first)();
      } catch (...) {
        first_failure = std::current_exception();
      }
    }
    Pieces(job);
    std::unique_lock lock(mutex_);
    Withdraw(&job);
    job.finished.wait(lock, [&] { return job.holders == 0; });
    if (first_failure) std::rethrow_exception(first_failure);
    if (job.failure) std::rethrow_exception(job.failure);
  }

  ~Pool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      wake_.notify_all();
    }
    for (auto& t : threads_) t.join();
  }

 private:
  Pool() {
    CPU_ZERO(&allowed_);
    if (sched_getaffinity(0, sizeof(allowed_), &allowed_) != 0) CPU_ZERO(&allowed_);
    const unsigned workers = std::min(7u, UsableCpus() - 1);
    for (unsigned i = 0; i < workers; ++i) {
      try {
        threads_.emplace_back([this] { Serve(); });
      } catch (const std::system_error&) {
        break;  // no more threads (a pids limit): the callers' own threads do the work
      }
    }
  }

  // Before the workers are woken for a caller's job: their affinity becomes the process's
  // CPUs (as read when the pool started) but the caller's. A woken thread is often placed on
  // its waker's CPU, where the two only take turns while another CPU stays idle (seen with
  // `perf sched timehist` on the 2-vCPU machines of docs/benchmarks.md: a lone recommendation
  // then ran on one core). Skipped on a worker's own (nested) call, with fewer than two CPUs,
  // when the workers are kept off the caller's CPU already, and while another caller is
  // setting them. Best effort, and it changes speed, never an answer: the first call that
  // fails (a cpuset that shrank, a refused call) gives the workers every CPU the kernel lets
  // them have and turns this off for the life of the process.
  void KeepOffCallersCpu() {
    if (on_worker || CPU_COUNT(&allowed_) < 2 || affinity_off_.load(std::memory_order_relaxed)) {
      return;
    }
    const int cpu = sched_getcpu();
    if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed_)) return;
    if (kept_off_.load(std::memory_order_relaxed) == cpu) return;
    std::unique_lock lock(affinity_mutex_, std::try_to_lock);
    if (!lock || kept_off_.load(std::memory_order_relaxed) == cpu ||
        affinity_off_.load(std::memory_order_relaxed)) {
      return;
    }
    cpu_set_t others = allowed_;
    CPU_CLR(cpu, &others);
    bool failed = false;
    for (auto& t : threads_) {
      failed = failed || pthread_setaffinity_np(t.native_handle(), sizeof(others), &others) != 0;
    }
    if (!failed) {
      kept_off_.store(cpu, std::memory_order_relaxed);
      return;
    }
    cpu_set_t any;  // every CPU: the kernel keeps those of the cpuset that are online
    CPU_ZERO(&any);
    for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &any);
    for (auto& t : threads_) pthread_setaffinity_np(t.native_handle(), sizeof(any), &any);
    kept_off_.store(-1, std::memory_order_relaxed);
    affinity_off_.store(true, std::memory_order_relaxed);
  }

  // The CPUs this process may run on (its affinity mask: a container's cpuset), at least 1.
  unsigned UsableCpus() const {
    if (CPU_COUNT(&allowed_) > 0) return static_cast<unsigned>(CPU_COUNT(&allowed_));
    return std::max(1u, std::thread::hardware_concurrency());
  }

  // Runs pieces of `job` until none is left. A failure is kept on the job (the first one)
  // and stops the handing out.
  static void Pieces(Job& job) {
    for (size_t i; (i = job.next.fetch_add(1, std::memory_order_relaxed)) < job.n;) {
      try {
        (*job.work)(i);
      } catch (...) {
        job.next.store(job.n, std::memory_order_relaxed);
        std::lock_guard lock(failure_mutex_);
        if (!job.failure) job.failure = std::current_exception();
      }
    }
  }

  // Takes `job` off the queue (no new worker picks it up). Holds mutex_.
  void Withdraw(Job* job) {
    auto it = std::find(jobs_.begin(), jobs_.end(), job);
    if (it != jobs_.end()) jobs_.erase(it);
  }

  void Serve() {
    on_worker = true;
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      Job* job = jobs_.front();
      ++job->holders;
      lock.unlock();
      Pieces(*job);
      lock.lock();
      Withdraw(job);  // every piece is handed out once this worker found none left
      if (--job->holders == 0) job->finished.notify_all();
    }
  }

  static inline thread_local bool on_worker = false;  // this thread is one of the workers
  cpu_set_t allowed_;  // the process's CPUs when the pool started (not written after)
  std::mutex affinity_mutex_;  // one caller sets the workers' affinity at a time
  std::atomic<int> kept_off_{-1};  // the CPU the workers are kept off, once all were set
  std::atomic<bool> affinity_off_{false};  // a call failed: the workers may run anywhere
  static inline std::mutex failure_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job*> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

thread_local bool serial = false;  // SerialParallelFor

void Serially(size_t n, const std::function<void(size_t)>& work,
              const std::function<void()>* first) {
  if (first) (*first)();
  for (size_t i = 0; i < n; ++i) work(i);
}

}  // namespace

void ParallelFor(size_t n, const std::function<void(size_t)>& work) {
  if (n == 0) return;
  if (serial) return Serially(n, work, nullptr);
  Pool::Instance().Run(n, work, nullptr);
}

void ParallelFor(size_t n, const std::function<void(size_t)>& work,
                 const std::function<void()>& first) {
  if (serial) return Serially(n, work, &first);
  Pool::Instance().Run(n, work, &first);
}

SerialParallelFor::SerialParallelFor() : was_(serial) { serial = true; }
SerialParallelFor::~SerialParallelFor() { serial = was_; }

int ParallelWorkers() { return Pool::Instance().Workers(); }

}  // namespace gpuplan::plan
