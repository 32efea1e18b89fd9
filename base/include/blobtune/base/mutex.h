// Mutex, MutexLock and CondVar: std::mutex and std::condition_variable with clang
// thread-safety annotations, so that BLOBTUNE_GUARDED_BY members are checked at compile time
// (libstdc++'s std::mutex carries no annotations).
//
//   Mutex mu;
//   int count BLOBTUNE_GUARDED_BY(mu);
//   { MutexLock lock(mu); ++count; }
//
// Thread-safety: a Mutex is what makes other things thread-safe; MutexLock is one thread's.
#ifndef BLOBTUNE_BASE_MUTEX_H_
#define BLOBTUNE_BASE_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <utility>

#include "blobtune/base/thread_annotations.h"

namespace blobtune {

class BLOBTUNE_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() BLOBTUNE_ACQUIRE() { mu_.lock(); }
  void Unlock() BLOBTUNE_RELEASE() { mu_.unlock(); }
  bool TryLock() BLOBTUNE_TRY_ACQUIRE(true) { return mu_.try_lock(); }

 private:
  friend class MutexLock;
  std::mutex mu_;
};

// Holds a Mutex for its lifetime.
class BLOBTUNE_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) BLOBTUNE_ACQUIRE(mu) : lock_(mu.mu_) {}
  ~MutexLock() BLOBTUNE_RELEASE() = default;
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  friend class CondVar;
  std::unique_lock<std::mutex> lock_;
};

// A condition variable used with MutexLock. Waits may wake spuriously: loop on the condition.
class CondVar {
 public:
  void Wait(MutexLock& lock) { cv_.wait(lock.lock_); }
  void WaitFor(MutexLock& lock, std::chrono::nanoseconds timeout) {
    cv_.wait_for(lock.lock_, timeout);
  }
  // Waits until `ready()` holds or `timeout` has passed, and returns ready(). `ready` runs with
  // the lock held; a lambda that reads guarded members says so, and clang checks its body:
  //   cv_.WaitFor(lock, timeout, [this]() BLOBTUNE_REQUIRES(mu_) { return stopping_; });
  // The analysis cannot see that the lock is held here (std::condition_variable's waits are
  // not annotated), so this one function is not checked.
  template <typename Predicate>
  bool WaitFor(MutexLock& lock, std::chrono::nanoseconds timeout,
               Predicate ready) BLOBTUNE_NO_THREAD_SAFETY_ANALYSIS {
    return cv_.wait_for(lock.lock_, timeout, std::move(ready));
  }
  void NotifyOne() noexcept { cv_.notify_one(); }
  void NotifyAll() noexcept { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace blobtune

#endif  // BLOBTUNE_BASE_MUTEX_H_
