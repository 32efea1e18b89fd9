#include "mail_client.h"

#include <algorithm>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http/status.hpp>

namespace blobtune::delivery {

namespace asio = boost::asio;
namespace http = boost::beast::http;

// Largest answer body read. The largest the mail server sends is a legacy batch of at most
// 64 MiB of documents (or one message, at most 64 MiB).
constexpr uint64_t kMaxResponseBytes = uint64_t{128} << 20;

MailClient::MailClient(asio::any_io_executor executor, std::string host, uint16_t port,
                       RetryPolicy retry)
    : executor_(std::move(executor)), host_(std::move(host)), retry_(retry) {
  boost::system::error_code ec;
  server_ = asio::ip::tcp::endpoint(asio::ip::make_address(host_, ec), port);
  if (ec) address_ = Status::InvalidArgument("bad server address '" + host_ + "'");
  http_options_.timeout = retry_.timeout;
  http_options_.max_response_body_bytes = kMaxResponseBytes;
}

MailClient::~MailClient() = default;

asio::awaitable<StatusOr<HttpResponse>> MailClient::Request(http::verb verb, std::string target,
                                                            std::string body) {
  if (!address_.ok()) co_return address_;
  const std::string what = std::string(http::to_string(verb)) + " " + target;
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
    std::unique_ptr<examples::HttpConnection> connection;
    if (!idle_.empty()) {
      connection = std::move(idle_.back());
      idle_.pop_back();
    } else {
      connection = std::make_unique<examples::HttpConnection>(executor_, server_, http_options_);
    }
    // Named copies, not temporaries beside the co_await: GCC 12 destroys some of those twice.
    std::string attempt_target = target;
    std::string attempt_body = body;
    StatusOr<HttpResponse> response =
        co_await connection->Send(verb, std::move(attempt_target), std::move(attempt_body));
    if (!response.ok()) {
      // An answer over the size limit would be as large again; anything else is a fault to
      // retry (the connection has closed itself).
      if (response.status().code() == StatusCode::kResourceExhausted) co_return response;
      last = response.status();
      continue;
    }
    if (connection->open()) idle_.push_back(std::move(connection));
    if (response->result() == http::status::service_unavailable) {
      last = Status::Unavailable(what + ": 503 " + response->body());
      continue;
    }
    if (response->result() == http::status::payload_too_large) {
      // Sending it again would be refused again: a bound, not a fault.
      co_return Status::ResourceExhausted(what + ": 413 " + response->body());
    }
    if (response->result() == http::status::insufficient_storage) {
      // The server's disk is full: the same request fails until someone makes room there.
      co_return Status::ResourceExhausted(
          what + ": 507, the server's storage is full: " + response->body());
    }
    co_return response;
  }
  co_return last.WithContext("gave up after " + std::to_string(retry_.max_attempts) + " attempts");
}

}  // namespace blobtune::delivery
