// Mutex, MutexLock and CondVar: std::mutex and std::condition_variable with clang
// thread-safety annotations, so that GUARDED_BY members are checked at compile time
// (libstdc++'s std::mutex carries no annotations).
//
//   Mutex mu;
//   int count GUARDED_BY(mu);
//   { MutexLock lock(mu); ++count; }
//
// Thread-safety: a Mutex is what makes other things thread-safe; MutexLock is one thread's.
#ifndef BLOBTUNE_TUNER_MUTEX_H_
#define BLOBTUNE_TUNER_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "blobtune/tuner/thread_annotations.h"

namespace blobtune {

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  bool TryLock() TRY_ACQUIRE(true) { return mu_.try_lock(); }

 private:
  friend class MutexLock;
  std::mutex mu_;
};

// Holds a Mutex for its lifetime.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ACQUIRE(mu) : lock_(mu.mu_) {}
  ~MutexLock() RELEASE() = default;
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
  void NotifyOne() noexcept { cv_.notify_one(); }
  void NotifyAll() noexcept { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace blobtune

#endif  // BLOBTUNE_TUNER_MUTEX_H_
