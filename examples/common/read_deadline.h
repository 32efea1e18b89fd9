// ReadDeadline: a deadline on the reads of a socket that cancels them when it passes and leaves
// the socket open, so that the server can still answer (408 Request Timeout, say). A
// beast::tcp_stream's own timeout closes the socket instead, which leaves nothing to answer on.
//
//   {
//     examples::ReadDeadline deadline(stream.socket(), options.header_timeout);
//     co_await http::async_read_header(stream, buffer, parser, ...);   // operation_aborted
//     if (deadline.expired()) ...  // answer 408, then close
//   }  // disarmed
//
// The deadline is armed from construction until destruction; its timer's handler may run after
// the deadline is gone and then does nothing.
//
// Thread-safety: as the socket's. REQUIRES: the socket's executor runs its handlers on one
// thread at a time (an io_context run by one thread, or a strand): the timer's handler and the
// reads touch the same socket.
#ifndef BLOBTUNE_EXAMPLES_COMMON_READ_DEADLINE_H_
#define BLOBTUNE_EXAMPLES_COMMON_READ_DEADLINE_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>

namespace blobtune::examples {

class ReadDeadline {
 public:
  ReadDeadline(boost::asio::ip::tcp::socket& socket, std::chrono::milliseconds timeout)
      : state_(std::make_shared<State>(State{&socket, false})),
        timer_(socket.get_executor(), timeout) {
    timer_.async_wait([weak = std::weak_ptr<State>(state_)](boost::system::error_code ec) {
      const std::shared_ptr<State> state = weak.lock();
      if (!state || ec) return;
      state->expired = true;
      boost::system::error_code ignored;
      state->socket->cancel(ignored);
    });
  }
  ReadDeadline(const ReadDeadline&) = delete;
  ReadDeadline& operator=(const ReadDeadline&) = delete;
  ~ReadDeadline() {
    state_.reset();  // A handler already queued finds nothing to cancel.
    timer_.cancel();
  }

  // True once the deadline has passed and the socket's reads were cancelled.
  bool expired() const noexcept { return state_->expired; }

 private:
  struct State {
    boost::asio::ip::tcp::socket* socket;
    bool expired;
  };
  std::shared_ptr<State> state_;
  boost::asio::steady_timer timer_;
};

}  // namespace blobtune::examples

#endif  // BLOBTUNE_EXAMPLES_COMMON_READ_DEADLINE_H_
