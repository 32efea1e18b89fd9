// Status: the outcome of an operation, used at every public boundary of blobtune.
//
// A Status is either ok or carries a canonical error code and a message that says what went wrong
// in terms the caller can act on. Errors are values, not exceptions: no exception crosses a public
// blobtune API. An ok Status holds no allocation; copying an error shares its immutable state.
//
//   blobtune::Status s = store.Put("incoming", id, bytes);
//   if (!s.ok()) std::cerr << s.ToString() << "\n";   // "RESOURCE_EXHAUSTED: map is full ..."
//
// Thread-safety: a Status is an immutable value; distinct threads may copy and read it freely.
#ifndef BLOBTUNE_BASE_STATUS_H_
#define BLOBTUNE_BASE_STATUS_H_

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace blobtune {

// The canonical error codes (the subset of absl::StatusCode that blobtune needs).
enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument,    // The caller passed something malformed: a bad key, flag or config.
  kNotFound,           // The named thing does not exist.
  kAlreadyExists,      // The thing to create exists already.
  kResourceExhausted,  // A bound was reached: a full queue, a full map, a blob over the maximum.
  kDeadlineExceeded,   // The deadline passed before the operation could finish.
  kCancelled,          // The caller (or a shutdown) cancelled the operation.
  kUnavailable,        // Transient: the resource cannot serve now; retrying may succeed.
  kDataLoss,           // Stored data is corrupt or unreadable.
  kInternal,           // An invariant broke or a dependency failed unexpectedly.
};

// "OK", "INVALID_ARGUMENT", ... as used in Status::ToString() and in metric labels.
std::string_view StatusCodeName(StatusCode code) noexcept;

class [[nodiscard]] Status {
 public:
  // An ok status.
  Status() noexcept = default;
  // REQUIRES: code != StatusCode::kOk when a message is given (an ok status has no message).
  Status(StatusCode code, std::string_view message);

  Status(const Status&) = default;
  Status& operator=(const Status&) = default;
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  ~Status() = default;

  static Status Ok() noexcept { return Status(); }
  static Status InvalidArgument(std::string_view message);
  static Status NotFound(std::string_view message);
  static Status AlreadyExists(std::string_view message);
  static Status ResourceExhausted(std::string_view message);
  static Status DeadlineExceeded(std::string_view message);
  static Status Cancelled(std::string_view message);
  static Status Unavailable(std::string_view message);
  static Status DataLoss(std::string_view message);
  static Status Internal(std::string_view message);
  // RESOURCE_EXHAUSTED for a refusal because of load (a full queue, every slot in use, no permit
  // free): IsOverload is true for it, where a plain ResourceExhausted (a blob over its maximum,
  // a full disk) is not, as fewer concurrent requests would not help there.
  static Status Overloaded(std::string_view message);

  bool ok() const noexcept { return state_ == nullptr; }
  StatusCode code() const noexcept { return state_ ? state_->code : StatusCode::kOk; }
  std::string_view message() const noexcept {
    return state_ ? std::string_view(state_->message) : std::string_view();
  }

  // "OK" or "<CODE>: <message>".
  std::string ToString() const;

  // Returns a status with the same code (and overload mark) whose message is
  // "<context>: <message>"; ok stays ok.
  Status WithContext(std::string_view context) const;

  // Statuses are equal when code, message and overload mark are.
  friend bool operator==(const Status& a, const Status& b) noexcept {
    return a.code() == b.code() && a.message() == b.message() &&
           a.overloaded_mark() == b.overloaded_mark();
  }

 private:
  friend bool IsOverload(const Status& status) noexcept;

  struct State {
    StatusCode code;
    std::string message;
    bool overloaded = false;  // Made by Overloaded().
  };
  bool overloaded_mark() const noexcept { return state_ != nullptr && state_->overloaded; }

  std::shared_ptr<const State> state_;  // nullptr means ok.
};

// Whether `status` says the callee is overloaded (more concurrent requests than it can serve
// now) rather than that the request was wrong or the data is bad: DEADLINE_EXCEEDED,
// UNAVAILABLE, and the RESOURCE_EXHAUSTED of Status::Overloaded (a limiter's full wait queue or
// lack of a free permit, a store's full write queue or reader table). A blob over its maximum, a
// map at its maximum size or a full disk is RESOURCE_EXHAUSTED too, but not overload. A limiter
// should count an overloaded access as dropped (AsyncBlobStore does); a server answers 503.
bool IsOverload(const Status& status) noexcept;

std::ostream& operator<<(std::ostream& os, const Status& status);

}  // namespace blobtune

#endif  // BLOBTUNE_BASE_STATUS_H_
