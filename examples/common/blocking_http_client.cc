#include "common/blocking_http_client.h"

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/address.hpp>
#include <exception>
#include <optional>

namespace blobtune::examples {

namespace {

template <typename T>
boost::asio::awaitable<void> Store(boost::asio::awaitable<T> operation, std::optional<T>* result) {
  result->emplace(co_await std::move(operation));
}

}  // namespace

BlockingHttpClient::BlockingHttpClient(uint16_t port, HttpClientOptions options)
    : BlockingHttpClient({boost::asio::ip::address_v4::loopback(), port}, std::move(options)) {}

BlockingHttpClient::BlockingHttpClient(boost::asio::ip::tcp::endpoint server,
                                       HttpClientOptions options)
    : connection_(io_.get_executor(), server, std::move(options)) {}

BlockingHttpClient::~BlockingHttpClient() = default;

template <typename T>
T BlockingHttpClient::Run(boost::asio::awaitable<T> operation) {
  std::optional<T> result;
  boost::asio::co_spawn(io_, Store(std::move(operation), &result), [](std::exception_ptr e) {
    if (e) std::rethrow_exception(e);
  });
  io_.restart();
  io_.run();
  return std::move(*result);
}

Status BlockingHttpClient::Connect() { return Run(connection_.Connect()); }

StatusOr<HttpResponse> BlockingHttpClient::Send(boost::beast::http::verb verb, std::string target,
                                                std::string body) {
  return Run(connection_.Send(verb, std::move(target), std::move(body)));
}

StatusOr<HttpResponse> BlockingHttpClient::Send(HttpRequest request) {
  return Run(connection_.Send(std::move(request)));
}

Status BlockingHttpClient::WriteRaw(std::string_view bytes) {
  return Run(connection_.WriteRaw(bytes));
}

StatusOr<HttpResponse> BlockingHttpClient::Read(bool head) { return Run(connection_.Read(head)); }

bool BlockingHttpClient::ServerClosed() { return Run(connection_.ServerClosed()); }

StatusOr<HttpResponse> HttpGet(const std::string& host, uint16_t port, std::string target,
                               HttpClientOptions options) {
  boost::system::error_code ec;
  const boost::asio::ip::address address = boost::asio::ip::make_address(host, ec);
  if (ec) return Status::InvalidArgument("not an IP address: '" + host + "'");
  BlockingHttpClient client({address, port}, std::move(options));
  HttpRequest request = MakeRequest(boost::beast::http::verb::get, std::move(target));
  request.keep_alive(false);
  return client.Send(std::move(request));
}

}  // namespace blobtune::examples
