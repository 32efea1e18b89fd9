#include "http_response.h"

#include <string>
#include <utility>

#include "blobtune/store/blob_store.h"
#include "blobtune/tuner/limiter.h"
#include "preconditions.h"

namespace blobtune::server {

namespace http = boost::beast::http;

Response BlobResponse(http::status status, std::vector<std::byte> bytes, bool keep_alive) {
  Response response{status, 11};
  response.set(http::field::server, "blobtune-server");
  response.keep_alive(keep_alive);
  // A 204 or 304 carries no content, so neither its type nor its length (RFC 9110 8.6, 15.4.5).
  if (status == http::status::no_content || status == http::status::not_modified) {
    return response;
  }
  response.set(http::field::content_type, "application/octet-stream");
  response.body() = std::move(bytes);
  response.prepare_payload();
  return response;
}

void SetBlobHeaders(Response& response, const store::BlobInfo& info) {
  response.set(http::field::etag, ETagOf(info.crc32c));
  response.set("X-Blob-Crc32c", std::to_string(info.crc32c));
}

Response TextResponse(http::status status, std::string_view text, bool keep_alive,
                      std::string_view content_type) {
  std::vector<std::byte> body(text.size() + 1);
  for (size_t i = 0; i < text.size(); ++i) body[i] = static_cast<std::byte>(text[i]);
  body.back() = std::byte{'\n'};
  Response response = BlobResponse(status, std::move(body), keep_alive);
  response.set(http::field::content_type, std::string(content_type));
  return response;
}

Response UnavailableResponse(std::string_view text, int retry_after_seconds, bool keep_alive) {
  Response response = TextResponse(http::status::service_unavailable, text, keep_alive);
  response.set(http::field::retry_after, std::to_string(retry_after_seconds));
  return response;
}

http::status HttpStatusOf(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return http::status::ok;
    case StatusCode::kNotFound:
      return http::status::not_found;
    case StatusCode::kInvalidArgument:
      return http::status::bad_request;
    case StatusCode::kDeadlineExceeded:
    case StatusCode::kUnavailable:
    case StatusCode::kCancelled:  // Waiters cancelled or the store closing: shutting down.
      return http::status::service_unavailable;
    case StatusCode::kResourceExhausted:
      // Load (a limiter's full queue, the store's full write queue or reader table) is 503; the
      // remaining RESOURCE_EXHAUSTED is a full disk or a map at its maximum size (a blob over the
      // maximum never gets here: the server refuses it from its Content-Length).
      if (IsOverload(status)) {
        return http::status::service_unavailable;
      }
      return http::status::insufficient_storage;
    default:
      return http::status::internal_server_error;
  }
}

Response ErrorResponse(const Status& status, int retry_after_seconds, bool keep_alive) {
  const http::status code = HttpStatusOf(status);
  // The message alone: the HTTP status already carries the class of the error.
  const boost::beast::string_view reason = http::obsolete_reason(code);
  const std::string_view text = status.message().empty()
                                    ? std::string_view(reason.data(), reason.size())
                                    : status.message();
  if (code == http::status::service_unavailable) {
    return UnavailableResponse(text, retry_after_seconds, keep_alive);
  }
  return TextResponse(code, text, keep_alive);
}

}  // namespace blobtune::server
