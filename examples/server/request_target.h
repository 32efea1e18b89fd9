// Request routing for blobtune-server: turns an HTTP method and request target into what to do,
// validating namespaces, ids and query parameters on the way. Pure functions over strings, so
// the fuzzer (tests/server/request_fuzzer.cc) can drive them without a socket.
//
//   StatusOr<Route> route = ParseRoute(http::verb::put, "/blobs/photos/cat-1.jpg");
//   if (!route.ok()) ...  // INVALID_ARGUMENT -> 400, NOT_FOUND -> 404; message says what
//   route->kind == RouteKind::kPutBlob; route->ns == "photos"; route->id == "cat-1.jpg"
//
// Paths:  /blobs/{namespace}/{id}   GET HEAD PUT DELETE
//         /blobs/{namespace}        GET HEAD (list; ?prefix=P&limit=N&after=ID)
//         /metrics                  GET HEAD
//         /status                   GET HEAD
//         /healthz                  GET HEAD
// HEAD is routed as GET is (a HEAD of a blob is kHeadBlob, of the others the GET's kind): the
// connection sends the GET's header without its body.
// Namespaces: 1..64 bytes of [A-Za-z0-9_.-]. Ids: 1..255 bytes of [A-Za-z0-9_.~-], not "." or
// "..". Path segments and query values may be percent-encoded; the decoded bytes must still be
// in those sets. Whether a namespace exists on this server is the caller's business.
//
// Thread-safety: stateless functions, safe from any thread.
#ifndef BLOBTUNE_EXAMPLES_SERVER_REQUEST_TARGET_H_
#define BLOBTUNE_EXAMPLES_SERVER_REQUEST_TARGET_H_

#include <boost/beast/http/verb.hpp>
#include <cstddef>
#include <string>
#include <string_view>

#include "blobtune/tuner/partition.h"
#include "blobtune/base/status.h"
#include "blobtune/base/status_or.h"

namespace blobtune::server {

enum class RouteKind {
  kGetBlob,
  kHeadBlob,
  kPutBlob,
  kDeleteBlob,
  kList,
  kMetrics,
  kStatus,  // The live status page (metrics/status_page.h).
  kHealth,
  kMethodNotAllowed,  // A known path with a method it does not take; `allow` lists the ones it does.
};

inline constexpr size_t kMaxNamespaceBytes = 64;
inline constexpr size_t kMaxIdBytes = 255;
inline constexpr size_t kDefaultListLimit = 100;
inline constexpr size_t kMaxListLimit = 1000;

struct Route {
  RouteKind kind = RouteKind::kHealth;
  std::string ns;           // Blob and list routes.
  std::string id;           // Blob routes.
  std::string prefix;       // List: ids starting with this ("" for all).
  std::string after;        // List: start after this id ("" from the start).
  size_t limit = kDefaultListLimit;  // List: at most this many entries, 1..kMaxListLimit.
  std::string allow;        // kMethodNotAllowed: the value of the Allow header.
  // The limiters' partition its store accesses wait in (the connection sets it).
  tuner::PartitionId partition;
};

// OK, or INVALID_ARGUMENT saying which byte or length is wrong.
Status ValidateNamespace(std::string_view ns);
Status ValidateId(std::string_view id);

// `text` quoted for an error message: between single quotes, printable ASCII as it is, every
// other byte (and the quote and backslash) as \xNN, cut to `max_bytes` of input with "...".
// What a client sent can thus be echoed without writing its control bytes into a response.
std::string QuoteForMessage(std::string_view text, size_t max_bytes = 64);

// Decodes %XX escapes. INVALID_ARGUMENT for a truncated or non-hex escape.
StatusOr<std::string> PercentDecode(std::string_view text);

// The route for `method` on `target` (origin-form: path, optional ?query). INVALID_ARGUMENT
// (400) for a malformed target, namespace, id or query parameter; NOT_FOUND (404) for a path no
// route has.
StatusOr<Route> ParseRoute(boost::beast::http::verb method, std::string_view target);

}  // namespace blobtune::server

#endif  // BLOBTUNE_EXAMPLES_SERVER_REQUEST_TARGET_H_
