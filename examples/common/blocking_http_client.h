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
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "blobtune/base/status_or.h"
#include "common/http_connection.h"
#include "common/http_message.h"

namespace blobtune::examples {

class BlockingHttpClient {
 public:
  // A client of 127.0.0.1:port.
  explicit BlockingHttpClient(uint16_t port, HttpClientOptions options = {});
  BlockingHttpClient(boost::asio::ip::tcp::endpoint server, HttpClientOptions options = {});
  BlockingHttpClient(const BlockingHttpClient&) = delete;
  BlockingHttpClient& operator=(const BlockingHttpClient&) = delete;
  ~BlockingHttpClient();

  // As the HttpConnection calls of the same names.
  Status Connect();
  StatusOr<HttpResponse> Send(boost::beast::http::verb verb, std::string target,
                              std::string body = {});
  StatusOr<HttpResponse> Send(HttpRequest request);
  Status WriteRaw(std::string_view bytes);
  StatusOr<HttpResponse> Read(bool head = false);
  bool ServerClosed();

  HttpConnection& connection() { return connection_; }
  boost::asio::ip::tcp::socket& socket() { return connection_.socket(); }

 private:
  // Runs `operation` on io_ until it is done. An exception from it (only std::bad_alloc can be
  // thrown) comes out of io_.run().
  template <typename T>
  T Run(boost::asio::awaitable<T> operation);

  boost::asio::io_context io_;  // Before connection_, which runs on it.
  HttpConnection connection_;
};

// GET http://host:port/target on a connection of its own, closed after the answer. `host` is an
// IP address (INVALID_ARGUMENT otherwise).
StatusOr<HttpResponse> HttpGet(const std::string& host, uint16_t port, std::string target,
                               HttpClientOptions options = {});

}  // namespace blobtune::examples

#endif  // BLOBTUNE_EXAMPLES_COMMON_BLOCKING_HTTP_CLIENT_H_
