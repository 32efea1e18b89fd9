#include "mail_server.h"

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cmath>
#include <future>
#include <limits>
#include <optional>
#include <random>
#include <string_view>
#include <thread>

#include "common/discard_body.h"
#include "common/listen.h"
#include "common/receive_buffer.h"
#include "local_work.h"
#include "message.h"

namespace blobtune::delivery {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;
using RequestParser = http::request_parser<http::string_body>;

// Largest body of a request that carries no data (GET, DELETE).
constexpr size_t kNoDataBodyLimit = 64 * 1024;
// How long a connection may be idle between requests, and how long a body may take to arrive.
constexpr std::chrono::seconds kReadTimeout{60};

// The value of `key` in a query string such as "offset=10&count=50", or `fallback`.
size_t QueryNumber(std::string_view query, std::string_view key, size_t fallback) {
  size_t pos = 0;
  while (pos < query.size()) {
    size_t end = query.find('&', pos);
    std::string_view pair = query.substr(pos, end == std::string_view::npos ? end : end - pos);
    if (pair.size() > key.size() && pair.substr(0, key.size()) == key && pair[key.size()] == '=') {
      return std::strtoull(std::string(pair.substr(key.size() + 1)).c_str(), nullptr, 10);
    }
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return fallback;
}

Response MakeResponse(unsigned version, bool keep_alive, http::status status, std::string body) {
  Response response{status, version};
  response.set(http::field::server, "blobtune-mail-server");
  response.set(http::field::content_type, "application/octet-stream");
  response.keep_alive(keep_alive);
  response.body() = std::move(body);
  response.prepare_payload();
  return response;
}

Response MakeResponse(const Request& request, http::status status, std::string body) {
  return MakeResponse(request.version(), request.keep_alive(), status, std::move(body));
}

// What reading a request's body came to.
struct BodyOutcome {
  bool connection_lost = false;     // Closed, timed out or malformed: end the connection.
  std::optional<Response> refusal;  // The body was over its limit: send this instead.
};

}  // namespace

class MailServer::Impl {
 public:
  explicit Impl(const MailServerOptions& options)
      : options_(options), acceptor_(io_), rng_(options.seed) {}

  Status Listen() {
    StatusOr<uint16_t> port = examples::Listen(acceptor_, options_.address, options_.port);
    if (!port.ok()) return port.status();
    port_ = *port;
    FillMailbox();
    asio::co_spawn(io_, Accept(), asio::detached);
    thread_ = std::thread([this] { io_.run(); });
    return Status();
  }

  ~Impl() {
    io_.stop();
    if (thread_.joinable()) thread_.join();
  }

  uint16_t port() const noexcept { return port_; }

  // Runs `fn` on the event-loop thread and waits for it.
  template <typename Fn>
  auto OnLoop(Fn fn) {
    std::packaged_task<decltype(fn())()> task(std::move(fn));
    auto result = task.get_future();
    asio::post(io_, [&task] { task(); });
    return result.get();
  }

  void FillMailbox() {
    incoming_.clear();
    for (size_t i = 0; i < options_.messages; ++i) {
      incoming_[MessageId(i)] = MessageBody(options_.seed, i, options_.message_size);
    }
    report_ = MailServerReport();
    outgoing_bytes_ = 0;
  }

  MailServerReport TakeReport() {
    MailServerReport report = report_;
    report.remaining = incoming_.size();
    return report;
  }

 private:
  std::chrono::nanoseconds Scaled(std::chrono::nanoseconds cost) const {
    return delivery::Scaled(cost, options_.time_scale);
  }

  // The token lookup: one server thread, FIFO, exponential service time. Everything runs on one
  // event-loop thread, so the queue is just the time the "thread" becomes free; this returns
  // when the lookup of a request arriving now will be done.
  std::chrono::steady_clock::time_point AuthLookupDone() {
    std::exponential_distribution<double> service(1.0);
    auto cost = std::chrono::nanoseconds(static_cast<int64_t>(
        service(rng_) * static_cast<double>(Scaled(options_.auth_mean).count())));
    auth_free_at_ = std::max(auth_free_at_, std::chrono::steady_clock::now()) + cost;
    return auth_free_at_;
  }

  asio::awaitable<void> Accept() {
    for (;;) {
      boost::system::error_code ec;
      tcp::socket socket = co_await acceptor_.async_accept(asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return;
      asio::co_spawn(io_, Serve(std::move(socket)), asio::detached);
    }
  }

  // The body limit of the endpoint `request` names, and the option that sets it.
  std::pair<size_t, const char*> BodyLimit(const http::request_header<>& request) const {
    std::string_view target(request.target().data(), request.target().size());
    if (request.method() == http::verb::put && target.starts_with("/outgoing/")) {
      return {options_.max_upload_bytes, "max_upload_bytes"};
    }
    if (request.method() == http::verb::post &&
        (target == "/sync" || target == "/legacy/upload")) {
      return {options_.max_sync_bytes, "max_sync_bytes"};
    }
    return {kNoDataBodyLimit, "limit for requests without data"};
  }

  // Reads the body of the request whose header `parser` holds. A body over its endpoint's limit
  // is refused: with a Content-Length it is read and dropped first, so that the client, which
  // sends its whole request before it reads, gets the answer and the connection goes on.
  asio::awaitable<BodyOutcome> ReadBody(beast::tcp_stream& stream, beast::flat_buffer& buffer,
                                        RequestParser& parser) {
    const http::request_header<>& head = parser.get();
    const auto [limit, limit_name] = BodyLimit(head);
    auto refusal = [&, limit = limit, limit_name = limit_name](const std::string& size) {
      std::string message = std::string(head.method_string()) + " " +
                            std::string(head.target()) + ": body of " + size +
                            " is over the mail server's " + limit_name + " of " +
                            std::to_string(limit) + " bytes";
      return MakeResponse(head.version(), parser.keep_alive(), http::status::payload_too_large,
                          std::move(message));
    };
    if (boost::optional<uint64_t> length = parser.content_length(); length && *length > limit) {
      if (!co_await examples::DiscardBody(stream, buffer, *length, kReadTimeout)) {
        co_return BodyOutcome{.connection_lost = true};
      }
      co_return BodyOutcome{.refusal = refusal(std::to_string(*length) + " bytes")};
    }
    parser.body_limit(limit);
    examples::ReserveReceiveRoom(buffer);
    boost::system::error_code ec;
    stream.expires_after(kReadTimeout);
    co_await http::async_read(stream, buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
    if (ec == http::error::body_limit) {  // No length given: found out while reading.
      Response response = refusal("unknown length");
      response.keep_alive(false);  // The rest of the body is still on its way.
      co_return BodyOutcome{.refusal = std::move(response)};
    }
    co_return BodyOutcome{.connection_lost = static_cast<bool>(ec)};
  }

  asio::awaitable<void> Serve(tcp::socket socket) {
    beast::tcp_stream stream(std::move(socket));
    beast::flat_buffer buffer;
    for (;;) {
      RequestParser parser;
      parser.body_limit(std::numeric_limits<uint64_t>::max());  // ReadBody checks the size.
      boost::system::error_code ec;
      stream.expires_after(kReadTimeout);
      co_await http::async_read_header(stream, buffer, parser,
                                       asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return;  // Closed by the client, timed out, or malformed: end the connection.
      BodyOutcome body = co_await ReadBody(stream, buffer, parser);
      if (body.connection_lost) co_return;
      ++report_.requests;
      if (body.refusal) {  // Refused before the lookup: it costs only the round trip.
        ++report_.too_large;
        co_await SleepUntil(std::chrono::steady_clock::now() + Scaled(options_.network_rtt));
        co_await http::async_write(stream, *body.refusal,
                                   asio::redirect_error(asio::use_awaitable, ec));
        if (ec || !body.refusal->keep_alive()) co_return;
        continue;
      }
      Request request = parser.release();

      enum class Fault { kNone, kError, kReset, kStall } fault = Fault::kNone;
      if (options_.fault_rate > 0 &&
          std::uniform_real_distribution<double>(0, 1)(rng_) < options_.fault_rate) {
        fault = static_cast<Fault>(1 + rng_() % 3);
        ++report_.faults;
      }
      if (fault == Fault::kReset) co_return;  // Drops the connection without an answer.

      // One timer per request: the answer leaves when the lookup is done, the request's own
      // cost is paid and the network round trip has passed.
      auto lookup_done = AuthLookupDone();
      std::chrono::nanoseconds extra{};
      Response response = fault == Fault::kError
                              ? MakeResponse(request, http::status::service_unavailable,
                                             "injected fault: try again")
                              : Handle(request, &extra);
      if (fault == Fault::kStall) extra += Scaled(options_.auth_mean) * 20;
      size_t bytes = request.body().size() + response.body().size();
      if (options_.bandwidth_bytes_per_s > 0) {
        extra += Scaled(std::chrono::nanoseconds(static_cast<int64_t>(
            1e9 * static_cast<double>(bytes) / options_.bandwidth_bytes_per_s)));
      }
      co_await SleepUntil(lookup_done + extra + Scaled(options_.network_rtt));
      co_await http::async_write(stream, response, asio::redirect_error(asio::use_awaitable, ec));
      if (ec || !response.keep_alive()) co_return;
    }
  }

  // Serves one request; `extra` receives the request's cost beyond the lookup and the network.
  Response Handle(const Request& request, std::chrono::nanoseconds* extra) {
    std::string_view target(request.target().data(), request.target().size());
    std::string_view query;
    if (size_t q = target.find('?'); q != std::string_view::npos) {
      query = target.substr(q + 1);
      target = target.substr(0, q);
    }
    constexpr std::string_view kIncoming = "/incoming/";
    constexpr std::string_view kOutgoing = "/outgoing/";
    const http::verb verb = request.method();

    if (verb == http::verb::get && target == "/incoming") {
      std::string list;
      for (const auto& [id, body] : incoming_) list += id + "\n";
      *extra = Scaled(options_.list_cost);
      return MakeResponse(request, http::status::ok, std::move(list));
    }
    if (target.starts_with(kIncoming)) {
      std::string id(target.substr(kIncoming.size()));
      auto it = incoming_.find(id);
      if (verb == http::verb::get) {
        if (it == incoming_.end()) return MakeResponse(request, http::status::not_found, "no message " + id);
        return MakeResponse(request, http::status::ok, it->second);
      }
      if (verb == http::verb::delete_) {
        if (it == incoming_.end()) return MakeResponse(request, http::status::not_found, "no message " + id);
        incoming_.erase(it);
        ++report_.applied_deletes[id];
        return MakeResponse(request, http::status::no_content, "");
      }
    }
    if (verb == http::verb::put && target.starts_with(kOutgoing)) {
      const size_t size = request.body().size();
      if (options_.max_outgoing_bytes > 0 && size > options_.max_outgoing_bytes - outgoing_bytes_) {
        ++report_.storage_full;
        return MakeResponse(request, http::status::insufficient_storage,
                            "outgoing storage is full: " + std::to_string(outgoing_bytes_) +
                                " of max_outgoing_bytes " +
                                std::to_string(options_.max_outgoing_bytes) +
                                " bytes in use, no room for " + std::to_string(size));
      }
      outgoing_bytes_ += size;
      ++report_.uploads;
      return MakeResponse(request, http::status::created, "");
    }
    if (verb == http::verb::post && target == "/sync") {
      ++report_.syncs;
      *extra = Scaled(options_.sync_cost);
      return MakeResponse(request, http::status::ok, "");
    }
    if (verb == http::verb::get && target == "/legacy/documents") {
      size_t offset = QueryNumber(query, "offset", 0);
      size_t count = QueryNumber(query, "count", 0);
      std::string documents;
      for (size_t i = offset; i < offset + count && i < options_.messages; ++i) {
        documents += MessageBody(options_.seed, i, options_.message_size);
      }
      return MakeResponse(request, http::status::ok, std::move(documents));
    }
    if (verb == http::verb::post && target == "/legacy/upload") {
      // The batched sync acknowledges every downloaded message: the server drops them.
      for (const auto& [id, body] : incoming_) ++report_.applied_deletes[id];
      incoming_.clear();
      return MakeResponse(request, http::status::ok, "");
    }
    return MakeResponse(request, http::status::not_found,
                        "no such endpoint: " + std::string(request.method_string()) + " " +
                            std::string(target));
  }

  MailServerOptions options_;
  asio::io_context io_;
  tcp::acceptor acceptor_;
  std::thread thread_;
  uint16_t port_ = 0;
  // Event-loop thread only.
  std::map<std::string, std::string> incoming_;
  MailServerReport report_;
  size_t outgoing_bytes_ = 0;  // Uploads kept since the last reset.
  std::chrono::steady_clock::time_point auth_free_at_{};
  std::mt19937_64 rng_;
};

StatusOr<std::unique_ptr<MailServer>> MailServer::Start(const MailServerOptions& options) {
  if (!(options.time_scale > 0) || !std::isfinite(options.time_scale)) {
    return Status::InvalidArgument("time_scale must be a positive number");
  }
  if (options.fault_rate < 0 || options.fault_rate >= 1) {
    return Status::InvalidArgument("fault_rate must be in [0, 1)");
  }
  if (options.max_upload_bytes == 0 || options.max_sync_bytes == 0) {
    return Status::InvalidArgument("max_upload_bytes and max_sync_bytes must be at least 1");
  }
  auto impl = std::make_unique<Impl>(options);
  Status listening = impl->Listen();
  if (!listening.ok()) return listening;
  return std::unique_ptr<MailServer>(new MailServer(std::move(impl)));
}

MailServer::MailServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MailServer::~MailServer() = default;

uint16_t MailServer::port() const noexcept { return impl_->port(); }

void MailServer::Reset() {
  impl_->OnLoop([this] { impl_->FillMailbox(); });
}

MailServerReport MailServer::Report() {
  return impl_->OnLoop([this] { return impl_->TakeReport(); });
}

}  // namespace blobtune::delivery
