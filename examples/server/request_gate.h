// RequestGate: how many store accesses of one kind (reads, or writes) blobtune-server handles at
// once. A request whose header is in and routed enters its kind's gate before it is handled, and
// leaves it once its answer is made; past the gate's capacity it parks, with its body unread,
// until a request ahead of it leaves (first come, first served).
//
//   RequestGate writes([&] { return 2 * write_limiter->limit(); });
//   co_await writes.Enter();   // at once below capacity, else parked
//   ... wait for a permit, read the body, store it, answer ...
//   writes.Leave();
//
// Why: under overload the excess requests cost nothing while they wait. A request that is
// refused costs a parse, an answer and, for most clients, a new request at once: at small sizes
// more than serving one, so refusing at a high rate takes the CPU the admitted requests need. A
// parked request costs its socket's buffers. Its wait is bounded by the requests ahead of it (at
// most one per connection) over the rate the server answers them, and counts in its duration.
// The capacity follows the kind's limiter: every permit busy and one request in hand for each
// (the next one is ready when a permit frees), so that the limiter still sees the demand above
// its limit and the load shedder still refuses what would wait past the deadline.
//
// Thread-safety: not thread-safe; the server calls it from its event-loop thread only.
#ifndef BLOBTUNE_EXAMPLES_SERVER_REQUEST_GATE_H_
#define BLOBTUNE_EXAMPLES_SERVER_REQUEST_GATE_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <cstddef>
#include <deque>
#include <functional>

namespace blobtune::server {

class Wakeup;

class RequestGate {
 public:
  // `capacity` is asked each time a request would enter or a parked one could: it may change.
  // `on_parked`, if set, hears the number of parked requests whenever it changes.
  explicit RequestGate(std::function<size_t()> capacity,
                       std::function<void(size_t)> on_parked = {})
      : capacity_(std::move(capacity)), on_parked_(std::move(on_parked)) {}
  RequestGate(const RequestGate&) = delete;
  RequestGate& operator=(const RequestGate&) = delete;
  ~RequestGate() = default;

  // Returns once the caller is inside: at once below capacity with nobody parked, else when a
  // Leave() or Open() lets it in. REQUIRES: every Enter() that returned is matched by a Leave().
  boost::asio::awaitable<void> Enter();
  void Leave();
  // From now on every request enters at once, and the parked ones enter now (shutdown).
  void Open();

  size_t inside() const noexcept { return inside_; }
  size_t parked() const noexcept { return parked_.size(); }

 private:
  bool HasRoom() const { return open_ || inside_ < capacity_(); }
  void LetIn();
  void ParkedChanged() {
    if (on_parked_) on_parked_(parked_.size());
  }

  std::function<size_t()> capacity_;
  std::function<void(size_t)> on_parked_;
  size_t inside_ = 0;
  bool open_ = false;
  // The parked requests, oldest first; LetIn() pops them as it lets them in.
  std::deque<Wakeup*> parked_;
};

}  // namespace blobtune::server

#endif  // BLOBTUNE_EXAMPLES_SERVER_REQUEST_GATE_H_
