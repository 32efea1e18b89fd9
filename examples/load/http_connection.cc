#include "http_connection.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
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
                               std::chrono::milliseconds timeout)
    : server_(server), timeout_(timeout), stream_(std::move(executor)) {}

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
  co_await http::async_write(stream_, request, asio::redirect_error(asio::use_awaitable, ec));
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

}  // namespace blobtune::load
