// libFuzzer target over blobtune-server's request parsing: the input is used both as a request
// target (its first byte picks the method) and as raw request bytes for Beast's header parser,
// whose result is routed as the server routes it. Checks that a route the parser accepts only
// carries a namespace and id that pass validation, and that nothing crashes.
//
// Built with clang -fsanitize=fuzzer by scripts/fuzz; request_fuzzer_replay_test.cc runs the
// seed corpus through it in every build.
#include <boost/asio/buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (!input.empty()) {
    const auto method = static_cast<http::verb>(static_cast<unsigned char>(input[0]) % 40);
    CheckRoute(method, input.substr(1));
  }
  (void)blobtune::server::PercentDecode(input);

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
