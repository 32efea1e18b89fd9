// Conditional requests for blobtune-server (RFC 9110, 13): a blob's ETag, and what a request's
// If-Match and If-None-Match make of it. Pure functions over strings, like request_target.h.
//
//   const std::string etag = ETagOf(info.crc32c);          // "\"1a2b3c4d\""
//   switch (EvaluatePreconditions(conditions, /*safe_method=*/true, etag)) {
//     case PreconditionOutcome::kProceed:     ... answer as usual, with the ETag ...
//     case PreconditionOutcome::kNotModified: ... 304 with the ETag, no body ...
//     case PreconditionOutcome::kFailed:      ... 412 ...
//   }
//
// The ETag is the blob's stored CRC32C in hex: the same bytes always have the same ETag, and
// two different blobs share one with probability 2^-32, which is what a conditional write risks
// losing to.
//
// Thread-safety: stateless functions, safe from any thread.
#ifndef BLOBTUNE_EXAMPLES_SERVER_PRECONDITIONS_H_
#define BLOBTUNE_EXAMPLES_SERVER_PRECONDITIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace blobtune::server {

// A request's precondition headers, as received (empty: absent).
struct Preconditions {
  std::string if_match;
  std::string if_none_match;

  bool any() const noexcept { return !if_match.empty() || !if_none_match.empty(); }
};

enum class PreconditionOutcome {
  kProceed,      // Carry out the request.
  kNotModified,  // 304: a GET or HEAD whose If-None-Match matched.
  kFailed,       // 412 Precondition Failed.
};

// The strong entity tag of a blob with this stored checksum: a quoted string of 8 hex digits.
std::string ETagOf(uint32_t crc32c);

// RFC 9110 13.2.2: If-Match first (strong comparison; "*" matches any existing blob), then
// If-None-Match (weak comparison; "*" matches any existing blob), which gives 304 for a safe
// method (GET, HEAD) and 412 for any other. `etag` is the blob's current ETag, nullopt when
// there is no blob. A header that cannot be parsed as a list of entity tags matches nothing.
PreconditionOutcome EvaluatePreconditions(const Preconditions& conditions, bool safe_method,
                                          const std::optional<std::string>& etag);

}  // namespace blobtune::server

#endif  // BLOBTUNE_EXAMPLES_SERVER_PRECONDITIONS_H_
