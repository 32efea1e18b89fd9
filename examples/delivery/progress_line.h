// ProgressLine: one line of progress on stderr for a long run, rewritten in place with '\r'
// from a ticker thread a few times a second and cleared at the end; silent when stderr is not
// a terminal, so logs and pipes get only the results.
//
//   ProgressLine progress([&] { return "round " + std::to_string(done.load()) + "/8"; });
//   ...  // The ticker calls the function every 200 ms.
//   progress.Above([] { std::printf("a result\n"); });  // Printed where the line was.
//   progress.Stop();  // Clears the line (the destructor does too).
//
// Thread-safety: the text function runs on the ticker thread and must read only what is safe
// to read there (atomics, thread-safe getters); Above() from any thread; Stop() and the
// destructor from the owner.
#ifndef BLOBTUNE_EXAMPLES_DELIVERY_PROGRESS_LINE_H_
#define BLOBTUNE_EXAMPLES_DELIVERY_PROGRESS_LINE_H_

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "blobtune/base/mutex.h"

namespace blobtune::delivery {

class ProgressLine {
 public:
  // Starts the ticker when `enabled` (e.g. isatty(STDERR_FILENO)); otherwise does nothing.
  ProgressLine(bool enabled, std::function<std::string()> text,
               std::chrono::milliseconds interval = std::chrono::milliseconds(200));
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine();

  // Runs `print` (which writes whole lines to stdout) with the line cleared, so that results
  // and progress share a terminal; the line comes back at the next tick.
  void Above(const std::function<void()>& print);

  // Stops the ticker and clears the line. Idempotent.
  void Stop();

 private:
  void Tick() BLOBTUNE_EXCLUDES(mutex_);
  void ClearLocked() BLOBTUNE_REQUIRES(mutex_);

  const bool enabled_;
  std::function<std::string()> text_;
  const std::chrono::milliseconds interval_;
  Mutex mutex_;
  CondVar wake_;
  bool stopping_ BLOBTUNE_GUARDED_BY(mutex_) = false;
  size_t width_ BLOBTUNE_GUARDED_BY(mutex_) = 0;  // The length of the line on screen.
  std::thread ticker_;
};

}  // namespace blobtune::delivery

#endif  // BLOBTUNE_EXAMPLES_DELIVERY_PROGRESS_LINE_H_
