// StopBoard: one std::stop_source per slot, for stress tests whose worker threads wait with a
// fresh stop_token while another thread cancels them at random.
//
// Thread-safety: any thread may call any method.
#ifndef BLOBTUNE_TESTS_COMMON_STOP_BOARD_H_
#define BLOBTUNE_TESTS_COMMON_STOP_BOARD_H_

#include <cstddef>
#include <stop_token>
#include <vector>

#include "blobtune/base/mutex.h"
#include "blobtune/base/thread_annotations.h"

namespace blobtune {

class StopBoard {
 public:
  explicit StopBoard(size_t slots) : sources_(slots) {}

  // A token of a new source for `slot`, replacing the slot's previous source.
  std::stop_token Fresh(size_t slot) {
    MutexLock lock(mu_);
    sources_[slot] = std::stop_source();
    return sources_[slot].get_token();
  }

  // Requests a stop of the slot's current source.
  void Stop(size_t slot) {
    MutexLock lock(mu_);
    sources_[slot].request_stop();
  }

 private:
  Mutex mu_;
  std::vector<std::stop_source> sources_ BLOBTUNE_GUARDED_BY(mu_);
};

}  // namespace blobtune

#endif  // BLOBTUNE_TESTS_COMMON_STOP_BOARD_H_
