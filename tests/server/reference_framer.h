// A strict request framer written from RFC 9112 alone, for the fuzzer to hold the server's
// framing (framing.h) against: it shares no code with the server and no parser with Beast.
//
//   ReferenceFrame f = FrameByRfc9112("PUT /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
//   f.outcome == ReferenceOutcome::kRequest; f.size == 50
//
// Outcomes: a whole request and where it ends; ambiguous (two readers of the RFC could end the
// request in different places, so a server must refuse it: a bare LF or CR, an obs-fold, a
// field name that is no token or has whitespace before its colon, Transfer-Encoding with
// Content-Length or in HTTP/1.0 or not ending in chunked, Content-Length that is no number, is
// past 64 bits or is given differently, a malformed chunk, a bare CR or LF in the trailer
// section); incomplete; or unframeable (not HTTP/1.x at all, or over the header size a server
// may choose: no claim either way).
//
// Thread-safety: a pure function.
#ifndef BLOBTUNE_TESTS_SERVER_REFERENCE_FRAMER_H_
#define BLOBTUNE_TESTS_SERVER_REFERENCE_FRAMER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blobtune::server::reference {

enum class ReferenceOutcome { kRequest, kAmbiguous, kIncomplete, kUnframeable };

struct ReferenceFrame {
  ReferenceOutcome outcome = ReferenceOutcome::kIncomplete;
  size_t size = 0;  // kRequest: header and body bytes.
  std::string why;  // kAmbiguous, kUnframeable: what the RFC says of it.
};

namespace internal {

inline bool IsTchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}
inline bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsTchar(c)) return false;
  }
  return true;
}
inline bool IsFieldValueByte(char c) {
  const auto b = static_cast<unsigned char>(c);
  return b == '\t' || (b >= 0x20 && b != 0x7f);  // VCHAR, SP, HTAB, obs-text (RFC 9110 5.5).
}
inline std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
inline std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}
inline bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

struct Field {
  std::string name;  // Lower case.
  std::string_view value;
};

inline ReferenceFrame Ambiguous(std::string why) {
  return {ReferenceOutcome::kAmbiguous, 0, std::move(why)};
}
inline ReferenceFrame Unframeable(std::string why) {
  return {ReferenceOutcome::kUnframeable, 0, std::move(why)};
}

// The line at `at` without its CRLF, `at` moved past it; nothing when no CRLF follows (yet).
// RFC 9112 2.2: a bare CR or LF is ambiguous (a recipient may take it as a line end or not).
inline std::optional<std::string_view> Line(std::string_view s, size_t& at,
                                            std::optional<ReferenceFrame>& bad) {
  for (size_t i = at; i < s.size(); ++i) {
    if (s[i] == '\n') {
      bad = Ambiguous("a bare LF");
      return std::nullopt;
    }
    if (s[i] != '\r') continue;
    if (i + 1 == s.size()) return std::nullopt;
    if (s[i + 1] != '\n') {
      bad = Ambiguous("a bare CR");
      return std::nullopt;
    }
    const std::string_view line = s.substr(at, i - at);
    at = i + 2;
    return line;
  }
  return std::nullopt;
}

// Field lines up to the empty line (RFC 9112 5): a header section or a trailer section.
inline std::optional<ReferenceFrame> Fields(std::string_view s, size_t& at,
                                            std::vector<Field>& fields) {
  std::optional<ReferenceFrame> bad;
  while (true) {
    std::optional<std::string_view> line = Line(s, at, bad);
    if (bad) return bad;
    if (!line) return ReferenceFrame{};  // Incomplete.
    if (line->empty()) return std::nullopt;
    if (line->front() == ' ' || line->front() == '\t') return Ambiguous("obs-fold");
    const size_t colon = line->find(':');
    if (colon == std::string_view::npos) return Ambiguous("a field line without ':'");
    const std::string_view name = line->substr(0, colon);
    if (!IsToken(name)) return Ambiguous("a field name that is no token (or space before ':')");
    const std::string_view value = TrimOws(line->substr(colon + 1));
    for (char c : value) {
      if (!IsFieldValueByte(c)) return Ambiguous("a field value with a control byte");
    }
    fields.push_back({Lower(name), value});
  }
}

// RFC 9112 7.1: chunks, the last chunk, the trailer section; `at` moved past them.
inline std::optional<ReferenceFrame> ChunkedBody(std::string_view s, size_t& at) {
  std::optional<ReferenceFrame> bad;
  while (true) {
    std::optional<std::string_view> line = Line(s, at, bad);
    if (bad) return bad;
    if (!line) return ReferenceFrame{};
    size_t i = 0;
    uint64_t size = 0;
    while (i < line->size() && IsHex((*line)[i])) {
      if (size >> 60 != 0) return Ambiguous("a chunk size over 64 bits");
      const char c = (*line)[i];
      const int digit = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
      size = size * 16 + static_cast<uint64_t>(digit);
      ++i;
    }
    if (i == 0) return Ambiguous("a chunk size that is no hex number");
    // chunk-ext = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] ), ext-val token or
    // quoted-string (RFC 9112 7.1.1).
    std::string_view ext = line->substr(i);
    while (!ext.empty()) {
      ext = TrimOws(ext);
      if (ext.empty()) return Ambiguous("whitespace after a chunk size");
      if (ext.front() != ';') return Ambiguous("a chunk size followed by no ';'");
      ext = TrimOws(ext.substr(1));
      size_t n = 0;
      while (n < ext.size() && IsTchar(ext[n])) ++n;
      if (n == 0) return Ambiguous("a chunk extension without a name");
      ext = ext.substr(n);
      const std::string_view rest = TrimOws(ext);
      if (rest.empty() || rest.front() != '=') {
        if (!rest.empty() && rest.front() != ';') return Ambiguous("a bad chunk extension");
        ext = rest;
        continue;
      }
      ext = TrimOws(rest.substr(1));
      if (!ext.empty() && ext.front() == '"') {
        size_t q = 1;
        for (; q < ext.size() && ext[q] != '"'; ++q) {
          if (ext[q] == '\\') ++q;
        }
        if (q >= ext.size()) return Ambiguous("an unterminated quoted chunk extension");
        ext = ext.substr(q + 1);
      } else {
        n = 0;
        while (n < ext.size() && IsTchar(ext[n])) ++n;
        if (n == 0) return Ambiguous("a chunk extension without a value");
        ext = ext.substr(n);
      }
    }
    if (size == 0) break;
    if (s.size() - at < size) return ReferenceFrame{};
    at += size;
    if (s.size() - at < 2) {
      if (s.size() > at && s[at] != '\r') return Ambiguous("chunk data longer than its size");
      return ReferenceFrame{};
    }
    if (s[at] != '\r' || s[at + 1] != '\n') return Ambiguous("chunk data longer than its size");
    at += 2;
  }
  // The trailer section: lines up to the empty one. Trailer fields take no part in framing
  // (RFC 9110 6.5.1: no Transfer-Encoding or Content-Length there), so what a line holds, folded
  // or not, cannot move the end; only where the lines end can.
  while (true) {
    std::optional<std::string_view> line = Line(s, at, bad);
    if (bad) return bad;
    if (!line) return ReferenceFrame{};
    if (line->empty()) return std::nullopt;
  }
}

}  // namespace internal

// The request at the start of `s`, framed by RFC 9112. `max_header_bytes`: a header longer than
// this is unframeable (a server's limit; 431).
inline ReferenceFrame FrameByRfc9112(std::string_view s, size_t max_header_bytes) {
  using namespace internal;
  std::optional<ReferenceFrame> bad;
  size_t at = 0;
  // request-line = method SP request-target SP HTTP-version (RFC 9112 3).
  std::optional<std::string_view> request_line = Line(s, at, bad);
  if (bad) return *bad;
  if (!request_line) {
    return s.size() > max_header_bytes ? Unframeable("header over the limit") : ReferenceFrame{};
  }
  const size_t sp1 = request_line->find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : request_line->find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return Unframeable("no request line");
  const std::string_view method = request_line->substr(0, sp1);
  const std::string_view target = request_line->substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = request_line->substr(sp2 + 1);
  if (!IsToken(method) || target.empty()) return Unframeable("no request line");
  for (char c : target) {
    const auto b = static_cast<unsigned char>(c);
    if (b <= 0x20 || b == 0x7f) return Unframeable("a request target with a control byte");
  }
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return Unframeable("not HTTP/1.x");

  std::vector<Field> fields;
  if (std::optional<ReferenceFrame> ended = Fields(s, at, fields)) {
    if (ended->outcome == ReferenceOutcome::kIncomplete && s.size() > max_header_bytes) {
      return Unframeable("header over the limit");
    }
    return *ended;
  }
  if (at > max_header_bytes) return Unframeable("header over the limit");

  // RFC 9112 6.1-6.3.
  std::vector<std::string_view> codings;
  std::vector<std::string_view> lengths;
  bool has_transfer_encoding = false;
  for (const Field& f : fields) {
    if (f.name == "transfer-encoding") {
      has_transfer_encoding = true;
      std::string_view rest = f.value;
      while (true) {
        const size_t comma = rest.find(',');
        const std::string_view coding = TrimOws(rest.substr(0, comma));
        if (!coding.empty()) codings.push_back(coding);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    } else if (f.name == "content-length") {
      std::string_view rest = f.value;
      while (true) {
        const size_t comma = rest.find(',');
        lengths.push_back(TrimOws(rest.substr(0, comma)));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    }
  }
  if (has_transfer_encoding) {
    if (version == "HTTP/1.0") return Ambiguous("Transfer-Encoding in HTTP/1.0");
    if (!lengths.empty()) return Ambiguous("Transfer-Encoding with Content-Length");
    if (codings.empty() || Lower(codings.back()) != "chunked") {
      return Ambiguous("Transfer-Encoding not ending in chunked");
    }
    for (size_t i = 0; i + 1 < codings.size(); ++i) {
      if (Lower(codings[i]) == "chunked") return Ambiguous("chunked applied twice");
    }
    if (std::optional<ReferenceFrame> ended = ChunkedBody(s, at)) return *ended;
    return {ReferenceOutcome::kRequest, at, ""};
  }
  if (!lengths.empty()) {
    uint64_t length = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
      // Content-Length = 1*DIGIT (RFC 9110 8.6): leading zeros are digits like any other; a
      // value past 64 bits cannot be held, so no server can frame by it.
      const std::string_view text = lengths[i];
      if (text.empty()) return Ambiguous("a Content-Length that is no number");
      uint64_t value = 0;
      for (char c : text) {
        if (c < '0' || c > '9') return Ambiguous("a Content-Length that is no number");
        const auto digit = static_cast<uint64_t>(c - '0');
        if (value > (UINT64_MAX - digit) / 10) return Ambiguous("a Content-Length over 64 bits");
        value = value * 10 + digit;
      }
      if (i > 0 && value != length) return Ambiguous("Content-Lengths that differ");
      length = value;
    }
    if (s.size() - at < length) return ReferenceFrame{};
    return {ReferenceOutcome::kRequest, at + static_cast<size_t>(length), ""};
  }
  return {ReferenceOutcome::kRequest, at, ""};
}

}  // namespace blobtune::server::reference

#endif  // BLOBTUNE_TESTS_SERVER_REFERENCE_FRAMER_H_
