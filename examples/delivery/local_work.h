// Helpers for a delivery run's simulated costs and the client's local work: scaling a modelled
// cost, waiting until a simulated cost is paid, running blocking store and crypto calls on a
// thread pool from a coroutine, and AES-256-GCM.
//
// Thread-safety: the coroutine helpers must be awaited from an event loop (the run's, or the
// mail server's); the rest are pure functions.
#ifndef BLOBTUNE_EXAMPLES_DELIVERY_LOCAL_WORK_H_
#define BLOBTUNE_EXAMPLES_DELIVERY_LOCAL_WORK_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "blobtune/base/status.h"

namespace blobtune::delivery {

// Runs `fn` (returning Status) on `pool` and resumes the caller on its own executor, so that
// blocking LMDB calls never stall the event loop.
template <typename Fn>
boost::asio::awaitable<Status> OnPool(boost::asio::thread_pool& pool, Fn fn) {
  co_return co_await boost::asio::co_spawn(
      pool, [fn = std::move(fn)]() mutable -> boost::asio::awaitable<Status> { co_return fn(); },
      boost::asio::use_awaitable);
}

// The bytes of a string, as the store takes them.
inline std::span<const std::byte> Bytes(std::string_view s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

// `cost` multiplied by `factor` (a time scale, times a share where a cost is split).
inline std::chrono::nanoseconds Scaled(std::chrono::nanoseconds cost, double factor) {
  return std::chrono::nanoseconds(
      static_cast<int64_t>(static_cast<double>(cost.count()) * factor));
}

// Simulated work: returns at `until` (at once if that has passed).
inline boost::asio::awaitable<void> SleepUntil(std::chrono::steady_clock::time_point until) {
  if (until <= std::chrono::steady_clock::now()) co_return;
  boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, until);
  boost::system::error_code ignored;
  co_await timer.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ignored));
}

// AES-256-GCM of `plaintext` with a key and nonce derived from `id`: ciphertext then the 16-byte
// tag in `out`. INTERNAL if OpenSSL fails.
Status EncryptPayload(std::string_view id, std::string_view plaintext, std::string* out);

}  // namespace blobtune::delivery

#endif  // BLOBTUNE_EXAMPLES_DELIVERY_LOCAL_WORK_H_
