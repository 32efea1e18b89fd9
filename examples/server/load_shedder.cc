#include "load_shedder.h"

#include <algorithm>
#include <cstddef>

namespace blobtune::server {

Status LoadShedder::Admit(TimePoint now) {
  if (limiter_ == nullptr || !slow_ || !last_timeout_ || now - *last_timeout_ > window_) {
    return Status::Ok();
  }
  const size_t waiting = limiter_->queue_length();
  const int limit = std::max(1, limiter_->limit());
  if (waiting < static_cast<size_t>(limit)) return Status::Ok();
  // TryAcquire fails while anyone waits; a permit freed meanwhile is given back at once, for
  // this request to take in its turn.
  if (std::optional<tuner::Permit> freed = limiter_->TryAcquire()) return Status::Ok();
  return Status::Unavailable("overloaded: " + std::to_string(waiting) + " " + what_ +
                             " already wait for the " + std::to_string(limit) + " " + what_ +
                             " that may run at once");
}

void LoadShedder::Observe(const Status& status, TimePoint started, TimePoint now,
                          TimePoint deadline) {
  if (status.ok()) {
    slow_ = now - started >= (deadline - started) / 2;
  } else if (status.code() == StatusCode::kDeadlineExceeded && now >= deadline) {
    last_timeout_ = now;  // A wait the limiter cut short says nothing new.
    slow_ = true;
  }
}

}  // namespace blobtune::server
