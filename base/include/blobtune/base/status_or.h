// StatusOr<T>: either a value of type T or a non-ok Status saying why there is none.
//
//   blobtune::StatusOr<std::string> blob = store.Get("incoming", id);
//   if (!blob.ok()) return blob.status();
//   Use(*blob);
//
// Accessing the value of a StatusOr that holds an error is a programming error: it asserts in
// debug builds and terminates in release builds rather than returning garbage.
//
// Thread-safety: like T; a const StatusOr may be read from several threads.
#ifndef BLOBTUNE_BASE_STATUS_OR_H_
#define BLOBTUNE_BASE_STATUS_OR_H_

#include <cstdlib>
#include <type_traits>
#include <utility>
#include <variant>

#include "blobtune/base/status.h"

namespace blobtune {

template <typename T>
class [[nodiscard]] StatusOr {
  static_assert(!std::is_same_v<std::remove_cvref_t<T>, Status>, "StatusOr<Status> is meaningless");

 public:
  // REQUIRES: !status.ok(). An ok status without a value becomes an internal error.
  StatusOr(Status status)  // NOLINT(google-explicit-constructor): `return status;` reads well.
      : storage_(status.ok() ? Status::Internal("StatusOr constructed from an ok Status")
                             : std::move(status)) {}
  StatusOr(const T& value) : storage_(std::in_place_index<1>, value) {}  // NOLINT
  StatusOr(T&& value) : storage_(std::in_place_index<1>, std::move(value)) {}  // NOLINT
  template <typename... Args>
  explicit StatusOr(std::in_place_t, Args&&... args)
      : storage_(std::in_place_index<1>, std::forward<Args>(args)...) {}

  StatusOr(const StatusOr&) = default;
  StatusOr& operator=(const StatusOr&) = default;
  StatusOr(StatusOr&&) noexcept(std::is_nothrow_move_constructible_v<T>) = default;
  StatusOr& operator=(StatusOr&&) noexcept(std::is_nothrow_move_assignable_v<T>) = default;
  ~StatusOr() = default;

  bool ok() const noexcept { return storage_.index() == 1; }

  // The error, or an ok Status when a value is held.
  Status status() const { return ok() ? Status() : std::get<0>(storage_); }

  const T& value() const& { CheckHasValue(); return std::get<1>(storage_); }
  T& value() & { CheckHasValue(); return std::get<1>(storage_); }
  T&& value() && { CheckHasValue(); return std::get<1>(std::move(storage_)); }

  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  template <typename U>
  T value_or(U&& fallback) const& {
    return ok() ? std::get<1>(storage_) : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  void CheckHasValue() const {
    if (!ok()) std::abort();  // Reading the value of an error is a bug in the caller.
  }

  std::variant<Status, T> storage_;
};

}  // namespace blobtune

#endif  // BLOBTUNE_BASE_STATUS_OR_H_
