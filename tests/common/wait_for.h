// WaitFor: waits until a condition that another thread or process brings about holds, or a
// deadline passes, for state that offers nothing to block on (a server's socket table, another
// program's HTTP API). Polls the condition; the pause between polls is the only fixed wait.
//
//   ASSERT_TRUE(WaitFor([&] { return server.WriteInflight() == 1; }, 10s));
//
// Prefer a condition variable, a callback, a pipe or a socket when the code offers one.
//
// Thread-safety: a plain function; `condition` runs on the caller's thread.
#ifndef BLOBTUNE_TESTS_COMMON_WAIT_FOR_H_
#define BLOBTUNE_TESTS_COMMON_WAIT_FOR_H_

#include <chrono>
#include <thread>

namespace blobtune::testing {

// True as soon as `condition()` is true; false if it is still false after `timeout`.
template <typename Condition>
bool WaitFor(Condition&& condition, std::chrono::steady_clock::duration timeout,
             std::chrono::steady_clock::duration poll_every = std::chrono::milliseconds(5)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(poll_every);  // The one pause between polls.
  }
}

}  // namespace blobtune::testing

#endif  // BLOBTUNE_TESTS_COMMON_WAIT_FOR_H_
