// SyncCompletion: lets a caller wait on its own thread for a write it submitted with a callback
// (BlobStore::SubmitWrite), for the blocking Put and Erase of either backend.
//
//   SyncCompletion completion;
//   Submit(op, completion.Callback());  // the callback runs once, on another thread
//   Status s = completion.Wait();
//
// Thread-safety: Callback's function from any one thread, Wait from the caller's; the object
// must outlive the callback's run (Wait returning guarantees it).
#ifndef BLOBTUNE_STORE_SRC_SYNC_COMPLETION_H_
#define BLOBTUNE_STORE_SRC_SYNC_COMPLETION_H_

#include <utility>

#include "blobtune/base/mutex.h"
#include "blobtune/base/status.h"
#include "blobtune/store/blob_store.h"

namespace blobtune::store::internal {

class SyncCompletion {
 public:
  WriteCallback Callback() {
    return [this](Status s) {
      // Notify under the lock: once the waiter can see done_ it may return and destroy cv_.
      MutexLock lock(mu_);
      status_ = std::move(s);
      done_ = true;
      cv_.NotifyOne();
    };
  }
  Status Wait() {
    MutexLock lock(mu_);
    while (!done_) cv_.Wait(lock);
    return status_;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  bool done_ BLOBTUNE_GUARDED_BY(mu_) = false;
  Status status_ BLOBTUNE_GUARDED_BY(mu_);
};

}  // namespace blobtune::store::internal

#endif  // BLOBTUNE_STORE_SRC_SYNC_COMPLETION_H_
