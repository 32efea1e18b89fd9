#include "blobtune/base/status.h"

#include <cassert>
#include <utility>

namespace blobtune {

std::string_view StatusCodeName(StatusCode code) noexcept {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case StatusCode::kNotFound: return "NOT_FOUND";
    case StatusCode::kAlreadyExists: return "ALREADY_EXISTS";
    case StatusCode::kResourceExhausted: return "RESOURCE_EXHAUSTED";
    case StatusCode::kDeadlineExceeded: return "DEADLINE_EXCEEDED";
    case StatusCode::kCancelled: return "CANCELLED";
    case StatusCode::kUnavailable: return "UNAVAILABLE";
    case StatusCode::kDataLoss: return "DATA_LOSS";
    case StatusCode::kInternal: return "INTERNAL";
  }
  return "UNKNOWN";
}

Status::Status(StatusCode code, std::string_view message) {
  assert(code != StatusCode::kOk || message.empty());
  if (code != StatusCode::kOk) {
    state_ = std::make_shared<const State>(State{code, std::string(message)});
  }
}

Status Status::InvalidArgument(std::string_view m) { return {StatusCode::kInvalidArgument, m}; }
Status Status::NotFound(std::string_view m) { return {StatusCode::kNotFound, m}; }
Status Status::AlreadyExists(std::string_view m) { return {StatusCode::kAlreadyExists, m}; }
Status Status::ResourceExhausted(std::string_view m) { return {StatusCode::kResourceExhausted, m}; }
Status Status::DeadlineExceeded(std::string_view m) { return {StatusCode::kDeadlineExceeded, m}; }
Status Status::Cancelled(std::string_view m) { return {StatusCode::kCancelled, m}; }
Status Status::Unavailable(std::string_view m) { return {StatusCode::kUnavailable, m}; }
Status Status::DataLoss(std::string_view m) { return {StatusCode::kDataLoss, m}; }
Status Status::Internal(std::string_view m) { return {StatusCode::kInternal, m}; }

Status Status::Overloaded(std::string_view m) {
  Status status;
  status.state_ =
      std::make_shared<const State>(State{StatusCode::kResourceExhausted, std::string(m), true});
  return status;
}

bool IsOverload(const Status& status) noexcept {
  switch (status.code()) {
    case StatusCode::kDeadlineExceeded:
    case StatusCode::kUnavailable:
      return true;
    case StatusCode::kResourceExhausted:
      return status.overloaded_mark();
    default:
      return false;
  }
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(code()));
  out += ": ";
  out += message();
  return out;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string message(context);
  message += ": ";
  message += this->message();
  if (overloaded_mark()) return Overloaded(message);
  return Status(code(), message);
}

std::ostream& operator<<(std::ostream& os, const Status& status) {
  return os << status.ToString();
}

}  // namespace blobtune
