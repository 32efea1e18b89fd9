// The request and response pieces of the examples' one HTTP/1.1 client (common/http_connection.h
// and common/blocking_http_client.h): its options, how a request is filled in before it goes out,
// how an answer is parsed, and how a transport error becomes a Status.
//
//   HttpRequest request = examples::MakeRequest(http::verb::put, "/blobs/default/a", "bytes");
//   request.set(http::field::expect, "100-continue");  // Any extra header a caller needs.
//
// Thread-safety: pure functions and plain values.
#ifndef BLOBTUNE_EXAMPLES_COMMON_HTTP_MESSAGE_H_
#define BLOBTUNE_EXAMPLES_COMMON_HTTP_MESSAGE_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <algorithm>
#include <boost/asio/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "blobtune/base/status.h"

namespace blobtune::examples {

using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;
using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;

struct HttpClientOptions {
  // Bound on connecting, and on writing one request and reading its answer. Default: 30 s.
  std::chrono::milliseconds timeout{30'000};
  // Largest answer body read; a larger one is an error (RESOURCE_EXHAUSTED), never truncated.
  // Beast's own default is 8 MiB for a response (1 MiB for a request). Default: 1 GiB.
  uint64_t max_response_body_bytes = uint64_t{1} << 30;
  // A request body is sent over this long, evenly in kUploadPieceBytes pieces, as a client on a
  // slow link would; zero sends it at once. Default: 0.
  std::chrono::microseconds upload_time{0};
  // A request whose body has at least this many bytes asks first ("Expect: 100-continue") and
  // sends the body only after the server's 100 Continue, so that a server that refuses it (503,
  // 413) never receives it; the connection then closes, as the body was never sent. For servers
  // that answer 100 Continue (blobtune-server does): one that ignores the expectation leaves
  // the request waiting until `timeout`. Zero: never ask. Default: 0.
  uint64_t expect_continue_bytes = 0;
  // Basic authentication on every request when `username` is not empty. Default: none.
  std::string username;
  std::string password;
};

// The piece size of a paced upload (HttpClientOptions::upload_time).
inline constexpr size_t kUploadPieceBytes = 8192;

// An HTTP/1.1 keep-alive request; the connection adds Host, authentication and the body's
// length when it sends it.
inline HttpRequest MakeRequest(boost::beast::http::verb verb, std::string target,
                               std::string body = {}) {
  HttpRequest request{verb, std::move(target), 11};
  request.keep_alive(true);
  request.body() = std::move(body);
  return request;
}

// Standard base64 (RFC 4648, with padding), for basic authentication.
inline std::string Base64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  for (size_t i = 0; i < in.size(); i += 3) {
    const size_t n = std::min<size_t>(3, in.size() - i);
    uint32_t v = uint32_t{static_cast<uint8_t>(in[i])} << 16;
    if (n > 1) v |= uint32_t{static_cast<uint8_t>(in[i + 1])} << 8;
    if (n > 2) v |= static_cast<uint8_t>(in[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += n > 1 ? kAlphabet[(v >> 6) & 63] : '=';
    out += n > 2 ? kAlphabet[v & 63] : '=';
  }
  return out;
}

// Fills in what every request from this client carries: Host (unless the caller set one), basic
// authentication when configured, and Content-Length for a body (and for any PUT or POST).
inline void CompleteRequest(HttpRequest& request, const std::string& host,
                            const HttpClientOptions& options) {
  namespace http = boost::beast::http;
  if (request.find(http::field::host) == request.end()) request.set(http::field::host, host);
  if (!options.username.empty() && request.find(http::field::authorization) == request.end()) {
    request.set(http::field::authorization,
                "Basic " + Base64(options.username + ":" + options.password));
  }
  request.prepare_payload();
}

// "GET /x: <what went wrong>" as a Status: RESOURCE_EXHAUSTED for an answer over the body limit,
// DEADLINE_EXCEEDED for a timeout, UNAVAILABLE for every other transport error.
inline Status TransportError(const HttpRequest& request, boost::beast::error_code ec) {
  std::string what = std::string(request.method_string()) + " " + std::string(request.target()) +
                     ": " + ec.message();
  if (ec == boost::beast::http::error::body_limit) return Status::ResourceExhausted(what);
  if (ec == boost::beast::error::timeout) return Status::DeadlineExceeded(what);
  return Status::Unavailable(what);
}

}  // namespace blobtune::examples

#endif  // BLOBTUNE_EXAMPLES_COMMON_HTTP_MESSAGE_H_
