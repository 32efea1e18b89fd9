#include "load_shedder.h"

#include <algorithm>
#include <cstddef>

namespace blobtune::server {

Status LoadShedder::Admit(TimePoint now) {
  if (limiter_ == nullptr || !last_timeout_ || now - *last_timeout_ > window_) return Status::Ok();
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

void LoadShedder::Observe(const Status& status, TimePoint now) {
  if (status.code() == StatusCode::kDeadlineExceeded) last_timeout_ = now;
}

}  // namespace blobtune::server
