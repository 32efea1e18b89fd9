#include "common/http_connection.h"

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <algorithm>
#include <boost/asio/buffer.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/write.hpp>
#include <chrono>
#include <cstdint>

#include "common/receive_buffer.h"

namespace blobtune::examples {

namespace asio = boost::asio;
namespace http = boost::beast::http;

HttpConnection::HttpConnection(asio::any_io_executor executor, asio::ip::tcp::endpoint server,
                               HttpClientOptions options)
    : server_(server),
      host_(server.address().to_string() + ":" + std::to_string(server.port())),
      options_(std::move(options)),
      stream_(std::move(executor)) {}

HttpConnection::~HttpConnection() = default;

asio::awaitable<StatusOr<HttpResponse>> HttpConnection::Send(http::verb verb, std::string target,
                                                             std::string body) {
  return Send(MakeRequest(verb, std::move(target), std::move(body)));
}

asio::awaitable<StatusOr<HttpResponse>> HttpConnection::Send(HttpRequest request) {
  CompleteRequest(request, host_, options_);
  const bool reused = open_;
  StatusOr<HttpResponse> response = co_await Exchange(request);
  if (!response.ok() && reused && response.status().code() != StatusCode::kResourceExhausted) {
    response = co_await Exchange(request);
  }
  co_return response;
}

asio::awaitable<Status> HttpConnection::Connect() {
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

asio::awaitable<Status> HttpConnection::WriteRaw(std::string_view bytes) {
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

asio::awaitable<StatusOr<HttpResponse>> HttpConnection::Read(bool head) {
  if (!open_) {
    Status connected = co_await Connect();
    if (!connected.ok()) co_return connected;
  }
  HttpRequest what{head ? http::verb::head : http::verb::get, "(answer)", 11};
  stream_.expires_after(options_.timeout);
  co_return co_await ReadAnswer(what);
}

asio::awaitable<bool> HttpConnection::ServerClosed() {
  if (!stream_.socket().is_open()) co_return true;
  char byte;
  boost::system::error_code ec;
  stream_.expires_after(options_.timeout);
  co_await stream_.async_read_some(asio::buffer(&byte, 1),
                                   asio::redirect_error(asio::use_awaitable, ec));
  co_return ec == asio::error::eof || ec == asio::error::connection_reset;
}

void HttpConnection::Close() {
  open_ = false;
  boost::system::error_code ignored;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  stream_.close();
}

asio::awaitable<StatusOr<HttpResponse>> HttpConnection::Exchange(HttpRequest& request) {
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
    if (refused->result() != http::status::continue_) {
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

bool HttpConnection::AsksFirst(const HttpRequest& request) const {
  return options_.expect_continue_bytes > 0 &&
         request.body().size() >= options_.expect_continue_bytes;
}

asio::awaitable<StatusOr<HttpResponse>> HttpConnection::AskFirst(HttpRequest& request,
                                                                 boost::system::error_code& ec) {
  request.set(http::field::expect, "100-continue");
  {
    http::request_serializer<http::string_body> serializer(request);
    co_await http::async_write_header(stream_, serializer,
                                      asio::redirect_error(asio::use_awaitable, ec));
  }
  if (ec) co_return TransportError(request, ec);
  co_return co_await ReadAnswer(request);
}

asio::awaitable<void> HttpConnection::Write(HttpRequest& request, boost::system::error_code& ec) {
  const std::string& body = request.body();
  const bool header_sent = AsksFirst(request);
  const bool paced = options_.upload_time > std::chrono::microseconds::zero() && !body.empty();
  if (!paced) {
    if (header_sent) {
      co_await asio::async_write(stream_, asio::buffer(body),
                                 asio::redirect_error(asio::use_awaitable, ec));
    } else {
      co_await http::async_write(stream_, request, asio::redirect_error(asio::use_awaitable, ec));
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

asio::awaitable<StatusOr<HttpResponse>> HttpConnection::ReadAnswer(const HttpRequest& request) {
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

}  // namespace blobtune::examples
