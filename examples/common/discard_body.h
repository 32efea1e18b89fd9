// DiscardBody: drops the body of a refused HTTP request, so that the connection can take the
// next request and the client, which may still be sending, reads the refusal instead of a reset:
// closing a socket with unread data resets the connection and can destroy the answer before the
// client reads it.
//
// Cheap: the bytes still in the socket are dropped by the kernel without being copied (recv with
// MSG_TRUNC, which Linux TCP sockets take as "discard"), so a refused 64 KiB body costs a system
// call or two, not a copy of 64 KiB. A server that refuses under overload refuses most of what
// arrives; copying each refused body would take the CPU its admitted requests need.
//
//   if (co_await examples::DiscardBody(stream, buffer, *parser.content_length(), timeout)) ...
//
// Thread-safety: as the stream's. REQUIRES: the stream's executor runs its handlers on one
// thread at a time (an io_context run by one thread, or a strand): the timeout's handler and the
// receives touch the same socket.
#ifndef BLOBTUNE_EXAMPLES_COMMON_DISCARD_BODY_H_
#define BLOBTUNE_EXAMPLES_COMMON_DISCARD_BODY_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <chrono>
#include <cstdint>
#include <memory>

#include "common/read_deadline.h"

namespace blobtune::examples {

// Drops the `length` bytes of a refused request's body (those already in `buffer` first). False
// if they did not all arrive within `timeout`.
inline boost::asio::awaitable<bool> DiscardBody(boost::beast::tcp_stream& stream,
                                                boost::beast::flat_buffer& buffer,
                                                uint64_t length,
                                                std::chrono::milliseconds timeout) {
  namespace asio = boost::asio;
  using tcp = asio::ip::tcp;
  const size_t buffered = static_cast<size_t>(std::min<uint64_t>(length, buffer.size()));
  buffer.consume(buffered);
  uint64_t left = length - buffered;
  if (left == 0) co_return true;

  // The stream's timeout covers only its own operations; these receive on its socket.
  tcp::socket& raw = stream.socket();
  const ReadDeadline deadline(raw, timeout);
  // The kernel never writes here (MSG_TRUNC): the array only gives each receive its size.
  static char sink[256 * 1024];
  while (left > 0) {
    boost::system::error_code ec;
    const size_t dropped = co_await raw.async_receive(
        asio::buffer(sink, static_cast<size_t>(std::min<uint64_t>(left, sizeof sink))), MSG_TRUNC,
        asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return false;
    left -= std::min<uint64_t>(left, dropped);
  }
  co_return true;
}

}  // namespace blobtune::examples

#endif  // BLOBTUNE_EXAMPLES_COMMON_DISCARD_BODY_H_
