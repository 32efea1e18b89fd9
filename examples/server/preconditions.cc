#include "preconditions.h"

#include <cstdio>

namespace blobtune::server {
namespace {

enum class Comparison { kStrong, kWeak };

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

std::string_view Trimmed(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

// Whether the header value `list` ("*" or a comma-separated list of entity tags) matches
// `etag` (a strong tag; nullopt: no blob). A malformed list matches nothing.
bool Matches(std::string_view list, const std::optional<std::string>& etag, Comparison how) {
  list = Trimmed(list);
  if (list == "*") return etag.has_value();
  bool matched = false;
  while (!list.empty()) {
    if (list.front() == ',' || IsSpace(list.front())) {
      list.remove_prefix(1);
      continue;
    }
    bool weak = false;
    if (list.starts_with("W/")) {
      weak = true;
      list.remove_prefix(2);
    }
    // An entity tag is a quoted string without escapes (RFC 9110 8.8.3).
    const size_t close = list.starts_with('"') ? list.find('"', 1) : std::string_view::npos;
    if (close == std::string_view::npos) return false;
    const std::string_view tag = list.substr(0, close + 1);
    list.remove_prefix(close + 1);
    if (etag && tag == *etag && (how == Comparison::kWeak || !weak)) matched = true;
  }
  return matched;
}

}  // namespace

std::string ETagOf(uint32_t crc32c) {
  char text[16];
  std::snprintf(text, sizeof text, "\"%08x\"", crc32c);
  return text;
}

PreconditionOutcome EvaluatePreconditions(const Preconditions& conditions, bool safe_method,
                                          const std::optional<std::string>& etag) {
  if (!conditions.if_match.empty() && !Matches(conditions.if_match, etag, Comparison::kStrong)) {
    return PreconditionOutcome::kFailed;
  }
  if (!conditions.if_none_match.empty() &&
      Matches(conditions.if_none_match, etag, Comparison::kWeak)) {
    return safe_method ? PreconditionOutcome::kNotModified : PreconditionOutcome::kFailed;
  }
  return PreconditionOutcome::kProceed;
}

}  // namespace blobtune::server
