// BlockingHttpClient: the examples' HTTP client (common/http_connection.h) for code that blocks,
// such as tests: one keep-alive connection on a private io_context, each call run to completion
// on the calling thread. The timeouts hold as they do for the coroutines: a server that never
// answers is a DEADLINE_EXCEEDED after HttpClientOptions::timeout, never a hang.
//
//   examples::BlockingHttpClient client(port);  // 127.0.0.1:port; connects on first use.
//   StatusOr<examples::HttpResponse> r = client.Send(http::verb::get, "/healthz");
//   ASSERT_TRUE(r.ok()) << r.status();
//   EXPECT_EQ(r->result_int(), 200);
//
//   // One request on its own connection (Connection: close):
//   StatusOr<examples::HttpResponse> page = examples::HttpGet("127.0.0.1", port, "/metrics");
//
// Thread-safety: a client belongs to one thread at a time. HttpGet may be called from any thread.
#ifndef BLOBTUNE_EXAMPLES_COMMON_BLOCKING_HTTP_CLIENT_H_
#define BLOBTUNE_EXAMPLES_COMMON_BLOCKING_HTTP_CLIENT_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "blobtune/base/status_or.h"
#include "common/http_connection.h"
#include "common/http_message.h"

namespace blobtune::examples {

class BlockingHttpClient {
 public:
  // A client of 127.0.0.1:port.
  explicit BlockingHttpClient(uint16_t port, HttpClientOptions options = {})
      : BlockingHttpClient({boost::asio::ip::address_v4::loopback(), port}, std::move(options)) {}
  BlockingHttpClient(boost::asio::ip::tcp::endpoint server, HttpClientOptions options = {})
      : connection_(io_.get_executor(), server, std::move(options)) {}
  BlockingHttpClient(const BlockingHttpClient&) = delete;
  BlockingHttpClient& operator=(const BlockingHttpClient&) = delete;
  ~BlockingHttpClient() = default;

  // As the HttpConnection calls of the same names.
  Status Connect() { return Run(connection_.Connect()); }
  StatusOr<HttpResponse> Send(boost::beast::http::verb verb, std::string target,
                              std::string body = {}) {
    return Run(connection_.Send(verb, std::move(target), std::move(body)));
  }
  StatusOr<HttpResponse> Send(HttpRequest request) {
    return Run(connection_.Send(std::move(request)));
  }
  Status WriteRaw(std::string_view bytes) { return Run(connection_.WriteRaw(bytes)); }
  StatusOr<HttpResponse> Read(bool head = false) { return Run(connection_.Read(head)); }
  bool ServerClosed() { return Run(connection_.ServerClosed()); }

  HttpConnection& connection() { return connection_; }
  boost::asio::ip::tcp::socket& socket() { return connection_.socket(); }

 private:
  template <typename T>
  static boost::asio::awaitable<void> Store(boost::asio::awaitable<T> operation,
                                            std::optional<T>* result) {
    result->emplace(co_await std::move(operation));
  }

  // Runs `operation` on io_ until it is done. An exception from it (only std::bad_alloc can be
  // thrown) comes out of io_.run().
  template <typename T>
  T Run(boost::asio::awaitable<T> operation) {
    std::optional<T> result;
    boost::asio::co_spawn(io_, Store(std::move(operation), &result), [](std::exception_ptr e) {
      if (e) std::rethrow_exception(e);
    });
    io_.restart();
    io_.run();
    return std::move(*result);
  }

  boost::asio::io_context io_;  // Before connection_, which runs on it.
  HttpConnection connection_;
};

// GET http://host:port/target on a connection of its own, closed after the answer. `host` is an
// IP address (INVALID_ARGUMENT otherwise).
inline StatusOr<HttpResponse> HttpGet(const std::string& host, uint16_t port, std::string target,
                                      HttpClientOptions options = {}) {
  boost::system::error_code ec;
  const boost::asio::ip::address address = boost::asio::ip::make_address(host, ec);
  if (ec) return Status::InvalidArgument("not an IP address: '" + host + "'");
  BlockingHttpClient client({address, port}, std::move(options));
  HttpRequest request = MakeRequest(boost::beast::http::verb::get, std::move(target));
  request.keep_alive(false);
  return client.Send(std::move(request));
}

}  // namespace blobtune::examples

#endif  // BLOBTUNE_EXAMPLES_COMMON_BLOCKING_HTTP_CLIENT_H_
