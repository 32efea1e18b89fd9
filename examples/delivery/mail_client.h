// MailClient: the delivery client's calls to the mail server, over the examples' HTTP client
// (common/http_connection.h): a pool of keep-alive connections, retries with exponential backoff
// on transport errors, resets and 503 answers; a 413 and a 507 (the server's storage is full) are
// errors of their own, not retried. The
// retries are the delivery's policy, not HTTP's: blobtune-load, for one, counts every 503.
//
//   MailClient client(executor, "127.0.0.1", port);
//   StatusOr<examples::HttpResponse> r =
//       co_await client.Request(http::verb::get, "/incoming/msg-000001");
//
// Thread-safety: all calls from coroutines on the one executor given at construction (a
// single-threaded io_context); not thread-safe otherwise.
#ifndef BLOBTUNE_EXAMPLES_DELIVERY_MAIL_CLIENT_H_
#define BLOBTUNE_EXAMPLES_DELIVERY_MAIL_CLIENT_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "blobtune/base/status_or.h"
#include "common/http_connection.h"
#include "common/http_message.h"

namespace blobtune::delivery {

using examples::HttpResponse;

struct RetryPolicy {
  // Attempts per request, the first included. Default: 8.
  int max_attempts = 8;
  // Backoff before retry n is initial * 2^(n-1), capped. Defaults: 2 ms, 200 ms.
  std::chrono::microseconds initial_backoff{2'000};
  std::chrono::microseconds max_backoff{200'000};
  // A request with no answer within this time is abandoned and retried. Default: 30 s.
  std::chrono::milliseconds timeout{30'000};
};

class MailClient {
 public:
  MailClient(boost::asio::any_io_executor executor, std::string host, uint16_t port,
             RetryPolicy retry = {});
  MailClient(const MailClient&) = delete;
  MailClient& operator=(const MailClient&) = delete;
  ~MailClient();

  // Sends the request, retrying transport errors and 503s. A 413 (body over the server's limit)
  // and a 507 (the server's storage is full) are RESOURCE_EXHAUSTED with the server's message,
  // never retried. Any other answer is returned
  // as is (the caller decides what a 404 means); UNAVAILABLE once the attempts are used up.
  boost::asio::awaitable<StatusOr<HttpResponse>> Request(boost::beast::http::verb verb,
                                                         std::string target, std::string body = {});

  // Requests retried so far (for the report).
  uint64_t retries() const noexcept { return retries_; }

 private:
  boost::asio::any_io_executor executor_;
  std::string host_;
  boost::asio::ip::tcp::endpoint server_;
  Status address_;  // Why host_ is not an address, if it is not.
  RetryPolicy retry_;
  examples::HttpClientOptions http_options_;
  std::vector<std::unique_ptr<examples::HttpConnection>> idle_;
  uint64_t retries_ = 0;
};

}  // namespace blobtune::delivery

#endif  // BLOBTUNE_EXAMPLES_DELIVERY_MAIL_CLIENT_H_
