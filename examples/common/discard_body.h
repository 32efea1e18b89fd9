// DiscardBody: reads and drops the body of a refused HTTP request, so that the connection can
// take the next request and the client, which may still be sending, reads the refusal instead of
// a reset: closing a socket with unread data resets the connection and can destroy the answer
// before the client reads it.
//
//   if (co_await examples::DiscardBody(stream, buffer, *parser.content_length(), timeout)) ...
//
// Thread-safety: as the stream's.
#ifndef BLOBTUNE_EXAMPLES_COMMON_DISCARD_BODY_H_
#define BLOBTUNE_EXAMPLES_COMMON_DISCARD_BODY_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <algorithm>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <chrono>
#include <cstdint>

#include "common/receive_buffer.h"

namespace blobtune::examples {

// Reads and drops the `length` bytes of a refused request's body (those already in `buffer`
// first). False if they did not all arrive within `timeout`.
inline boost::asio::awaitable<bool> DiscardBody(boost::beast::tcp_stream& stream,
                                                boost::beast::flat_buffer& buffer,
                                                uint64_t length,
                                                std::chrono::milliseconds timeout) {
  namespace asio = boost::asio;
  const size_t buffered = static_cast<size_t>(std::min<uint64_t>(length, buffer.size()));
  buffer.consume(buffered);
  uint64_t left = length - buffered;
  stream.expires_after(timeout);
  while (left > 0) {
    boost::system::error_code ec;
    const size_t received = co_await stream.async_read_some(
        buffer.prepare(static_cast<size_t>(std::min<uint64_t>(left, kReceiveChunkBytes))),
        asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return false;
    left -= received;
  }
  co_return true;
}

}  // namespace blobtune::examples

#endif  // BLOBTUNE_EXAMPLES_COMMON_DISCARD_BODY_H_
