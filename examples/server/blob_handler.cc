#include "blob_handler.h"

#include <algorithm>
#include <optional>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <string>
#include <type_traits>

#include "blobtune/tuner/async_acquire.h"

namespace blobtune::server {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;

std::string BlobName(const Route& route) { return route.ns + "/" + route.id; }

// Runs `fn` on `executor` (a read-pool thread: its LMDB read transaction opens and closes there,
// never across a co_await) and resumes the awaiting coroutine with the result on its own
// executor. Completion signature: void(std::invoke_result_t<Fn&>).
template <typename Fn>
auto RunOn(const asio::any_io_executor& executor, Fn fn) {
  using Result = std::invoke_result_t<Fn&>;
  return asio::async_initiate<const asio::use_awaitable_t<>&, void(Result)>(
      [executor](auto handler, Fn work) {
        asio::post(executor, [handler = std::move(handler), work = std::move(work)]() mutable {
          Result result = work();
          auto home = asio::get_associated_executor(handler);
          asio::post(home, [handler = std::move(handler), result = std::move(result)]() mutable {
            std::move(handler)(std::move(result));
          });
        });
      },
      asio::use_awaitable, std::move(fn));
}

// Waits for a permit of `limiter` until `deadline`, runs `read` (a store read returning a
// StatusOr) on `reads`, and reports the outcome on the permit: a failed read is ignored (a
// missing blob says nothing about the load). The failure to get a permit is returned as is.
template <typename Read>
asio::awaitable<std::invoke_result_t<Read&>> ReadUnderPermit(tuner::Limiter& limiter,
                                                             tuner::PartitionId partition,
                                                             asio::any_io_executor reads,
                                                             Read read, TimePoint deadline) {
  auto io = co_await asio::this_coro::executor;
  StatusOr<tuner::Permit> permit =
      co_await tuner::AsyncAcquire(limiter, partition, io, deadline, std::stop_token(),
                                   asio::use_awaitable);
  if (!permit.ok()) co_return permit.status();
  std::invoke_result_t<Read&> result = co_await RunOn(reads, std::move(read));
  if (result.ok()) {
    permit->Success();
  } else {
    permit->Ignore();
  }
  co_return result;
}

// The answer a request's preconditions call for instead of the usual one (304, 412), or
// nothing when the request goes on. `etag`: the blob's, nullopt when there is no blob.
std::optional<Response> PreconditionAnswer(const Preconditions& conditions, bool safe_method,
                                           const std::optional<std::string>& etag,
                                           bool keep_alive) {
  switch (EvaluatePreconditions(conditions, safe_method, etag)) {
    case PreconditionOutcome::kProceed:
      return std::nullopt;
    case PreconditionOutcome::kNotModified: {
      Response response = BlobResponse(http::status::not_modified, {}, keep_alive);
      response.set(http::field::etag, *etag);
      return response;
    }
    case PreconditionOutcome::kFailed:
      break;
  }
  return TextResponse(http::status::precondition_failed,
                      "precondition failed: the blob's ETag is " +
                          (etag ? *etag : std::string("none (there is no such blob)")),
                      keep_alive);
}

// The link to the listing's next page: the same query, continuing after `last`. Prefixes and
// ids are made of unreserved characters (request_target.h), so they need no escaping.
std::string NextPageLink(const Route& route, const std::string& last) {
  std::string target = "/blobs/" + route.ns + "?";
  if (!route.prefix.empty()) target += "prefix=" + route.prefix + "&";
  target += "limit=" + std::to_string(route.limit) + "&after=" + last;
  return "<" + target + ">; rel=\"next\"";
}

}  // namespace

BlobHandler::BlobHandler(store::AsyncBlobStore& blobs, const metrics::MetricsRegistry& registry,
                         const metrics::StatusPage& status_page, asio::any_io_executor reads,
                         const ServerOptions& options, const std::atomic<bool>* draining)
    : blobs_(blobs),
      registry_(registry),
      status_page_(status_page),
      reads_(std::move(reads)),
      options_(options),
      draining_(draining),
      write_shedder_(blobs.write_limiter(), "writes", options.wait_deadline),
      read_shedder_(blobs.read_limiter(), "reads", options.wait_deadline) {}

bool BlobHandler::KnowsNamespace(std::string_view ns) const {
  return std::find(options_.namespaces.begin(), options_.namespaces.end(), ns) !=
         options_.namespaces.end();
}

StatusOr<tuner::PartitionId> BlobHandler::PartitionOf(std::string_view named,
                                                      std::string_view ns) const {
  const tuner::Limiter* limiter =
      blobs_.write_limiter() != nullptr ? blobs_.write_limiter() : blobs_.read_limiter();
  if (named.empty()) {
    for (const auto& [partition_ns, partition] : options_.namespace_partitions) {
      if (partition_ns == ns && limiter != nullptr) {
        if (auto found = limiter->FindPartition(partition)) return *found;
      }
    }
    return tuner::PartitionId{};
  }
  if (limiter != nullptr) {
    if (auto found = limiter->FindPartition(named)) return *found;
  }
  std::string names;
  for (const tuner::PartitionOptions& p : options_.partitions) {
    names += (names.empty() ? "" : ", ") + p.name;
  }
  return Status::InvalidArgument("unknown partition " + QuoteForMessage(named) + " (header " +
                                 std::string(kPartitionHeader) + "); this server has " +
                                 (names.empty() ? std::string("none") : names));
}

asio::awaitable<StatusOr<tuner::Permit>> BlobHandler::AcquireWritePermit(
    TimePoint deadline, tuner::PartitionId partition) {
  tuner::Limiter* writes = blobs_.write_limiter();
  if (writes == nullptr) co_return tuner::Permit();
  const TimePoint started = Clock::Steady().Now();
  if (Status shed = write_shedder_.Admit(started, partition); !shed.ok()) co_return shed;
  auto io = co_await asio::this_coro::executor;
  StatusOr<tuner::Permit> permit = co_await tuner::AsyncAcquire(
      *writes, partition, io, deadline, std::stop_token(), asio::use_awaitable);
  write_shedder_.Observe(permit.status(), started, Clock::Steady().Now(), deadline, partition);
  co_return permit;
}

asio::awaitable<Response> BlobHandler::Put(Route route, Preconditions conditions,
                                           tuner::Permit permit, std::vector<std::byte> body,
                                           bool keep_alive) {
  const size_t size = body.size();
  // What a GET of the stored blob will answer as its ETag, so that a client can go on with
  // If-Match without asking first.
  const std::string etag = ETagOf(store::BlobChecksum(body));
  // GCC 12: no string temporaries in the full-expression of a co_await (they get destroyed
  // twice); the arguments are named first.
  std::string key = BlobName(route);
  BlobLocks::Held lock = co_await locks_.Lock(std::move(key));
  std::optional<Response> refused = co_await CheckWrite(route, conditions, keep_alive);
  if (refused) co_return *std::move(refused);  // The permit goes back unreported: ignored.
  // The store access starts now; the wait for the body (and the blob's lock) is not the
  // store's latency.
  permit.RestartTiming();
  std::string ns = route.ns;
  std::string id = route.id;
  StatusOr<store::PutOutcome> put =
      co_await blobs_.AsyncPutWithOutcome(std::move(permit), std::move(ns), std::move(id),
                                          std::move(body), asio::use_awaitable);
  if (!put.ok()) co_return ErrorResponse(put.status(), options_.retry_after_seconds, keep_alive);
  // 201 when the blob is new, 200 when it replaced one (RFC 9110, 9.3.4).
  const bool created = *put == store::PutOutcome::kCreated;
  Response response = TextResponse(created ? http::status::created : http::status::ok,
                                   (created ? "stored " : "replaced ") + BlobName(route) + " (" +
                                       std::to_string(size) + " bytes)",
                                   keep_alive);
  response.set(http::field::etag, etag);
  co_return response;
}

asio::awaitable<std::optional<Response>> BlobHandler::CheckWrite(const Route& route,
                                                                 const Preconditions& conditions,
                                                                 bool keep_alive) {
  if (!conditions.any()) co_return std::nullopt;
  // The blob's header, read as part of the write it conditions (no read permit of its own).
  store::BlobStore& store = blobs_.store();
  StatusOr<store::BlobInfo> current =
      co_await RunOn(reads_, [&store, &route] { return store.Stat(route.ns, route.id); });
  if (!current.ok() && current.status().code() != StatusCode::kNotFound) {
    co_return ErrorResponse(current.status(), options_.retry_after_seconds, keep_alive);
  }
  std::optional<std::string> etag;
  if (current.ok()) etag = ETagOf(current->crc32c);
  co_return PreconditionAnswer(conditions, /*safe_method=*/false, etag, keep_alive);
}

asio::awaitable<Response> BlobHandler::Handle(Route route, Preconditions conditions,
                                              TimePoint deadline, bool keep_alive) {
  const int retry = options_.retry_after_seconds;
  LoadShedder* shedder = nullptr;  // For the routes that wait for a store permit.
  if (route.kind == RouteKind::kDeleteBlob) shedder = &write_shedder_;
  if (route.kind == RouteKind::kGetBlob || route.kind == RouteKind::kHeadBlob ||
      route.kind == RouteKind::kList) {
    shedder = &read_shedder_;
  }
  const TimePoint started = Clock::Steady().Now();
  const tuner::PartitionId partition = route.partition;
  if (shedder != nullptr) {
    if (Status shed = shedder->Admit(started, partition); !shed.ok()) {
      co_return ErrorResponse(shed, retry, keep_alive);
    }
  }
  Response response = co_await Answer(std::move(route), std::move(conditions), deadline, keep_alive);
  // A 503 from a store access that began with a permit wait is that wait's timeout; any other
  // answer came after a permit (its time counts as the wait's, an upper bound).
  if (shedder != nullptr) {
    shedder->Observe(response.result() == http::status::service_unavailable
                         ? Status::DeadlineExceeded("no permit in time")
                         : Status::Ok(),
                     started, Clock::Steady().Now(), deadline, partition);
  }
  co_return response;
}

asio::awaitable<Response> BlobHandler::Answer(Route route, Preconditions conditions,
                                              TimePoint deadline, bool keep_alive) {
  const int retry = options_.retry_after_seconds;
  switch (route.kind) {
    case RouteKind::kHealth:
      if (draining_->load(std::memory_order_relaxed)) {
        co_return UnavailableResponse("draining: the server is shutting down", retry, keep_alive);
      }
      co_return TextResponse(http::status::ok, "ok", keep_alive);
    case RouteKind::kMetrics:
      co_return TextResponse(http::status::ok, registry_.TextExposition(), keep_alive,
                             "text/plain; version=0.0.4; charset=utf-8");
    case RouteKind::kStatus: {
      Response page = TextResponse(http::status::ok, status_page_.Html(), keep_alive,
                                   "text/html; charset=utf-8");
      page.set("Content-Security-Policy",
               std::string(metrics::kStatusPageContentSecurityPolicy));
      page.set(http::field::cache_control, "no-store");
      co_return page;
    }
    // `route` and `conditions` live in this frame until the call is done.
    case RouteKind::kGetBlob: {
      Response response = co_await Get(route, conditions, deadline, keep_alive);
      co_return response;
    }
    case RouteKind::kDeleteBlob: {
      Response response = co_await Delete(route, conditions, deadline, keep_alive);
      co_return response;
    }
    case RouteKind::kHeadBlob: {
      Response response = co_await Head(route, conditions, deadline, keep_alive);
      co_return response;
    }
    case RouteKind::kList: {
      Response response = co_await List(route, deadline, keep_alive);
      co_return response;
    }
    case RouteKind::kPutBlob:  // Put() stores blobs.
    case RouteKind::kMethodNotAllowed:
      break;
  }
  co_return TextResponse(http::status::internal_server_error, "unroutable request", keep_alive);
}

asio::awaitable<Response> BlobHandler::Get(const Route& route, const Preconditions& conditions,
                                           TimePoint deadline, bool keep_alive) {
  // See Put(): the arguments are named first.
  std::string ns = route.ns;
  std::string id = route.id;
  StatusOr<store::Blob> got = co_await blobs_.AsyncGetBlob(
      route.partition, std::move(ns), std::move(id), deadline, asio::use_awaitable);
  if (!got.ok()) {
    if (got.status().code() == StatusCode::kNotFound) {
      if (auto answer = PreconditionAnswer(conditions, true, std::nullopt, keep_alive)) {
        co_return *std::move(answer);
      }
    }
    co_return ErrorResponse(got.status(), options_.retry_after_seconds, keep_alive);
  }
  if (auto answer = PreconditionAnswer(conditions, true, ETagOf(got->info.crc32c), keep_alive)) {
    co_return *std::move(answer);
  }
  Response response = BlobResponse(http::status::ok, std::move(got->bytes), keep_alive);
  SetBlobHeaders(response, got->info);
  co_return response;
}

asio::awaitable<Response> BlobHandler::Head(const Route& route, const Preconditions& conditions,
                                            TimePoint deadline, bool keep_alive) {
  store::BlobStore& store = blobs_.store();
  // GCC 12 destroys a temporary in a co_await's full-expression twice: the lambda captures only
  // references (trivially destructible), and `route` outlives the await.
  StatusOr<store::BlobInfo> info = co_await ReadUnderPermit(
      *blobs_.read_limiter(), route.partition, reads_,
      [&store, &route] { return store.Stat(route.ns, route.id); },
      deadline);
  if (!info.ok()) {
    if (info.status().code() == StatusCode::kNotFound) {
      if (auto answer = PreconditionAnswer(conditions, true, std::nullopt, keep_alive)) {
        co_return *std::move(answer);
      }
    }
    co_return ErrorResponse(info.status(), options_.retry_after_seconds, keep_alive);
  }
  if (auto answer = PreconditionAnswer(conditions, true, ETagOf(info->crc32c), keep_alive)) {
    co_return *std::move(answer);
  }
  Response response = BlobResponse(http::status::ok, {}, keep_alive);
  response.content_length(info->size_bytes);  // What a GET would send; a HEAD sends no body.
  SetBlobHeaders(response, *info);
  co_return response;
}

asio::awaitable<Response> BlobHandler::Delete(const Route& route,
                                              const Preconditions& conditions,
                                              TimePoint deadline, bool keep_alive) {
  std::string key = BlobName(route);
  BlobLocks::Held lock = co_await locks_.Lock(std::move(key));
  std::optional<Response> refused = co_await CheckWrite(route, conditions, keep_alive);
  if (refused) co_return *std::move(refused);
  std::string ns = route.ns;
  std::string id = route.id;
  Status erased =
      co_await blobs_.AsyncErase(route.partition, std::move(ns), std::move(id), deadline,
                                 asio::use_awaitable);
  if (!erased.ok()) co_return ErrorResponse(erased, options_.retry_after_seconds, keep_alive);
  co_return BlobResponse(http::status::no_content, {}, keep_alive);
}

asio::awaitable<Response> BlobHandler::List(const Route& route, TimePoint deadline, bool keep_alive) {
  store::BlobStore& store = blobs_.store();
  // One entry more than the page holds tells whether the listing goes on.
  StatusOr<std::vector<store::ListEntry>> entries = co_await ReadUnderPermit(
      *blobs_.read_limiter(), route.partition, reads_,
      [&store, &route] {
        return store.List(route.ns, route.prefix, route.limit + 1, route.after);
      },
      deadline);
  if (!entries.ok()) {
    co_return ErrorResponse(entries.status(), options_.retry_after_seconds, keep_alive);
  }
  const bool truncated = entries->size() > route.limit;
  if (truncated) entries->resize(route.limit);
  // One line per blob: id, a tab, its size in bytes.
  std::string text;
  for (const store::ListEntry& entry : *entries) {
    text += entry.id + "\t" + std::to_string(entry.info.size_bytes) + "\n";
  }
  if (!text.empty()) text.pop_back();  // TextResponse adds the last newline.
  Response response = TextResponse(http::status::ok, text, keep_alive);
  // A cut listing says so, and where it goes on (RFC 8288).
  if (truncated) response.set(http::field::link, NextPageLink(route, entries->back().id));
  co_return response;
}

}  // namespace blobtune::server
