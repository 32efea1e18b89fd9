#include "load_generator.h"

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cmath>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string_view>

#include "common/http_connection.h"

namespace blobtune::load {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using examples::HttpClientOptions;
using examples::HttpConnection;
using examples::HttpResponse;
using SteadyTime = std::chrono::steady_clock::time_point;

LatencySummary Summarize(std::vector<double> ms) {
  LatencySummary s;
  s.count = ms.size();
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) {
    size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(ms.size())));
    return ms[std::clamp<size_t>(rank, 1, ms.size()) - 1];
  };
  s.p50_ms = at(0.50);
  s.p90_ms = at(0.90);
  s.p99_ms = at(0.99);
  s.max_ms = ms.back();
  return s;
}

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// A request of the load: in its partition, if it names one.
examples::HttpRequest LoadRequest(const LoadOptions& options, http::verb verb, std::string target,
                                  std::string body) {
  examples::HttpRequest request = examples::MakeRequest(verb, std::move(target), std::move(body));
  if (!options.partition.empty()) request.set("Blobtune-Partition", options.partition);
  return request;
}

asio::awaitable<void> SleepUntil(SteadyTime when) {
  asio::steady_timer timer(co_await asio::this_coro::executor, when);
  boost::system::error_code ignored;
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
}

// One load's state: its coroutines, counters and latencies. Thread-safety: every Runner of a run
// lives on that run's one io_context thread.
class Runner {
 public:
  Runner(asio::io_context& io, const LoadOptions& options, asio::ip::tcp::endpoint server)
      : io_(io), options_(options), server_(server), rng_(options.seed) {}

  // Spawns the load's coroutines; its warm-up and measured window count from `start`.
  void Start(SteadyTime start) {
    start_ = start;
    measure_from_ = start_ + ToDuration(options_.warmup_seconds);
    end_ = measure_from_ + ToDuration(options_.seconds);
    if (options_.mode == LoadMode::kClosed) {
      for (int i = 0; i < options_.connections; ++i) {
        asio::co_spawn(io_, ClosedWorker(), asio::detached);
      }
    } else {
      asio::co_spawn(io_, OpenTicker(), asio::detached);
    }
  }

  // The figures, once the io_context has run out of work.
  LoadResult Finish() {
    result_.measured_seconds = options_.seconds;
    result_.ok = Summarize(std::move(ok_ms_));
    result_.unavailable = Summarize(std::move(unavailable_ms_));
    result_.send_lag = Summarize(std::move(lag_ms_));
    result_.ok_per_second = static_cast<double>(result_.ok.count) / options_.seconds;
    for (const auto& connection : idle_) result_.connections_opened += connection->connects();
    result_.connections_opened += closed_connects_;
    return std::move(result_);
  }

 private:
  static std::chrono::steady_clock::duration ToDuration(double seconds) {
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(seconds));
  }

  bool Measured(SteadyTime t) const { return t >= measure_from_ && t < end_; }

  HttpClientOptions ClientOptions() const {
    return {.timeout = options_.timeout,
            .upload_time = std::chrono::round<std::chrono::microseconds>(options_.upload_time),
            .expect_continue_bytes = options_.expect_continue_bytes};
  }

  asio::awaitable<void> OneRequest(HttpConnection& connection, SteadyTime scheduled) {
    const bool put = result_.acknowledged.empty() ||
                     std::bernoulli_distribution(options_.put_fraction)(rng_);
    uint64_t n = 0;
    if (put) {
      n = next_id_++;
    } else {
      n = result_.acknowledged[std::uniform_int_distribution<size_t>(
          0, result_.acknowledged.size() - 1)(rng_)];
    }
    std::string target = "/blobs/" + options_.ns + "/" + LoadBlobId(options_, n);
    std::string body = put ? LoadBlobBody(options_, n) : std::string();
    const http::verb verb = put ? http::verb::put : http::verb::get;
    const SteadyTime sent = std::chrono::steady_clock::now();
    // Named, not a temporary beside the co_await (see Probe).
    examples::HttpRequest request = LoadRequest(options_, verb, std::move(target), std::move(body));
    StatusOr<HttpResponse> reply = co_await connection.Send(std::move(request));
    const SteadyTime done = std::chrono::steady_clock::now();
    // 201: stored a new blob; 200: replaced one (a store that already held this id).
    const unsigned status = reply.ok() ? reply->result_int() : 0;
    if (put && (status == 201 || status == 200)) {
      result_.acknowledged.push_back(n);
    }
    if (!Measured(scheduled)) co_return;
    lag_ms_.push_back(std::chrono::duration<double, std::milli>(sent - scheduled).count());
    if (!reply.ok()) {
      ++result_.transport_errors;
      co_return;
    }
    if (++result_.by_status[status] == 1) {
      const auto type = reply->base()[http::field::content_type];
      result_.first_answer[status] =
          AnswerText(std::string_view(type.data(), type.size()), reply->body());
    }
    const double ms = std::chrono::duration<double, std::milli>(done - scheduled).count();
    if (status >= 200 && status < 300) ok_ms_.push_back(ms);
    if (status == 503) unavailable_ms_.push_back(ms);
  }

  asio::awaitable<void> ClosedWorker() {
    HttpConnection connection(io_.get_executor(), server_, ClientOptions());
    for (SteadyTime now = std::chrono::steady_clock::now(); now < end_;
         now = std::chrono::steady_clock::now()) {
      co_await OneRequest(connection, now);
    }
    closed_connects_ += connection.connects();
  }

  asio::awaitable<void> OpenTicker() {
    std::exponential_distribution<double> gap(options_.rate);
    SteadyTime next = start_;
    for (;;) {
      next += ToDuration(gap(rng_));
      if (next >= end_) co_return;
      co_await SleepUntil(next);
      std::unique_ptr<HttpConnection> connection;
      if (!idle_.empty()) {
        connection = std::move(idle_.back());
        idle_.pop_back();
      } else if (opened_ < options_.max_connections) {
        connection = std::make_unique<HttpConnection>(io_.get_executor(), server_,
                                                      ClientOptions());
        ++opened_;
      } else {
        if (Measured(next)) ++result_.unsent;
        continue;
      }
      asio::co_spawn(io_, Dispatch(std::move(connection), next), asio::detached);
    }
  }

  asio::awaitable<void> Dispatch(std::unique_ptr<HttpConnection> connection, SteadyTime scheduled) {
    co_await OneRequest(*connection, scheduled);
    idle_.push_back(std::move(connection));
  }

  asio::io_context& io_;
  const LoadOptions& options_;
  const asio::ip::tcp::endpoint server_;
  std::mt19937_64 rng_;
  SteadyTime start_, measure_from_, end_;
  uint64_t next_id_ = 0;
  std::deque<std::unique_ptr<HttpConnection>> idle_;
  int opened_ = 0;
  int closed_connects_ = 0;
  std::vector<double> ok_ms_, unavailable_ms_, lag_ms_;
  LoadResult result_;
};

asio::awaitable<void> Probe(asio::ip::tcp::endpoint server, std::chrono::milliseconds timeout,
                            Status* status) {
  // No temporaries beside a co_await: GCC 12 destroys some of them twice (a braced options
  // struct here crashed, as a string literal argument did elsewhere).
  const asio::any_io_executor executor = co_await asio::this_coro::executor;
  HttpConnection connection(executor, server, HttpClientOptions{.timeout = timeout});
  std::string target = "/healthz";
  StatusOr<HttpResponse> reply = co_await connection.Send(http::verb::get, std::move(target));
  if (!reply.ok()) *status = reply.status();
}

asio::awaitable<void> VerifyWorker(const LoadOptions& options, asio::ip::tcp::endpoint server,
                                   const std::vector<uint64_t>& ids, size_t* next,
                                   VerifyResult* result) {
  const asio::any_io_executor executor = co_await asio::this_coro::executor;  // See Probe.
  HttpConnection connection(executor, server, HttpClientOptions{.timeout = options.timeout});
  while (*next < ids.size()) {
    const uint64_t n = ids[(*next)++];
    StatusOr<HttpResponse> reply = Status::Unavailable("not sent");
    // The server may still be shedding load: retry 503s and transport errors for a while.
    for (int attempt = 0; attempt < 50; ++attempt) {
      examples::HttpRequest request = LoadRequest(
          options, http::verb::get, "/blobs/" + options.ns + "/" + LoadBlobId(options, n), "");
      reply = co_await connection.Send(std::move(request));
      if (reply.ok() && reply->result_int() != 503) break;
      co_await SleepUntil(std::chrono::steady_clock::now() + std::chrono::milliseconds(20));
    }
    ++result->checked;
    const unsigned status = reply.ok() ? reply->result_int() : 0;
    if (status != 200 && status != 404) {
      ++result->unreadable;
    } else if (status == 404) {
      ++result->missing;
    } else if (reply->body() != LoadBlobBody(options, n)) {
      ++result->corrupt;
    } else {
      ++result->intact;
    }
  }
}

StatusOr<asio::ip::tcp::endpoint> Endpoint(const LoadOptions& options) {
  boost::system::error_code ec;
  asio::ip::address address = asio::ip::make_address(options.host, ec);
  if (ec) return Status::InvalidArgument("bad host address '" + options.host + "'");
  return asio::ip::tcp::endpoint(address, options.port);
}

}  // namespace

Status LoadOptions::Validate() const {
  struct Bounded {
    std::string_view field;
    double value;
    Range range;
    bool sizes = false;  // Bytes, stated as sizes (64M).
  };
  const Bounded bounded[] = {
      {"port", static_cast<double>(port), kPortRange},
      {"connections", static_cast<double>(connections), kConnectionsRange},
      {"rate", rate, kRateRange},
      {"max_connections", static_cast<double>(max_connections), kMaxConnectionsRange},
      {"seconds", seconds, kSecondsRange},
      {"warmup_seconds", warmup_seconds, kWarmupSecondsRange},
      {"put_fraction", put_fraction, kPutFractionRange},
      {"size", static_cast<double>(size), kSizeRange, /*sizes=*/true},
      {"timeout", static_cast<double>(timeout.count()), kTimeoutRange},
      {"upload_time", upload_time.count(), kUploadTimeRange},
  };
  for (const Bounded& b : bounded) {
    // A NaN is in no range.
    if (!b.range.Contains(b.value)) {
      return Status::InvalidArgument(std::string(b.field) + " must be " + b.range.Rule(b.sizes));
    }
  }
  return Status::Ok();
}

std::string LoadBlobId(const LoadOptions& options, uint64_t n) {
  return options.id_prefix + "-" + std::to_string(n);
}

std::string AnswerText(std::string_view content_type, std::string_view body) {
  if (!body.empty() && !content_type.starts_with("text/")) {
    return "(" + std::to_string(body.size()) + " bytes, " +
           (content_type.empty() ? std::string("no Content-Type") : std::string(content_type)) +
           ")";
  }
  const std::string_view line = body.substr(0, body.find('\n'));
  std::string text;
  for (size_t i = 0; i < line.size() && i < kAnswerTextBytes; ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    text += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
  }
  if (line.size() > kAnswerTextBytes) text += "...";
  return text.empty() ? "(no body)" : text;
}

std::string LoadBlobBody(const LoadOptions& options, uint64_t n) {
  // Different for every id and every offset, and cheap to make: the client makes one per PUT at
  // thousands per second, so making them must cost less than sending them (a word-by-word hash
  // cost the client more than the server spent storing). Word i of body n is word (start + i)
  // of a fixed random pool, XORed with a mix of n and of how often the pool has wrapped: a
  // copy-and-XOR that the compiler vectorizes.
  constexpr size_t kPoolWords = size_t{1} << 17;  // 1 MiB.
  static const std::vector<uint64_t> pool = [] {
    std::vector<uint64_t> words(kPoolWords);
    for (size_t i = 0; i < words.size(); ++i) words[i] = SplitMix64(0x5EED0000ULL + i);
    return words;
  }();
  const uint64_t salt = SplitMix64(n + 1);
  const size_t word_count = (options.size + 7) / 8;
  std::vector<uint64_t> words(word_count);
  size_t at = static_cast<size_t>(salt % kPoolWords);
  for (size_t i = 0, lap = 0; i < word_count; ++lap) {
    const size_t run = std::min(word_count - i, kPoolWords - at);
    const uint64_t key = salt ^ SplitMix64(lap);
    const uint64_t* from = pool.data() + at;
    uint64_t* to = words.data() + i;
    for (size_t k = 0; k < run; ++k) to[k] = from[k] ^ key;
    i += run;
    at = 0;
  }
  return std::string(reinterpret_cast<const char*>(words.data()), options.size);
}

StatusOr<std::vector<LoadResult>> RunLoads(const std::vector<LoadOptions>& loads) {
  if (loads.empty()) return Status::InvalidArgument("no load to run");
  StatusOr<asio::ip::tcp::endpoint> server = Endpoint(loads.front());
  if (!server.ok()) return server.status();
  for (size_t i = 0; i < loads.size(); ++i) {
    const std::string which = "load " + std::to_string(i + 1);
    if (Status valid = loads[i].Validate(); !valid.ok()) return valid.WithContext(which);
    StatusOr<asio::ip::tcp::endpoint> its_server = Endpoint(loads[i]);
    if (!its_server.ok()) return its_server.status().WithContext(which);
    if (*its_server != *server) {
      return Status::InvalidArgument(which + " names another server than load 1");
    }
  }
  asio::io_context io(1);
  Status reachable;
  asio::co_spawn(io, Probe(*server, loads.front().timeout, &reachable), asio::detached);
  io.run();
  if (!reachable.ok()) return reachable;
  io.restart();
  std::vector<std::unique_ptr<Runner>> runners;
  for (const LoadOptions& options : loads) {
    runners.push_back(std::make_unique<Runner>(io, options, *server));
  }
  const SteadyTime start = std::chrono::steady_clock::now();
  for (const std::unique_ptr<Runner>& runner : runners) runner->Start(start);
  io.run();
  std::vector<LoadResult> results;
  for (const std::unique_ptr<Runner>& runner : runners) results.push_back(runner->Finish());
  return results;
}

StatusOr<LoadResult> RunLoad(const LoadOptions& options) {
  StatusOr<std::vector<LoadResult>> results = RunLoads({options});
  if (!results.ok()) return results.status();
  return std::move(results->front());
}

VerifyResult VerifyPuts(const LoadOptions& options, const std::vector<uint64_t>& acknowledged) {
  VerifyResult result;
  StatusOr<asio::ip::tcp::endpoint> server = Endpoint(options);
  if (!server.ok()) {
    result.checked = result.unreadable = acknowledged.size();
    return result;
  }
  asio::io_context io(1);
  size_t next = 0;
  for (int i = 0; i < 16; ++i) {
    asio::co_spawn(io, VerifyWorker(options, *server, acknowledged, &next, &result),
                   asio::detached);
  }
  io.run();
  return result;
}

}  // namespace blobtune::load
