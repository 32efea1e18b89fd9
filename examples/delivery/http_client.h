// HttpClient: the delivery client's connection to the mail server: HTTP/1.1 over a pool of
// keep-alive connections, with retries and exponential backoff on transport errors, resets and
// 503 answers; a 413 is an error of its own, not retried.
//
//   HttpClient client(executor, "127.0.0.1", port);
//   StatusOr<HttpResponse> r = co_await client.Request(http::verb::get, "/incoming/msg-000001");
//
// Thread-safety: all calls from coroutines on the one executor given at construction (a
// single-threaded io_context); not thread-safe otherwise.
#ifndef BLOBTUNE_EXAMPLES_DELIVERY_HTTP_CLIENT_H_
#define BLOBTUNE_EXAMPLES_DELIVERY_HTTP_CLIENT_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "blobtune/tuner/status_or.h"

namespace blobtune::delivery {

struct HttpResponse {
  unsigned status = 0;
  std::string body;
};

struct RetryPolicy {
  // Attempts per request, the first included. Default: 8.
  int max_attempts = 8;
  // Backoff before retry n is initial * 2^(n-1), capped. Defaults: 2 ms, 200 ms.
  std::chrono::microseconds initial_backoff{2'000};
  std::chrono::microseconds max_backoff{200'000};
  // A request with no answer within this time is abandoned and retried. Default: 30 s.
  std::chrono::microseconds timeout{30'000'000};
};

class HttpClient {
 public:
  HttpClient(boost::asio::any_io_executor executor, std::string host, uint16_t port,
             RetryPolicy retry = {});
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;
  ~HttpClient();

  // Sends the request, retrying transport errors and 503s. A 413 (body over the server's limit)
  // is RESOURCE_EXHAUSTED with the server's message, never retried. Any other answer is returned
  // as is (the caller decides what a 404 means); UNAVAILABLE once the attempts are used up.
  boost::asio::awaitable<StatusOr<HttpResponse>> Request(boost::beast::http::verb verb,
                                                         std::string target,
                                                         std::string body = {});

  // Requests retried so far (for the report).
  uint64_t retries() const noexcept { return retries_; }

 private:
  boost::asio::awaitable<StatusOr<std::unique_ptr<boost::beast::tcp_stream>>> Connect();

  boost::asio::any_io_executor executor_;
  std::string host_;
  uint16_t port_;
  RetryPolicy retry_;
  std::vector<std::unique_ptr<boost::beast::tcp_stream>> idle_;
  uint64_t retries_ = 0;
};

}  // namespace blobtune::delivery

#endif  // BLOBTUNE_EXAMPLES_DELIVERY_HTTP_CLIENT_H_
