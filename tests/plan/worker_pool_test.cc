// ParallelFor: every piece runs exactly once, on the caller and the workers, whatever the
// number of concurrent callers; a piece's exception reaches the caller; the workers are kept
// off the caller's CPU.
#include "plan/worker_pool.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace gpuplan::plan {
namespace {

TEST(WorkerPoolTest, EveryPieceRunsExactlyOnce) {
  for (size_t n : {0, 1, 2, 7, 1000}) {
    std::vector<std::atomic<int>> runs(n);
    ParallelFor(n, [&](size_t i) { runs[i].fetch_add(1); });
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(runs[i].load(), 1) << "piece " << i << " of " << n;
  }
}

TEST(WorkerPoolTest, ConcurrentCallersEachGetAllTheirPiecesDone) {
  constexpr int kCallers = 8;
  constexpr size_t kPieces = 500;
  std::vector<std::vector<std::atomic<int>>> runs(kCallers);
  for (auto& r : runs) r = std::vector<std::atomic<int>>(kPieces);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < 20; ++round) {
        ParallelFor(kPieces, [&](size_t i) { runs[c][i].fetch_add(1); });
      }
    });
  }
  for (auto& t : callers) t.join();
  for (int c = 0; c < kCallers; ++c) {
    for (size_t i = 0; i < kPieces; ++i) ASSERT_EQ(runs[c][i].load(), 20) << c << " " << i;
  }
}

TEST(WorkerPoolTest, PiecesRunOnTheSpareCoresAsWell) {
  if (ParallelWorkers() == 0) GTEST_SKIP() << "one hardware thread: no workers";
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::atomic<int> waiting = 0;
  // Two pieces that each wait for the other to start can only finish on two threads.
  ParallelFor(2, [&](size_t) {
    {
      std::lock_guard lock(mutex);
      threads.insert(std::this_thread::get_id());
    }
    waiting.fetch_add(1);
    // Waits for the other piece (a few seconds at most: fails rather than hangs).
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (waiting.load() < 2 && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::yield();
    }
  });
  EXPECT_EQ(waiting.load(), 2);
  EXPECT_EQ(threads.size(), 2u);
}

// A worker woken for a call is kept off the CPU its caller runs on: a caller pinned to one CPU
// (twice: the second call finds the workers kept off it already), then to another, in turn,
// sees a worker's piece on some other CPU each time.
TEST(WorkerPoolTest, TheWorkersAreKeptOffTheCallersCpu) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) cpus.push_back(cpu);
  }
  if (ParallelWorkers() == 0 || cpus.size() < 2) GTEST_SKIP() << "one CPU: no workers";
  for (int round = 0; round < 12; ++round) {
    const int caller_cpu = cpus[(round / 2) % 2];  // twice from each CPU in turn
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(caller_cpu, &one);
    if (sched_setaffinity(0, sizeof(one), &one) != 0) {  // this thread only
      GTEST_SKIP() << "this thread cannot be pinned to CPU " << caller_cpu;
    }
    const std::thread::id caller = std::this_thread::get_id();
    std::atomic<int> waiting = 0, worker_cpu = -1;
    // Two pieces that each wait for the other: one runs on a worker.
    ParallelFor(2, [&](size_t) {
      if (std::this_thread::get_id() != caller) worker_cpu = sched_getcpu();
      waiting.fetch_add(1);
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (waiting.load() < 2 && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::yield();
      }
    });
    ASSERT_EQ(sched_setaffinity(0, sizeof(allowed), &allowed), 0);
    ASSERT_EQ(waiting.load(), 2) << "the pieces did not run on two threads";
    EXPECT_NE(worker_cpu.load(), -1) << "no piece ran on a worker";
    EXPECT_NE(worker_cpu.load(), caller_cpu) << "a worker ran on the caller's CPU";
  }
}

TEST(WorkerPoolTest, AnExceptionOfAPieceReachesTheCaller) {
  std::atomic<int> ran = 0;
  EXPECT_THROW(ParallelFor(100,
                           [&](size_t i) {
                             ran.fetch_add(1);
                             if (i == 3) throw std::runtime_error("piece 3");
                           }),
               std::runtime_error);
  EXPECT_LE(ran.load(), 100);
  // The pool still works afterwards.
  std::atomic<int> after = 0;
  ParallelFor(10, [&](size_t) { after.fetch_add(1); });
  EXPECT_EQ(after.load(), 10);
}

TEST(WorkerPoolTest, FirstRunsOnTheCallerBesideThePieces) {
  const auto caller = std::this_thread::get_id();
  std::thread::id ran_on;
  std::vector<std::atomic<int>> runs(50);
  ParallelFor(
      runs.size(), [&](size_t i) { runs[i].fetch_add(1); },
      [&] { ran_on = std::this_thread::get_id(); });
  EXPECT_EQ(ran_on, caller);
  for (auto& r : runs) EXPECT_EQ(r.load(), 1);
  // Its exception reaches the caller once the pieces are done; none is lost.
  std::atomic<int> done = 0;
  EXPECT_THROW(ParallelFor(
                   20, [&](size_t) { done.fetch_add(1); },
                   [] { throw std::runtime_error("first"); }),
               std::runtime_error);
  EXPECT_EQ(done.load(), 20);
}

}  // namespace
}  // namespace gpuplan::plan
