//===- ThreadPool.h - a small spinning pool for kernel partitions -*- C++ -*-===//
//
// Runs fn(part, parts) for part = 0..parts-1 on `threads` threads (the caller
// is thread 0), then returns. Workers spin briefly on a generation counter
// before sleeping, so dispatching a few-microsecond kernel costs well under a
// microsecond when called back to back (as in a benchmark or a model's layer
// loop), and idle workers do not burn a core. Header-only and free of tisa
// dependencies so that vendor adapters in bench/ use the same pool.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_KERNELS_THREADPOOL_H
#define TISA_KERNELS_THREADPOOL_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tisa {

class ThreadPool {
public:
  explicit ThreadPool(int threads) : threads_(threads < 1 ? 1 : threads) {
    for (int t = 1; t < threads_; ++t)
      workers_.emplace_back([this, t] { work(t); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread &w : workers_)
      w.join();
  }
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  int threads() const { return threads_; }

  /// Calls fn(part, parts) for every part in [0, parts); parts are handed
  /// out dynamically. Not reentrant.
  void run(int64_t parts, const std::function<void(int64_t, int64_t)> &fn) {
    if (threads_ == 1 || parts <= 1) {
      for (int64_t p = 0; p < parts; ++p)
        fn(p, parts);
      return;
    }
    fn_ = &fn;
    parts_ = parts;
    next_.store(0, std::memory_order_relaxed);
    pending_.store(threads_ - 1, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    drain();
    while (pending_.load(std::memory_order_acquire) != 0)
      pause();
    fn_ = nullptr;
  }

private:
  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
  void drain() {
    for (int64_t p; (p = next_.fetch_add(1, std::memory_order_relaxed)) <
                    parts_;)
      (*fn_)(p, parts_);
  }
  void work(int) {
    uint64_t seen = 0;
    for (;;) {
      uint64_t gen = generation_.load(std::memory_order_acquire);
      for (int spin = 0; gen == seen && spin < (1 << 16); ++spin) {
        pause();
        gen = generation_.load(std::memory_order_acquire);
      }
      if (gen == seen) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] {
          return generation_.load(std::memory_order_acquire) != seen;
        });
        gen = generation_.load(std::memory_order_acquire);
      }
      seen = gen;
      if (stop_)
        return;
      drain();
      pending_.fetch_sub(1, std::memory_order_release);
    }
  }

  int threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int64_t> next_{0};
  std::atomic<int> pending_{0};
  const std::function<void(int64_t, int64_t)> *fn_ = nullptr;
  int64_t parts_ = 0;
  bool stop_ = false;
};

} // namespace tisa

#endif // TISA_KERNELS_THREADPOOL_H
