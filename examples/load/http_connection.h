// HttpConnection: one keep-alive HTTP/1.1 client connection for blobtune-load, which reconnects
// when the server has closed it and bounds every exchange with a timeout.
//
//   HttpConnection conn(executor, endpoint, std::chrono::seconds(10));
//   StatusOr<Reply> reply = co_await conn.Send(http::verb::put, "/blobs/default/k1", body);
//   if (reply.ok() && reply->status == 201) ...
//
// Thread-safety: one coroutine at a time per connection, on the executor given at construction.
#ifndef BLOBTUNE_EXAMPLES_LOAD_HTTP_CONNECTION_H_
#define BLOBTUNE_EXAMPLES_LOAD_HTTP_CONNECTION_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <string>

#include "blobtune/tuner/status_or.h"

namespace blobtune::load {

struct Reply {
  unsigned status = 0;
  std::string body;
  std::string retry_after;  // The Retry-After header, if any.
};

class HttpConnection {
 public:
  // A PUT body is sent over `upload_time` (evenly, in pieces of kUploadPiece bytes) when it is
  // positive, as a client on a slow link would; at once otherwise.
  HttpConnection(boost::asio::any_io_executor executor, boost::asio::ip::tcp::endpoint server,
                 std::chrono::milliseconds timeout,
                 std::chrono::microseconds upload_time = std::chrono::microseconds::zero());
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;
  ~HttpConnection() = default;

  // Sends one request and reads its answer. A reused connection the server closed meanwhile is
  // reopened and the request sent once more. UNAVAILABLE for transport errors and timeouts.
  boost::asio::awaitable<StatusOr<Reply>> Send(boost::beast::http::verb verb, std::string target,
                                               std::string body);

  // Connections opened so far (1 + reconnects).
  int connects() const noexcept { return connects_; }

 private:
  boost::asio::awaitable<StatusOr<Reply>> Exchange(boost::beast::http::verb verb,
                                                   const std::string& target,
                                                   const std::string& body, bool* reused);

  static constexpr size_t kUploadPiece = 8192;

  // Writes the request, pacing its body over upload_time_.
  boost::asio::awaitable<void> Write(
      boost::beast::http::request<boost::beast::http::string_body>& request,
      boost::system::error_code& ec);

  boost::asio::ip::tcp::endpoint server_;
  std::chrono::milliseconds timeout_;
  std::chrono::microseconds upload_time_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  bool open_ = false;
  int connects_ = 0;
};

}  // namespace blobtune::load

#endif  // BLOBTUNE_EXAMPLES_LOAD_HTTP_CONNECTION_H_
