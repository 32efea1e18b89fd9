#include "framing.h"

#include <algorithm>
#include <limits>
#include <boost/asio/buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <string_view>
#include <utility>
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

// What a header error of Beast's parser means, in words a client can act on.
std::string HeaderErrorText(const boost::system::error_code& ec) {
  using http::error;
  if (ec == error::bad_method) return "the request line's method is not a token";
  if (ec == error::bad_target) return "the request target has a byte a request target may not";
  if (ec == error::bad_version) {
    return "the request line must end in HTTP/1.0 or HTTP/1.1 and CRLF";
  }
  if (ec == error::bad_field) return "a header field's name is not a token followed by ':'";
  if (ec == error::bad_value) return "a header field's value has a byte it may not";
  if (ec == error::bad_line_ending) return "request line and header lines must end in CRLF";
  if (ec == error::bad_content_length) {
    return "Content-Length must be one decimal number (given once, or each time the same)";
  }
  if (ec == error::bad_transfer_encoding) {
    return "Transfer-Encoding may not follow chunked, nor come with Content-Length";
  }
  return "the request header is malformed (" + ec.message() + ")";
}

std::string ByteOffset(size_t at) { return "byte " + std::to_string(at); }

}  // namespace

void ConfigureHeaderParser(HeaderParser& parser) {
  parser.header_limit(kHeaderLimit);
  parser.body_limit(std::numeric_limits<uint64_t>::max());  // The size check is the server's.
}

namespace {

// Beast takes a chunk's extensions as they come, a quoted string's bytes unchecked; a CR, LF or
// NUL in one would end the chunk line early for a reader that looks for line ends first (a
// proxy), and what is body to one would be framing to the other. RFC 9112 7.1.1 allows HTAB,
// SP, VCHAR and obs-text there.
void CheckChunkExtensions(uint64_t /*size*/, boost::beast::string_view extensions,
                          boost::system::error_code& ec) {
  for (const char c : extensions) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && byte != '\t') || byte == 0x7f) {
      ec = http::error::bad_chunk_extension;
      return;
    }
  }
}

}  // namespace

void ConfigureBodyParser(BodyParser& parser, uint64_t max_body_bytes) {
  parser.body_limit(max_body_bytes);
  parser.on_chunk_header(CheckChunkExtensions);
}

std::optional<FramingRefusal> CheckHeaderLines(std::string_view received) {
  received = received.substr(0, kHeaderLimit);
  bool request_line = true;
  for (size_t i = 0; i < received.size(); ++i) {
    const char c = received[i];
    if (c == '\r') {
      if (i + 1 == received.size()) break;  // Its LF may be on its way.
      if (received[i + 1] != '\n') {
        return BadRequest("a bare CR at " + ByteOffset(i) + ": lines must end in CRLF");
      }
      continue;
    }
    if (c != '\n') continue;
    if (i == 0 || received[i - 1] != '\r') {
      return BadRequest("a bare LF at " + ByteOffset(i) +
                        ": the request line and header lines must end in CRLF");
    }
    // A line ended at i. An empty line ends the header; a line that begins with whitespace
    // continues the one before (obs-fold), or, right after the request line, is no field.
    const size_t next = i + 1;
    if (next == received.size()) break;
    if (received[next] == '\r' || received[next] == '\n') {
      if (received[next] == '\n') {
        return BadRequest("a bare LF at " + ByteOffset(next) +
                          ": the request line and header lines must end in CRLF");
      }
      break;  // CRLF CRLF (or its CR, the LF on its way): the header ends here.
    }
    if (received[next] == ' ' || received[next] == '\t') {
      return BadRequest(request_line
                            ? "whitespace after the request line, where a header field begins"
                            : "a header field folded onto the next line (obs-fold) at " +
                                  ByteOffset(next) + "; send each field on one line");
    }
    request_line = false;
  }
  return std::nullopt;
}

std::optional<FramingRefusal> RefusalOfHeaderError(const boost::system::error_code& ec) {
  if (ec.category() != http::make_error_code(http::error::end_of_stream).category() ||
      ec == http::error::end_of_stream || ec == http::error::partial_message ||
      ec == http::error::need_more) {
    return std::nullopt;
  }
  if (ec == http::error::header_limit) {
    return FramingRefusal{http::status::request_header_fields_too_large,
                          "request header is over " + std::to_string(kHeaderLimit) + " bytes"};
  }
  return BadRequest(HeaderErrorText(ec));
}

FramedRequest FrameRequest(std::string_view stream, uint64_t max_body_bytes) {
  FramedRequest framed;
  auto refuse = [&framed](FramingRefusal refusal) {
    framed.outcome = FramedRequest::Outcome::kRefused;
    framed.refusal = std::move(refusal);
    return framed;
  };
  if (std::optional<FramingRefusal> bad = CheckHeaderLines(stream)) return refuse(*bad);
  HeaderParser header;
  ConfigureHeaderParser(header);
  boost::system::error_code ec;
  size_t at = header.put(boost::asio::buffer(stream.data(), stream.size()), ec);
  if (ec || !header.is_header_done()) {
    if (std::optional<FramingRefusal> refusal = RefusalOfHeaderError(ec)) return refuse(*refusal);
    return framed;  // Incomplete.
  }
  if (std::optional<FramingRefusal> refusal = CheckFraming(header.get())) return refuse(*refusal);
  if (header.content_length() && *header.content_length() > max_body_bytes) {
    return refuse({http::status::payload_too_large,
                   "body is over the maximum of " + std::to_string(max_body_bytes) + " bytes"});
  }
  BodyParser body(std::move(header));
  ConfigureBodyParser(body, max_body_bytes);
  while (!body.is_done()) {
    const size_t used = body.put(boost::asio::buffer(stream.data() + at, stream.size() - at), ec);
    at += used;
    if (ec == http::error::need_more || (!ec && used == 0)) return framed;  // Incomplete.
    if (ec == http::error::body_limit) {
      return refuse({http::status::payload_too_large,
                     "body is over the maximum of " + std::to_string(max_body_bytes) + " bytes"});
    }
    if (ec) return refuse(BadRequest("malformed request body: " + ec.message()));
  }
  framed.outcome = FramedRequest::Outcome::kRequest;
  framed.size = at;
  framed.body_size = body.get().body().size();
  framed.method = std::string(body.get().method_string());
  framed.target = std::string(body.get().target());
  return framed;
}

std::vector<FramedRequest> FrameRequests(std::string_view stream, uint64_t max_body_bytes) {
  std::vector<FramedRequest> requests;
  while (!stream.empty()) {
    requests.push_back(FrameRequest(stream, max_body_bytes));
    if (requests.back().outcome != FramedRequest::Outcome::kRequest) break;
    stream.remove_prefix(requests.back().size);
  }
  return requests;
}

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
