// HttpConnection: the examples' one HTTP/1.1 client, as one keep-alive connection to a server
// driven by coroutines. It opens on first use, reopens and sends once more when a reused
// connection turns out to have been closed by the server meanwhile (an idle timeout, a restart),
// bounds every step with a timeout, reads bodies up to a configured limit and can pace a body
// out like a client on a slow link. blobtune-load runs one per simulated client, the delivery
// benchmark keeps a pool of them, and common/blocking_http_client.h runs one for the tests.
//
//   examples::HttpConnection connection(executor, endpoint, {.timeout = 10s});
//   StatusOr<examples::HttpResponse> r =
//       co_await connection.Send(http::verb::put, "/blobs/default/k1", "bytes");
//   if (r.ok() && r->result_int() == 201) ...
//
// Errors: a transport error or a timeout is a Status (see TransportError in http_message.h),
// never an exception; any answer the server gives, 4xx and 5xx included, is a response.
//
// Thread-safety: one coroutine at a time per connection, on the executor given at construction.
// The coroutines are compiled once, in http_connection.cc: Beast's composed operations are the
// costliest code in the tree to compile.
#ifndef BLOBTUNE_EXAMPLES_COMMON_HTTP_CONNECTION_H_
#define BLOBTUNE_EXAMPLES_COMMON_HTTP_CONNECTION_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <string>
#include <string_view>

#include "blobtune/base/status_or.h"
#include "common/http_message.h"

namespace blobtune::examples {

class HttpConnection {
 public:
  HttpConnection(boost::asio::any_io_executor executor, boost::asio::ip::tcp::endpoint server,
                 HttpClientOptions options = {});
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;
  ~HttpConnection();

  // Sends a keep-alive request with `body` and reads its answer.
  boost::asio::awaitable<StatusOr<HttpResponse>> Send(boost::beast::http::verb verb,
                                                      std::string target, std::string body = {});

  // Sends `request` as built by the caller (extra headers, Connection: close) after
  // CompleteRequest, and reads its answer. When a connection that was already open fails, the
  // server may have closed it while it was idle: the request goes once more on a new one. After
  // an answer that closes the connection, the next request opens a new one.
  boost::asio::awaitable<StatusOr<HttpResponse>> Send(HttpRequest request);

  // Opens a new connection (closing this one first if it is open).
  boost::asio::awaitable<Status> Connect();

  // For tests of what a well-behaved client never sends: writes `bytes` as they are (opening
  // the connection first if it is not open).
  boost::asio::awaitable<Status> WriteRaw(std::string_view bytes);

  // Reads one answer without sending anything first (after WriteRaw, or a 100 Continue). `head`:
  // the answer to a HEAD, whose Content-Length announces no body. An answer that closes the
  // connection leaves the socket to the caller (ServerClosed); the next Send opens a new one.
  boost::asio::awaitable<StatusOr<HttpResponse>> Read(bool head = false);

  // True when the server has closed the connection: a read sees the end of the stream or a
  // reset (or this side closed it). False if a byte arrives or `timeout` passes first.
  boost::asio::awaitable<bool> ServerClosed();

  // Closes this side at once; the next Send opens a new connection.
  void Close();

  // True while the connection may carry another request.
  bool open() const noexcept { return open_; }
  // Connections opened so far (1 + reopens, once used).
  int connects() const noexcept { return connects_; }
  // The socket, for tests that write byte by byte or poll it.
  boost::asio::ip::tcp::socket& socket() { return stream_.socket(); }

 private:
  boost::asio::awaitable<StatusOr<HttpResponse>> Exchange(HttpRequest& request);
  bool AsksFirst(const HttpRequest& request) const;
  // Sends the header of `request` with "Expect: 100-continue" and reads the server's first
  // answer: 100 Continue (send the body next) or a final answer (the body is not wanted).
  boost::asio::awaitable<StatusOr<HttpResponse>> AskFirst(HttpRequest& request,
                                                          boost::system::error_code& ec);
  // Writes the request, its body paced over options_.upload_time when that is positive. After
  // AskFirst, only the body (its header went first).
  boost::asio::awaitable<void> Write(HttpRequest& request, boost::system::error_code& ec);
  // Reads the answer to `request` (whose method says whether a body follows).
  boost::asio::awaitable<StatusOr<HttpResponse>> ReadAnswer(const HttpRequest& request);

  const boost::asio::ip::tcp::endpoint server_;
  const std::string host_;  // "address:port", the Host header.
  const HttpClientOptions options_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  bool open_ = false;
  int connects_ = 0;
};

}  // namespace blobtune::examples

#endif  // BLOBTUNE_EXAMPLES_COMMON_HTTP_CONNECTION_H_
