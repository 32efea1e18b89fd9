// The server's HTTP response type and the few ways it builds one: a blob, a line of text, an
// error that says what was wrong (with Retry-After on 503), and the mapping from a store or
// limiter Status to an HTTP status.
//
// Error bodies: every error answer of the server is one line, a plain sentence saying what was
// wrong ("blob 'x' in namespace 'default' does not exist"), never a canonical code name: the
// HTTP status carries the class. Anything the client sent is echoed through QuoteForMessage.
//
//   Response r = TextResponse(http::status::bad_request, "id is empty", keep_alive);
//   Response r = StatusResponse(store_status, options, keep_alive);   // 404, 503, ...
//
// Thread-safety: stateless functions, safe from any thread.
#ifndef BLOBTUNE_EXAMPLES_SERVER_HTTP_RESPONSE_H_
#define BLOBTUNE_EXAMPLES_SERVER_HTTP_RESPONSE_H_

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/vector_body.hpp>
#include <cstddef>
#include <string_view>
#include <vector>

#include "blobtune/store/blob_store.h"
#include "blobtune/base/status.h"

namespace blobtune::server {

using Response = boost::beast::http::response<boost::beast::http::vector_body<std::byte>>;

// A response carrying `bytes` (Content-Type application/octet-stream); for 204 and 304, one
// with no body, Content-Type or Content-Length.
Response BlobResponse(boost::beast::http::status status, std::vector<std::byte> bytes,
                      bool keep_alive);
// Sets what a GET or HEAD of a blob tells about it: ETag (preconditions.h) and X-Blob-Crc32c
// (the stored CRC32C in decimal).
void SetBlobHeaders(Response& response, const store::BlobInfo& info);
// A response whose body is `text` plus a newline (Content-Type text/plain).
Response TextResponse(boost::beast::http::status status, std::string_view text, bool keep_alive,
                      std::string_view content_type = "text/plain; charset=utf-8");
// 503 with Retry-After: `retry_after_seconds`.
Response UnavailableResponse(std::string_view text, int retry_after_seconds, bool keep_alive);

// The HTTP status for a failed store or limiter operation: NOT_FOUND 404, INVALID_ARGUMENT 400,
// overload (no permit in time, limiter queue full, store queue full) 503, a full disk or map 507
// (no Retry-After: the same write would fail again until room is made), DATA_LOSS and the rest
// 500.
boost::beast::http::status HttpStatusOf(const Status& status);
// The error response for `status` (not OK): HttpStatusOf() and the status's message alone (no
// canonical code name: the HTTP status says the class); 503s carry Retry-After.
Response ErrorResponse(const Status& status, int retry_after_seconds, bool keep_alive);

}  // namespace blobtune::server

#endif  // BLOBTUNE_EXAMPLES_SERVER_HTTP_RESPONSE_H_
