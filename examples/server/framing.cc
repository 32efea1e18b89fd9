#include "framing.h"

#include <algorithm>
#include <boost/beast/core/string.hpp>
#include <string_view>
#include <vector>

#include "request_target.h"

namespace blobtune::server {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;

std::string_view TrimWhitespace(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// The transfer codings of every Transfer-Encoding field, in order (one list, RFC 9110 5.3);
// empty list elements are skipped (RFC 9110 5.6.1).
std::vector<std::string_view> TransferCodings(const http::request_header<>& header) {
  std::vector<std::string_view> codings;
  auto [begin, end] = header.equal_range(http::field::transfer_encoding);
  for (auto field = begin; field != end; ++field) {
    std::string_view rest(field->value().data(), field->value().size());
    while (true) {
      const size_t comma = rest.find(',');
      const std::string_view coding = TrimWhitespace(rest.substr(0, comma));
      if (!coding.empty()) codings.push_back(coding);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return codings;
}

bool IsChunked(std::string_view coding) {
  return beast::iequals(beast::string_view(coding.data(), coding.size()), "chunked");
}

FramingRefusal BadRequest(std::string message) {
  return {http::status::bad_request, std::move(message)};
}

std::optional<FramingRefusal> CheckTransferEncoding(const http::request_header<>& header) {
  if (header.version() < 11) {
    return BadRequest("Transfer-Encoding is not allowed in an HTTP/1.0 request");
  }
  if (header.count(http::field::content_length) > 0) {
    return BadRequest("a request may not have both Transfer-Encoding and Content-Length");
  }
  const std::vector<std::string_view> codings = TransferCodings(header);
  if (codings.empty()) return BadRequest("Transfer-Encoding is empty");
  if (!IsChunked(codings.back())) {
    return BadRequest("Transfer-Encoding must end with chunked, got " +
                      QuoteForMessage(codings.back()));
  }
  const auto before_last = codings.end() - 1;
  if (std::any_of(codings.begin(), before_last, IsChunked)) {
    return BadRequest("Transfer-Encoding applies chunked more than once");
  }
  if (codings.begin() != before_last) {
    return FramingRefusal{http::status::not_implemented,
                          "transfer coding " + QuoteForMessage(codings.front()) +
                              " is not supported; only chunked is"};
  }
  return std::nullopt;
}

}  // namespace

std::optional<FramingRefusal> CheckFraming(const http::request_header<>& header) {
  const bool has_transfer_encoding = header.count(http::field::transfer_encoding) > 0;
  if (has_transfer_encoding) {
    if (std::optional<FramingRefusal> refusal = CheckTransferEncoding(header)) return refusal;
  }
  if (header.version() >= 11 && header.count(http::field::host) != 1) {
    return BadRequest(header.count(http::field::host) == 0
                          ? "an HTTP/1.1 request must have a Host header"
                          : "a request may have only one Host header");
  }
  if (header.method() == http::verb::put && !has_transfer_encoding &&
      header.count(http::field::content_length) == 0) {
    return FramingRefusal{http::status::length_required,
                          "a PUT needs Content-Length or Transfer-Encoding: chunked"};
  }
  return std::nullopt;
}

}  // namespace blobtune::server
