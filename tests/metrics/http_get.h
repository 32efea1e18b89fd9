// HttpGet: a minimal blocking HTTP/1.1 GET over Beast for the metrics tests (scraping the
// exporter, querying Prometheus's API), with an overall timeout and optional basic auth.
#ifndef BLOBTUNE_TESTS_METRICS_HTTP_GET_H_
#define BLOBTUNE_TESTS_METRICS_HTTP_GET_H_

// Boost 1.74's Asio needs <utility> before it under -std=c++20.
// GCC 12 with -fsanitize=address reports a boost::optional in Beast's parser as maybe used
// uninitialized (a false positive inside Boost 1.74); the warning is located in Beast's headers,
// so silencing it around the includes silences only that.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#include <cctype>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace blobtune::metrics::testing {

struct HttpResponse {
  int status = 0;  // 0 when the request failed before a response.
  std::string body;
  std::string error;  // Why it failed, when status == 0.
  std::string content_type;
};

inline std::string Base64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v =
        (uint32_t(uint8_t(in[i])) << 16) | (uint32_t(uint8_t(in[i + 1])) << 8) | uint8_t(in[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == in.size()) {
    const uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    const uint32_t v = (uint32_t(uint8_t(in[i])) << 16) | (uint32_t(uint8_t(in[i + 1])) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

// GET http://host:port/target. `user`/`password`: basic auth when user is not empty.
inline HttpResponse HttpGet(const std::string& host, uint16_t port, const std::string& target,
                            const std::string& user = "", const std::string& password = "",
                            std::chrono::seconds timeout = std::chrono::seconds(10)) {
  namespace asio = boost::asio;
  namespace beast = boost::beast;
  namespace http = beast::http;
  HttpResponse result;
  try {
    asio::io_context io;
    beast::tcp_stream stream(io);
    asio::ip::tcp::resolver resolver(io);
    stream.expires_after(timeout);
    stream.connect(resolver.resolve(host, std::to_string(port)));
    http::request<http::empty_body> req(http::verb::get, target, 11);
    req.set(http::field::host, host + ":" + std::to_string(port));
    req.set(http::field::connection, "close");
    if (!user.empty())
      req.set(http::field::authorization, "Basic " + Base64(user + ":" + password));
    http::write(stream, req);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    result.status = static_cast<int>(res.result_int());
    result.body = std::move(res.body());
    result.content_type = std::string(res[http::field::content_type]);
    beast::error_code ignored;
    stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  } catch (const std::exception& e) {
    result.status = 0;
    result.error = e.what();
  }
  return result;
}

// Percent-encodes a query parameter value.
inline std::string UrlEncode(std::string_view in) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : in) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

}  // namespace blobtune::metrics::testing

#endif  // BLOBTUNE_TESTS_METRICS_HTTP_GET_H_
