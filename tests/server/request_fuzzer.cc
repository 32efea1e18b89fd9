// libFuzzer target over blobtune-server's request parsing: the input is used both as a request
// target (its first byte picks the method) and as raw request bytes for Beast's header parser,
// whose result is routed as the server routes it. Checks that a route the parser accepts only
// carries a namespace and id that pass validation, and that nothing crashes.
//
// The input is also each precondition header (If-Match, If-None-Match), evaluated against a
// blob and against none.
//
// Framing: the input is also a byte stream on one connection, framed into requests the way the
// server frames them (FrameRequests, framing.h: Beast's parser with the server's limits, the
// checks of line endings and of RFC 9112 section 6, the body by Content-Length or chunked), and
// each request is held against a strict framer written from RFC 9112 alone
// (reference_framer.h). Whenever the server accepts a request, the reference must end it at the
// same byte (else bytes the server takes for a body are a request to a reader of the RFC, or
// the other way round: one request answered twice, or a body executed); wherever the reference
// finds the framing ambiguous, the server must refuse it, and it then reads nothing more.
//
// Built with clang -fsanitize=fuzzer by scripts/fuzz; server_request_fuzzer_corpus_test runs the
// seed corpus through it in every build.
#include <boost/asio/buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "framing.h"
#include "preconditions.h"
#include "reference_framer.h"
#include "request_target.h"

namespace {

namespace http = boost::beast::http;
using blobtune::server::ParseRoute;
using blobtune::server::Route;
using blobtune::server::RouteKind;

void CheckRoute(http::verb method, std::string_view target) {
  blobtune::StatusOr<Route> route = ParseRoute(method, target);
  if (!route.ok()) {
    const auto code = route.status().code();
    if (code != blobtune::StatusCode::kInvalidArgument &&
        code != blobtune::StatusCode::kNotFound) {
      std::abort();  // The server maps only these two to 400 and 404.
    }
    return;
  }
  switch (route->kind) {
    case RouteKind::kGetBlob:
    case RouteKind::kHeadBlob:
    case RouteKind::kPutBlob:
    case RouteKind::kDeleteBlob:
      if (!blobtune::server::ValidateId(route->id).ok()) std::abort();
      [[fallthrough]];
    case RouteKind::kList:
      if (!blobtune::server::ValidateNamespace(route->ns).ok()) std::abort();
      if (route->limit < 1 || route->limit > blobtune::server::kMaxListLimit) std::abort();
      break;
    default:
      break;
  }
}

// The body limit the framing is checked under (the server's --max-blob-size).
constexpr uint64_t kMaxBody = 1 << 20;

void CheckFraming(std::string_view stream) {
  namespace ref = blobtune::server::reference;
  using blobtune::server::FramedRequest;
  const std::vector<FramedRequest> requests = blobtune::server::FrameRequests(stream, kMaxBody);
  size_t at = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    const FramedRequest& server = requests[i];
    const std::string_view rest = stream.substr(at);
    const ref::ReferenceFrame reference = ref::FrameByRfc9112(rest, blobtune::server::kHeaderLimit);
    switch (server.outcome) {
      case FramedRequest::Outcome::kRequest:
        // Accepted: the reference ends it at the same byte.
        if (reference.outcome != ref::ReferenceOutcome::kRequest ||
            reference.size != server.size) {
          std::abort();
        }
        if (server.size == 0 || server.size > rest.size() || server.body_size > kMaxBody) {
          std::abort();
        }
        at += server.size;
        break;
      case FramedRequest::Outcome::kIncomplete:
        // Waiting for more: the reference must not have found the request whole in the same
        // bytes (an ambiguity the server has not reached yet is refused once it has).
        if (reference.outcome == ref::ReferenceOutcome::kRequest) std::abort();
        [[fallthrough]];
      case FramedRequest::Outcome::kRefused:
        // The last one framed: nothing after a refusal is read.
        if (i + 1 != requests.size()) std::abort();
        break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (!input.empty()) {
    const auto method = static_cast<http::verb>(static_cast<unsigned char>(input[0]) % 40);
    CheckRoute(method, input.substr(1));
  }
  (void)blobtune::server::PercentDecode(input);
  // The precondition headers, as a client may send anything in them.
  for (const bool safe : {true, false}) {
    const blobtune::server::Preconditions conditions{std::string(input), std::string(input)};
    (void)blobtune::server::EvaluatePreconditions(conditions, safe, std::nullopt);
    (void)blobtune::server::EvaluatePreconditions(conditions, safe,
                                                  blobtune::server::ETagOf(0x1a2b3c4d));
  }

  CheckFraming(input);

  http::request_parser<http::empty_body> parser;
  parser.header_limit(16 * 1024);
  boost::system::error_code ec;
  parser.put(boost::asio::buffer(data, size), ec);
  if (!ec && parser.is_header_done()) {
    const auto target = parser.get().target();
    CheckRoute(parser.get().method(), std::string_view(target.data(), target.size()));
  }
  return 0;
}
