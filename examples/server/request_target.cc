#include "request_target.h"

#include <charconv>
#include <string>

namespace blobtune::server {
namespace {

namespace http = boost::beast::http;

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool IsNamespaceChar(char c) { return IsAlnum(c) || c == '_' || c == '.' || c == '-'; }
bool IsIdChar(char c) { return IsNamespaceChar(c) || c == '~'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// "byte 0x2f ('/') at offset 3": printable bytes are shown, others only in hex.
std::string DescribeByte(std::string_view text, size_t at) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto byte = static_cast<unsigned char>(text[at]);
  std::string out = "byte 0x";
  out += kHex[byte >> 4];
  out += kHex[byte & 0xf];
  if (byte >= 0x21 && byte < 0x7f) {
    out += " ('";
    out += static_cast<char>(byte);
    out += "')";
  }
  return out + " at offset " + std::to_string(at);
}

Status ValidateToken(std::string_view what, std::string_view text, size_t max_bytes,
                     bool (*allowed)(char), std::string_view allowed_text) {
  if (text.empty()) return Status::InvalidArgument(std::string(what) + " is empty");
  if (text.size() > max_bytes) {
    return Status::InvalidArgument(std::string(what) + " is " + std::to_string(text.size()) +
                                   " bytes; at most " + std::to_string(max_bytes) + " allowed");
  }
  for (size_t i = 0; i < text.size(); ++i) {
    if (!allowed(text[i])) {
      return Status::InvalidArgument(std::string(what) + " has " + DescribeByte(text, i) +
                                     "; allowed: " + std::string(allowed_text));
    }
  }
  return Status();
}

StatusOr<std::string> DecodeNamespace(std::string_view raw) {
  StatusOr<std::string> ns = PercentDecode(raw);
  if (!ns.ok()) return Status::InvalidArgument("namespace: " + std::string(ns.status().message()));
  Status valid = ValidateNamespace(*ns);
  if (!valid.ok()) return valid;
  return ns;
}

// Parses the list query: prefix=P, limit=N, after=ID; anything else is an error, so that a
// misspelt parameter is not silently ignored.
Status ParseListQuery(std::string_view query, Route* route) {
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    std::string_view key = pair.substr(0, eq);
    std::string_view raw = eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    StatusOr<std::string> value = PercentDecode(raw);
    if (!value.ok()) {
      return Status::InvalidArgument("query parameter " + QuoteForMessage(key) + ": " +
                                     std::string(value.status().message()));
    }
    if (key == "prefix") {
      // A prefix may be empty; otherwise it is made of id bytes.
      if (!value->empty()) {
        Status valid = ValidateToken("prefix", *value, kMaxIdBytes, IsIdChar, "A-Z a-z 0-9 _ . ~ -");
        if (!valid.ok()) return valid;
      }
      route->prefix = *std::move(value);
    } else if (key == "after") {
      if (!value->empty()) {
        Status valid = ValidateId(*value);
        if (!valid.ok()) return Status::InvalidArgument("after: " + std::string(valid.message()));
      }
      route->after = *std::move(value);
    } else if (key == "limit") {
      size_t limit = 0;
      const char* end = value->data() + value->size();
      auto [ptr, ec] = std::from_chars(value->data(), end, limit);
      if (value->empty() || ec != std::errc() || ptr != end || limit < 1 || limit > kMaxListLimit) {
        return Status::InvalidArgument("limit must be a number from 1 to " +
                                       std::to_string(kMaxListLimit) + ", not " +
                                       QuoteForMessage(*value));
      }
      route->limit = limit;
    } else {
      return Status::InvalidArgument("unknown query parameter " + QuoteForMessage(key) +
                                     "; a listing takes prefix, limit and after");
    }
  }
  return Status();
}

Route NotAllowed(std::string allow) {
  Route route;
  route.kind = RouteKind::kMethodNotAllowed;
  route.allow = std::move(allow);
  return route;
}

}  // namespace

Status ValidateNamespace(std::string_view ns) {
  return ValidateToken("namespace", ns, kMaxNamespaceBytes, IsNamespaceChar, "A-Z a-z 0-9 _ . -");
}

Status ValidateId(std::string_view id) {
  Status valid = ValidateToken("id", id, kMaxIdBytes, IsIdChar, "A-Z a-z 0-9 _ . ~ -");
  if (!valid.ok()) return valid;
  if (id == "." || id == "..") return Status::InvalidArgument("id may not be '.' or '..'");
  return Status();
}

std::string QuoteForMessage(std::string_view text, size_t max_bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < max_bytes; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f && byte != '\'' && byte != '\\') {
      out += static_cast<char>(byte);
    } else {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
  }
  out += "'";
  if (text.size() > max_bytes) out += "...";
  return out;
}

StatusOr<std::string> PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) {
      return Status::InvalidArgument("truncated %-escape at offset " + std::to_string(i));
    }
    const int high = HexValue(text[i + 1]);
    const int low = HexValue(text[i + 2]);
    if (high < 0 || low < 0) {
      return Status::InvalidArgument("bad %-escape at offset " + std::to_string(i));
    }
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

StatusOr<Route> ParseRoute(http::verb method, std::string_view target) {
  if (target.empty() || target.front() != '/') {
    return Status::InvalidArgument("request target must start with '/'");
  }
  std::string_view path = target;
  std::string_view query;
  bool has_query = false;
  if (const size_t q = target.find('?'); q != std::string_view::npos) {
    path = target.substr(0, q);
    query = target.substr(q + 1);
    has_query = true;
  }
  if (const size_t hash = query.find('#'); hash != std::string_view::npos) {
    return Status::InvalidArgument("request target may not carry a fragment ('#')");
  }

  // HEAD is answered wherever GET is (RFC 9110 9.3.2): the same header, no body.
  const bool get_or_head = method == http::verb::get || method == http::verb::head;
  if (path == "/healthz") {
    if (!get_or_head) return NotAllowed("GET, HEAD");
    Route route;
    route.kind = RouteKind::kHealth;
    return route;
  }
  if (path == "/metrics") {
    if (!get_or_head) return NotAllowed("GET, HEAD");
    Route route;
    route.kind = RouteKind::kMetrics;
    return route;
  }
  if (path == "/status") {
    if (!get_or_head) return NotAllowed("GET, HEAD");
    Route route;
    route.kind = RouteKind::kStatus;
    return route;
  }

  constexpr std::string_view kBlobs = "/blobs/";
  if (!path.starts_with(kBlobs)) {
    return Status::NotFound("no such path " + QuoteForMessage(path, 256) +
                            "; try /blobs/{namespace}/{id}, /metrics, /status or /healthz");
  }
  std::string_view rest = path.substr(kBlobs.size());
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) {
    // /blobs/{namespace}: a listing.
    if (!get_or_head) return NotAllowed("GET, HEAD");
    StatusOr<std::string> ns = DecodeNamespace(rest);
    if (!ns.ok()) return ns.status();
    Route route;
    route.kind = RouteKind::kList;
    route.ns = *std::move(ns);
    Status query_ok = ParseListQuery(query, &route);
    if (!query_ok.ok()) return query_ok;
    return route;
  }

  StatusOr<std::string> ns = DecodeNamespace(rest.substr(0, slash));
  if (!ns.ok()) return ns.status();
  std::string_view raw_id = rest.substr(slash + 1);
  if (raw_id.find('/') != std::string_view::npos) {
    return Status::InvalidArgument("id may not contain '/'");
  }
  StatusOr<std::string> id = PercentDecode(raw_id);
  if (!id.ok()) return Status::InvalidArgument("id: " + std::string(id.status().message()));
  Status id_ok = ValidateId(*id);
  if (!id_ok.ok()) return id_ok;
  if (has_query && !query.empty()) {
    return Status::InvalidArgument("a blob request takes no query parameters");
  }

  Route route;
  switch (method) {
    case http::verb::get:
      route.kind = RouteKind::kGetBlob;
      break;
    case http::verb::head:
      route.kind = RouteKind::kHeadBlob;
      break;
    case http::verb::put:
      route.kind = RouteKind::kPutBlob;
      break;
    case http::verb::delete_:
      route.kind = RouteKind::kDeleteBlob;
      break;
    default:
      return NotAllowed("GET, HEAD, PUT, DELETE");
  }
  route.ns = *std::move(ns);
  route.id = *std::move(id);
  return route;
}

}  // namespace blobtune::server
