#include "http_connection.h"

#include <algorithm>
#include <boost/asio/buffer.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include "common/receive_buffer.h"

namespace blobtune::load {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

HttpConnection::HttpConnection(asio::any_io_executor executor, asio::ip::tcp::endpoint server,
                               std::chrono::milliseconds timeout,
                               std::chrono::microseconds upload_time)
    : server_(server), timeout_(timeout), upload_time_(upload_time), stream_(std::move(executor)) {}

asio::awaitable<StatusOr<Reply>> HttpConnection::Send(http::verb verb, std::string target,
                                                      std::string body) {
  bool reused = false;
  StatusOr<Reply> reply = co_await Exchange(verb, target, body, &reused);
  if (!reply.ok() && reused) {
    // The server may have closed the idle connection (timeout, shutdown): try a fresh one.
    reply = co_await Exchange(verb, target, body, &reused);
  }
  co_return reply;
}

asio::awaitable<StatusOr<Reply>> HttpConnection::Exchange(http::verb verb,
                                                          const std::string& target,
                                                          const std::string& body, bool* reused) {
  boost::system::error_code ec;
  *reused = open_;
  if (!open_) {
    stream_.close();
    buffer_.clear();
    stream_.expires_after(timeout_);
    co_await stream_.async_connect(server_, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return Status::Unavailable("connect: " + ec.message());
    // Paced bodies go out in pieces smaller than a segment: Nagle would hold each one back
    // until the last was acknowledged.
    stream_.socket().set_option(asio::ip::tcp::no_delay(true), ec);
    open_ = true;
    ++connects_;
    examples::ReserveReceiveRoom(buffer_);
  }
  http::request<http::string_body> request{verb, target, 11};
  request.set(http::field::host, server_.address().to_string());
  request.keep_alive(true);
  request.body() = body;
  if (verb == http::verb::put || !body.empty()) request.prepare_payload();

  stream_.expires_after(timeout_);
  co_await Write(request, ec);
  http::response_parser<http::string_body> parser;
  parser.body_limit(uint64_t{1} << 30);
  if (verb == http::verb::head) parser.skip(true);
  if (!ec) {
    co_await http::async_read(stream_, buffer_, parser,
                              asio::redirect_error(asio::use_awaitable, ec));
  }
  if (ec) {
    open_ = false;
    co_return Status::Unavailable("exchange: " + ec.message());
  }
  http::response<http::string_body>& response = parser.get();
  open_ = response.keep_alive();
  if (!open_) {  // The server closes after this answer: let go of our side at once.
    boost::system::error_code ignored;
    stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    stream_.close();
  }
  Reply reply;
  reply.status = response.result_int();
  reply.body = std::move(response.body());
  if (auto it = response.find(http::field::retry_after); it != response.end()) {
    reply.retry_after = std::string(it->value());
  }
  co_return reply;
}

asio::awaitable<void> HttpConnection::Write(http::request<http::string_body>& request,
                                            boost::system::error_code& ec) {
  const std::string& body = request.body();
  if (upload_time_ <= std::chrono::microseconds::zero() || body.empty()) {
    co_await http::async_write(stream_, request, asio::redirect_error(asio::use_awaitable, ec));
    co_return;
  }
  http::request_serializer<http::string_body> serializer(request);
  co_await http::async_write_header(stream_, serializer,
                                    asio::redirect_error(asio::use_awaitable, ec));
  // Piece i is due at start + (i + 1) * upload_time / pieces: the body ends at upload_time
  // whatever the writes themselves took.
  const size_t pieces = (body.size() + kUploadPiece - 1) / kUploadPiece;
  const auto start = asio::steady_timer::clock_type::now();
  asio::steady_timer pace(stream_.get_executor());
  for (size_t i = 0; i < pieces && !ec; ++i) {
    pace.expires_at(start +
                    upload_time_ * static_cast<int64_t>(i + 1) / static_cast<int64_t>(pieces));
    co_await pace.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
    const size_t offset = i * kUploadPiece;
    co_await asio::async_write(
        stream_, asio::buffer(body.data() + offset, std::min(kUploadPiece, body.size() - offset)),
        asio::redirect_error(asio::use_awaitable, ec));
  }
}

}  // namespace blobtune::load
