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
#ifndef BLOBTUNE_EXAMPLES_COMMON_HTTP_CONNECTION_H_
#define BLOBTUNE_EXAMPLES_COMMON_HTTP_CONNECTION_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <algorithm>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/write.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "blobtune/base/status_or.h"
#include "common/http_message.h"
#include "common/receive_buffer.h"

namespace blobtune::examples {

class HttpConnection {
 public:
  HttpConnection(boost::asio::any_io_executor executor, boost::asio::ip::tcp::endpoint server,
                 HttpClientOptions options = {})
      : server_(server),
        host_(server.address().to_string() + ":" + std::to_string(server.port())),
        options_(std::move(options)),
        stream_(std::move(executor)) {}
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;
  ~HttpConnection() = default;

  // Sends a keep-alive request with `body` and reads its answer.
  boost::asio::awaitable<StatusOr<HttpResponse>> Send(boost::beast::http::verb verb,
                                                      std::string target, std::string body = {}) {
    return Send(MakeRequest(verb, std::move(target), std::move(body)));
  }

  // Sends `request` as built by the caller (extra headers, Connection: close) after
  // CompleteRequest, and reads its answer. When a connection that was already open fails, the
  // server may have closed it while it was idle: the request goes once more on a new one. After
  // an answer that closes the connection, the next request opens a new one.
  boost::asio::awaitable<StatusOr<HttpResponse>> Send(HttpRequest request) {
    CompleteRequest(request, host_, options_);
    const bool reused = open_;
    StatusOr<HttpResponse> response = co_await Exchange(request);
    if (!response.ok() && reused && response.status().code() != StatusCode::kResourceExhausted) {
      response = co_await Exchange(request);
    }
    co_return response;
  }

  // Opens a new connection (closing this one first if it is open).
  boost::asio::awaitable<Status> Connect() {
    namespace asio = boost::asio;
    Close();
    buffer_.clear();
    boost::system::error_code ec;
    stream_.expires_after(options_.timeout);
    co_await stream_.async_connect(server_, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return Status::Unavailable("connect to " + host_ + ": " + ec.message());
    // Small requests and paced pieces must not wait for the last segment's acknowledgement.
    stream_.socket().set_option(asio::ip::tcp::no_delay(true), ec);
    open_ = true;
    ++connects_;
    ReserveReceiveRoom(buffer_);  // Else a 10 MB answer takes 20,000 receives.
    co_return Status::Ok();
  }

  // For tests of what a well-behaved client never sends: writes `bytes` as they are (opening
  // the connection first if it is not open).
  boost::asio::awaitable<Status> WriteRaw(std::string_view bytes) {
    namespace asio = boost::asio;
    if (!open_) {
      Status connected = co_await Connect();
      if (!connected.ok()) co_return connected;
    }
    boost::system::error_code ec;
    stream_.expires_after(options_.timeout);
    co_await asio::async_write(stream_, asio::buffer(bytes),
                               asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      Close();
      co_return Status::Unavailable("write to " + host_ + ": " + ec.message());
    }
    co_return Status::Ok();
  }

  // Reads one answer without sending anything first (after WriteRaw, or a 100 Continue). `head`:
  // the answer to a HEAD, whose Content-Length announces no body. An answer that closes the
  // connection leaves the socket to the caller (ServerClosed); the next Send opens a new one.
  boost::asio::awaitable<StatusOr<HttpResponse>> Read(bool head = false) {
    if (!open_) {
      Status connected = co_await Connect();
      if (!connected.ok()) co_return connected;
    }
    HttpRequest what{head ? boost::beast::http::verb::head : boost::beast::http::verb::get,
                     "(answer)", 11};
    stream_.expires_after(options_.timeout);
    co_return co_await ReadAnswer(what);
  }

  // True when the server has closed the connection: a read sees the end of the stream or a
  // reset (or this side closed it). False if a byte arrives or `timeout` passes first.
  boost::asio::awaitable<bool> ServerClosed() {
    namespace asio = boost::asio;
    if (!stream_.socket().is_open()) co_return true;
    char byte;
    boost::system::error_code ec;
    stream_.expires_after(options_.timeout);
    co_await stream_.async_read_some(asio::buffer(&byte, 1),
                                     asio::redirect_error(asio::use_awaitable, ec));
    co_return ec == asio::error::eof || ec == asio::error::connection_reset;
  }

  // Closes this side at once; the next Send opens a new connection.
  void Close() {
    open_ = false;
    boost::system::error_code ignored;
    stream_.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  // True while the connection may carry another request.
  bool open() const noexcept { return open_; }
  // Connections opened so far (1 + reopens, once used).
  int connects() const noexcept { return connects_; }
  // The socket, for tests that write byte by byte or poll it.
  boost::asio::ip::tcp::socket& socket() { return stream_.socket(); }

 private:
  boost::asio::awaitable<StatusOr<HttpResponse>> Exchange(HttpRequest& request) {
    if (!open_) {
      Status connected = co_await Connect();
      if (!connected.ok()) co_return connected;
    }
    boost::system::error_code ec;
    stream_.expires_after(options_.timeout);
    if (AsksFirst(request)) {
      StatusOr<HttpResponse> refused = co_await AskFirst(request, ec);
      if (ec) {
        Close();
        co_return TransportError(request, ec);
      }
      if (!refused.ok()) co_return refused;
      if (refused->result() != boost::beast::http::status::continue_) {
        Close();  // Answered without its body: the connection cannot carry another request.
        co_return refused;
      }
    }
    co_await Write(request, ec);
    if (ec) {
      Close();
      co_return TransportError(request, ec);
    }
    StatusOr<HttpResponse> response = co_await ReadAnswer(request);
    // The server closes after this answer: let go of this side at once.
    if (response.ok() && !response->keep_alive()) Close();
    co_return response;
  }

  bool AsksFirst(const HttpRequest& request) const {
    return options_.expect_continue_bytes > 0 &&
           request.body().size() >= options_.expect_continue_bytes;
  }

  // Sends the header of `request` with "Expect: 100-continue" and reads the server's first
  // answer: 100 Continue (send the body next) or a final answer (the body is not wanted).
  boost::asio::awaitable<StatusOr<HttpResponse>> AskFirst(HttpRequest& request,
                                                          boost::system::error_code& ec) {
    namespace asio = boost::asio;
    namespace http = boost::beast::http;
    request.set(http::field::expect, "100-continue");
    {
      http::request_serializer<http::string_body> serializer(request);
      co_await http::async_write_header(stream_, serializer,
                                        asio::redirect_error(asio::use_awaitable, ec));
    }
    if (ec) co_return TransportError(request, ec);
    co_return co_await ReadAnswer(request);
  }

  // Writes the request, its body paced over options_.upload_time when that is positive. After
  // AskFirst, only the body (its header went first).
  boost::asio::awaitable<void> Write(HttpRequest& request, boost::system::error_code& ec) {
    namespace asio = boost::asio;
    namespace http = boost::beast::http;
    const std::string& body = request.body();
    const bool header_sent = AsksFirst(request);
    const bool paced = options_.upload_time > std::chrono::microseconds::zero() && !body.empty();
    if (!paced) {
      if (header_sent) {
        co_await asio::async_write(stream_, asio::buffer(body),
                                   asio::redirect_error(asio::use_awaitable, ec));
      } else {
        co_await http::async_write(stream_, request,
                                   asio::redirect_error(asio::use_awaitable, ec));
      }
      co_return;
    }
    if (!header_sent) {
      http::request_serializer<http::string_body> serializer(request);
      co_await http::async_write_header(stream_, serializer,
                                        asio::redirect_error(asio::use_awaitable, ec));
    }
    // Piece i is due at start + (i + 1) * upload_time / pieces: the body ends at upload_time
    // whatever the writes themselves took.
    const size_t pieces = (body.size() + kUploadPieceBytes - 1) / kUploadPieceBytes;
    const auto start = asio::steady_timer::clock_type::now();
    asio::steady_timer pace(stream_.get_executor());
    for (size_t i = 0; i < pieces && !ec; ++i) {
      pace.expires_at(start + options_.upload_time * static_cast<int64_t>(i + 1) /
                                  static_cast<int64_t>(pieces));
      co_await pace.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      if (ec) break;
      const size_t offset = i * kUploadPieceBytes;
      co_await asio::async_write(
          stream_,
          asio::buffer(body.data() + offset, std::min(kUploadPieceBytes, body.size() - offset)),
          asio::redirect_error(asio::use_awaitable, ec));
    }
  }

  // Reads the answer to `request` (whose method says whether a body follows).
  boost::asio::awaitable<StatusOr<HttpResponse>> ReadAnswer(const HttpRequest& request) {
    namespace asio = boost::asio;
    namespace http = boost::beast::http;
    http::response_parser<http::string_body> parser;
    parser.body_limit(options_.max_response_body_bytes);
    parser.skip(request.method() == http::verb::head);
    boost::system::error_code ec;
    // The header first: Beast 1.74 checks a Content-Length against the body limit only when it
    // parses the header apart from the body, not when one receive brought both (measured: a
    // 1001-byte answer passed a 1000-byte limit), so the check is made here.
    co_await http::async_read_header(stream_, buffer_, parser,
                                     asio::redirect_error(asio::use_awaitable, ec));
    // (A HEAD answer's or a 204's Content-Length announces no body: the parser is done.)
    if (!ec && !parser.is_done() &&
        parser.content_length().value_or(0) > options_.max_response_body_bytes) {
      ec = http::error::body_limit;
    }
    if (!ec && !parser.is_done()) {
      co_await http::async_read(stream_, buffer_, parser,
                                asio::redirect_error(asio::use_awaitable, ec));
    }
    if (ec) {
      Close();
      co_return TransportError(request, ec);
    }
    HttpResponse response = parser.release();
    if (!response.keep_alive()) open_ = false;
    co_return response;
  }

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
