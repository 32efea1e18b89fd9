#include "http_client.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "common/receive_buffer.h"

namespace blobtune::delivery {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// Largest answer body read. The largest the mail server sends is a legacy batch of at most
// 64 MiB of documents (or one message, at most 64 MiB); Beast's default is 8 MiB.
constexpr uint64_t kMaxResponseBytes = uint64_t{128} << 20;

HttpClient::HttpClient(asio::any_io_executor executor, std::string host, uint16_t port,
                       RetryPolicy retry)
    : executor_(std::move(executor)), host_(std::move(host)), port_(port), retry_(retry) {}

HttpClient::~HttpClient() = default;

asio::awaitable<StatusOr<std::unique_ptr<beast::tcp_stream>>> HttpClient::Connect() {
  boost::system::error_code ec;
  tcp::endpoint endpoint(asio::ip::make_address(host_, ec), port_);
  if (ec) co_return Status::InvalidArgument("bad server address '" + host_ + "'");
  auto stream = std::make_unique<beast::tcp_stream>(executor_);
  stream->expires_after(retry_.timeout);
  co_await stream->async_connect(endpoint, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return Status::Unavailable("connect to " + host_ + ": " + ec.message());
  stream->socket().set_option(tcp::no_delay(true), ec);
  co_return std::move(stream);
}

asio::awaitable<StatusOr<HttpResponse>> HttpClient::Request(http::verb verb, std::string target,
                                                            std::string body) {
  Status last = Status::Unavailable("no attempt made");
  auto backoff = retry_.initial_backoff;
  for (int attempt = 1; attempt <= retry_.max_attempts; ++attempt) {
    if (attempt > 1) {
      ++retries_;
      asio::steady_timer timer(executor_, backoff);
      boost::system::error_code ignored;
      co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
      backoff = std::min(backoff * 2, retry_.max_backoff);
    }
    std::unique_ptr<beast::tcp_stream> stream;
    if (!idle_.empty()) {
      stream = std::move(idle_.back());
      idle_.pop_back();
    } else {
      StatusOr<std::unique_ptr<beast::tcp_stream>> connected = co_await Connect();
      if (!connected.ok()) {
        last = connected.status();
        continue;
      }
      stream = *std::move(connected);
    }

    http::request<http::string_body> request{verb, target, 11};
    request.set(http::field::host, host_);
    request.keep_alive(true);
    request.body() = body;
    request.prepare_payload();
    boost::system::error_code ec;
    stream->expires_after(retry_.timeout);
    co_await http::async_write(*stream, request, asio::redirect_error(asio::use_awaitable, ec));
    beast::flat_buffer buffer;
    examples::ReserveReceiveRoom(buffer);  // Else a 10 MB batch takes 20,000 receives.
    http::response_parser<http::string_body> parser;
    parser.body_limit(kMaxResponseBytes);
    if (!ec) {
      co_await http::async_read(*stream, buffer, parser,
                                asio::redirect_error(asio::use_awaitable, ec));
    }
    if (ec) {
      // A reused connection may have been closed by the server meanwhile; a reset is a fault
      // to retry. Either way this connection is done.
      last = Status::Unavailable(std::string(http::to_string(verb)) + " " + target + ": " +
                                 ec.message());
      continue;
    }
    http::response<http::string_body> response = parser.release();
    if (response.keep_alive()) idle_.push_back(std::move(stream));
    if (response.result() == http::status::service_unavailable) {
      last = Status::Unavailable(std::string(http::to_string(verb)) + " " + target + ": 503 " +
                                 response.body());
      continue;
    }
    if (response.result() == http::status::payload_too_large) {
      // Sending it again would be refused again: a bound, not a fault.
      co_return Status::ResourceExhausted(std::string(http::to_string(verb)) + " " + target +
                                          ": 413 " + response.body());
    }
    co_return HttpResponse{response.result_int(), std::move(response.body())};
  }
  co_return last.WithContext("gave up after " + std::to_string(retry_.max_attempts) + " attempts");
}

}  // namespace blobtune::delivery
