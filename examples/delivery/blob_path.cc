// The blob path of a delivery run: see delivery_run.h.
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/http/verb.hpp>
#include <random>
#include <span>
#include <sstream>
#include <vector>

#include "blobtune/tuner/async_acquire.h"
#include "delivery_run.h"
#include "mail_client.h"
#include "local_work.h"
#include "message.h"

namespace blobtune::delivery {
namespace {

namespace asio = boost::asio;
using boost::beast::http::verb;
using tuner::Permit;

// Everything one run shares; lives on the run's event-loop thread.
class BlobRun {
 public:
  BlobRun(const DeliveryOptions& options, uint16_t port, store::BlobStore& store,
          tuner::Limiter& limiter)
      : options_(options),
        store_(store),
        limiter_(limiter),
        http_(io_.get_executor(), "127.0.0.1", port),
        rng_(options.seed),
        reader_rng_(options.seed + 1),
        delivery_partition_(limiter.FindPartition("delivery").value_or(tuner::PartitionId{})),
        reader_partition_(limiter.FindPartition("reader").value_or(tuner::PartitionId{})) {}

  RunResult Run() {
    start_ = std::chrono::steady_clock::now();
    asio::co_spawn(io_, Deliver(), asio::detached);
    asio::co_spawn(io_, Trace(), asio::detached);
    if (options_.reader_rate > 0) asio::co_spawn(io_, Read(), asio::detached);
    io_.run();
    pool_.join();
    // To the final sync, not to the last reader's or tracer's wake-up after it.
    result_.seconds = std::chrono::duration<double>(end_ - start_).count();
    result_.retries = http_.retries();
    result_.final_limit = limiter_.limit();
    return result_;
  }

 private:
  void Fail(Status status) {
    if (result_.status.ok()) result_.status = std::move(status);
  }

  // The client's own work in one limited step, which the real local work (store, crypto) is part
  // of: a step's local part lasts max(real work, this draw).
  std::chrono::nanoseconds ClientWork() {
    // Lognormal with the configured mean and cv 0.5: sigma^2 = ln(1 + cv^2).
    const double sigma = std::sqrt(std::log(1.25));
    double mean = static_cast<double>(std::chrono::nanoseconds(options_.client_work_mean).count()) *
                  options_.time_scale;
    std::lognormal_distribution<double> work(std::log(mean) - sigma * sigma / 2, sigma);
    return std::chrono::nanoseconds(static_cast<int64_t>(work(rng_)));
  }

  asio::awaitable<StatusOr<Permit>> Acquire(tuner::PartitionId partition) {
    co_return co_await tuner::AsyncAcquire(limiter_, partition, io_.get_executor(),
                                           std::chrono::nanoseconds(options_.permit_timeout),
                                           asio::use_awaitable);
  }
  asio::awaitable<StatusOr<Permit>> Acquire() { return Acquire(delivery_partition_); }

  // The person reading mail: opens at reader_rate per second (scaled, as all the run's times),
  // each of a random message delivered so far, until the delivery is over.
  asio::awaitable<void> Read() {
    std::exponential_distribution<double> gap_s(options_.reader_rate / options_.time_scale);
    while (!done_) {
      co_await SleepUntil(std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::duration<double>(gap_s(reader_rng_))));
      if (done_ || delivered_ids_.empty()) continue;
      std::string id = delivered_ids_[std::uniform_int_distribution<size_t>(
          0, delivered_ids_.size() - 1)(reader_rng_)];
      asio::co_spawn(io_, ReadOne(std::move(id)), asio::detached);
    }
  }

  // One open: a permit (in the reader's partition, if any), then the payload from the store.
  asio::awaitable<void> ReadOne(std::string id) {
    const auto started = std::chrono::steady_clock::now();
    StatusOr<Permit> permit = co_await Acquire(reader_partition_);
    if (!permit.ok()) {
      Fail(permit.status().WithContext("reader"));
      co_return;
    }
    size_t bytes = 0;
    Status s = co_await OnPool(pool_, [&] {
      StatusOr<std::vector<std::byte>> payload = store_.Get(kPayload, id);
      if (payload.ok()) bytes = payload->size();
      return payload.status();
    });
    Report(*permit, s, bytes);
    if (!s.ok()) {
      Fail(s.WithContext("reader"));
      co_return;
    }
    result_.read_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count());
  }

  // Samples the limiter every few milliseconds until the delivery is over, for --plot. The
  // throughput is averaged over the last kTraceSmoothing intervals.
  asio::awaitable<void> Trace() {
    constexpr size_t kTraceSmoothing = 10;
    const auto interval = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::milliseconds(50) * options_.time_scale);
    std::vector<std::pair<std::chrono::steady_clock::time_point, uint64_t>> history = {
        {start_, 0}};
    while (!done_) {
      co_await SleepUntil(std::chrono::steady_clock::now() + interval);
      auto now = std::chrono::steady_clock::now();
      const auto& [then, finished_then] =
          history[history.size() > kTraceSmoothing ? history.size() - kTraceSmoothing : 0];
      double dt = std::chrono::duration<double>(now - then).count();
      result_.trace.push_back(
          {std::chrono::duration<double>(now - start_).count(), limiter_.limit(),
           limiter_.inflight(), dt > 0 ? static_cast<double>(finished_ - finished_then) / dt : 0});
      history.emplace_back(now, finished_);
    }
  }

  asio::awaitable<void> Deliver() {
    std::string target = "/incoming";
    StatusOr<HttpResponse> listing = co_await http_.Request(verb::get, target);
    if (!listing.ok() || listing->result_int() != 200) {
      Fail(listing.ok() ? Status::Internal("listing answered " +
                                           std::to_string(listing->result_int()))
                        : listing.status());
      done_ = true;
      end_ = std::chrono::steady_clock::now();
      co_return;
    }
    std::vector<std::string> ids;
    std::istringstream lines(listing->body());
    for (std::string id; std::getline(lines, id);) ids.push_back(id);
    remaining_ = ids.size();
    // All messages start at once, as in the original client; the limiter decides how many
    // accesses run.
    for (std::string& id : ids) asio::co_spawn(io_, DeliverOne(std::move(id)), asio::detached);
    if (ids.empty()) co_await FinalSync();
  }

  asio::awaitable<void> DeliverOne(std::string id) {
    Status s = co_await DeliverSteps(id);
    if (s.ok()) {
      ++result_.delivered;
      delivered_ids_.push_back(std::move(id));
    } else {
      Fail(s.WithContext(id));
    }
    if (--remaining_ == 0) co_await FinalSync();
  }

  // Ends `permit` by how `status` says the access went: a failure of an overloaded resource (an
  // unavailable server, a deadline, a full store queue) is a drop; others, a full disk among
  // them, tell nothing about load.
  void Report(Permit& permit, const Status& status, size_t bytes) {
    ++finished_;
    if (status.ok()) {
      permit.Success(bytes);
    } else if (IsOverload(status)) {
      permit.Dropped();
    }
  }

  static Status Expect(const StatusOr<HttpResponse>& response, std::initializer_list<unsigned> ok,
                       const std::string& what) {
    if (!response.ok()) return response.status();
    for (unsigned code : ok) {
      if (response->result_int() == code) return Status();
    }
    return Status::Internal(std::string(what) + " answered " +
                            std::to_string(response->result_int()) + ": " +
                            response->body().substr(0, 200));
  }

  asio::awaitable<Status> DeliverSteps(const std::string& id) {
    std::string body;
    {  // get: download the incoming blob, store it locally, read it back.
      StatusOr<Permit> permit = co_await Acquire();
      if (!permit.ok()) co_return permit.status();
      StatusOr<HttpResponse> got = co_await http_.Request(verb::get, "/incoming/" + id);
      Status s = Expect(got, {200}, "GET /incoming/" + id);
      auto work_until = std::chrono::steady_clock::now() + ClientWork();
      if (s.ok()) {
        body = std::move(got->body());
        s = co_await OnPool(pool_, [&] {
          Status put = store_.Put(kIncoming, id, Bytes(body));
          if (!put.ok()) return put;
          StatusOr<std::vector<std::byte>> back = store_.Get(kIncoming, id);
          return back.status();
        });
      }
      if (s.ok()) co_await SleepUntil(work_until);
      Report(*permit, s, body.size());
      if (!s.ok()) co_return s;
    }
    {  // put: store the payload, read it back, encrypt, upload.
      StatusOr<Permit> permit = co_await Acquire();
      if (!permit.ok()) co_return permit.status();
      std::string sealed;
      auto work_until = std::chrono::steady_clock::now() + ClientWork();
      Status s = co_await OnPool(pool_, [&] {
        Status put = store_.Put(kPayload, id, Bytes(body));
        if (!put.ok()) return put;
        StatusOr<std::vector<std::byte>> back = store_.Get(kPayload, id);
        if (!back.ok()) return back.status();
        return EncryptPayload(id, std::string_view(reinterpret_cast<const char*>(back->data()),
                                                   back->size()),
                              &sealed);
      });
      if (s.ok()) {
        // (co_await is kept out of the Expect() call: GCC 12 miscompiles a string literal
        // argument in the same full-expression as a co_await.)
        StatusOr<HttpResponse> put = co_await http_.Request(verb::put, "/outgoing/" + id, sealed);
        s = Expect(put, {201}, "PUT /outgoing/" + id);
      }
      if (s.ok()) co_await SleepUntil(work_until);
      Report(*permit, s, sealed.size());
      if (!s.ok()) co_return s;
    }
    // The small metadata documents, outside the limiter as in the original client.
    Status docs = co_await OnPool(pool_, [&] {
      size_t index = std::stoul(id.substr(id.find('-') + 1));
      std::vector<std::string> documents = MetadataDocuments(index);
      for (size_t i = 0; i < documents.size(); ++i) {
        Status put = store_.Put(kDocuments, id + "/" + std::to_string(i), Bytes(documents[i]));
        if (!put.ok()) return put;
      }
      return Status();
    });
    if (!docs.ok()) co_return docs;
    {  // delete: upstream, then locally.
      StatusOr<Permit> permit = co_await Acquire();
      if (!permit.ok()) co_return permit.status();
      // A 404 means an earlier attempt deleted it and its answer was lost to a fault.
      StatusOr<HttpResponse> deleted = co_await http_.Request(verb::delete_, "/incoming/" + id);
      Status s = Expect(deleted, {204, 404}, "DELETE /incoming/" + id);
      auto work_until = std::chrono::steady_clock::now() + ClientWork();
      if (s.ok()) s = co_await OnPool(pool_, [&] { return store_.Erase(kIncoming, id); });
      if (s.ok()) co_await SleepUntil(work_until);
      Report(*permit, s, 0);
      if (!s.ok()) co_return s;
    }
    co_return Status();
  }

  asio::awaitable<void> FinalSync() {
    // One batched upload of the 3 metadata documents of every message.
    std::string batch;
    for (size_t i = 0; i < options_.messages; ++i) {
      for (const std::string& doc : MetadataDocuments(i)) batch += doc;
    }
    StatusOr<HttpResponse> synced = co_await http_.Request(verb::post, "/sync", std::move(batch));
    Status s = Expect(synced, {200}, "POST /sync");
    if (!s.ok()) Fail(s);
    done_ = true;
    end_ = std::chrono::steady_clock::now();
  }

  const DeliveryOptions& options_;
  store::BlobStore& store_;
  tuner::Limiter& limiter_;
  asio::io_context io_;
  asio::thread_pool pool_{2};
  MailClient http_;
  std::mt19937_64 rng_;
  std::mt19937_64 reader_rng_;  // Apart, so that a reader does not change the delivery's draws.
  const tuner::PartitionId delivery_partition_;
  const tuner::PartitionId reader_partition_;
  std::vector<std::string> delivered_ids_;
  size_t remaining_ = 0;
  uint64_t finished_ = 0;  // Permits reported, for the trace.
  bool done_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point end_;  // When the final sync was done.
  RunResult result_;
};

}  // namespace

RunResult RunBlobPath(const DeliveryOptions& options, uint16_t server_port,
                      store::BlobStore& store, tuner::Limiter& limiter) {
  BlobRun run(options, server_port, store, limiter);
  return run.Run();
}

}  // namespace blobtune::delivery
