#include "request_gate.h"

#include <algorithm>
#include <boost/asio/this_coro.hpp>

#include "wakeup.h"

namespace blobtune::server {

boost::asio::awaitable<void> RequestGate::Enter() {
  if (parked_.empty() && HasRoom()) {
    ++inside_;
    co_return;
  }
  Wakeup wake(co_await boost::asio::this_coro::executor);
  parked_.push_back(&wake);
  ParkedChanged();
  // If the coroutine is destroyed while parked (its io_context goes), it leaves the queue; if
  // it had been let in, it gives its place back.
  struct Unpark {
    RequestGate& gate;
    Wakeup& wake;
    bool entered = false;
    ~Unpark() {
      if (entered) return;
      if (wake.granted()) {
        gate.Leave();
      } else {
        std::erase(gate.parked_, &wake);
        gate.ParkedChanged();
      }
    }
  } unpark{*this, wake};
  co_await wake.Wait();
  unpark.entered = true;
}

void RequestGate::Leave() {
  --inside_;
  LetIn();
}

void RequestGate::Open() {
  open_ = true;
  LetIn();
}

void RequestGate::LetIn() {
  const size_t parked = parked_.size();
  while (!parked_.empty() && HasRoom()) {
    Wakeup* next = parked_.front();
    parked_.pop_front();
    ++inside_;  // Counted inside before its coroutine resumes.
    next->Grant();
  }
  if (parked_.size() != parked) ParkedChanged();
}

}  // namespace blobtune::server
