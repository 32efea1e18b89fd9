#include "connection.h"

#include <boost/asio/buffer.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/read_size.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "blobtune/base/clock.h"
#include "framing.h"
#include "common/discard_body.h"
#include "common/read_deadline.h"
#include "common/receive_buffer.h"

namespace blobtune::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

using metrics::ConnectionEnd;
using metrics::HttpTimeout;

// A connection's buffer above this size is given back between requests (see ServeConnection).
constexpr size_t kSmallReceiveBytes = 4 * 1024;

void Close(beast::tcp_stream& stream) {
  error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  stream.close();
}

// Closes after an answer that leaves request bytes unread (a refused body, a refused
// connection): closing with unread data would reset the connection and could destroy the answer
// before the client reads it, so our side shuts down first and the rest is read and dropped, for
// at most a second and 1 MiB, until the client closes too.
asio::awaitable<void> LingeringClose(beast::tcp_stream& stream) {
  error_code ec;
  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  std::array<char, 16 * 1024> sink;
  stream.expires_after(std::chrono::seconds(1));
  for (size_t drained = 0; !ec && drained < (size_t{1} << 20);) {
    drained += co_await stream.async_read_some(asio::buffer(sink),
                                               asio::redirect_error(asio::use_awaitable, ec));
  }
  stream.close();
}

// How a connection whose read or write failed with `ec` ended, when no deadline passed: the
// client closed or reset it, a shutdown cancelled it, or something else broke.
ConnectionEnd EndOfFailedIo(const error_code& ec, const ConnectionHub& hub) {
  if (ec == asio::error::eof || ec == asio::error::connection_reset ||
      ec == asio::error::broken_pipe || ec == http::error::end_of_stream ||
      ec == http::error::partial_message) {
    return ConnectionEnd::kClientClosed;
  }
  if (hub.draining()) return ConnectionEnd::kShutdown;  // Cancelled, or cut off after grace.
  return ConnectionEnd::kError;
}

// How a request ends its connection, when it does: set where the decision to close is made.
struct CloseReason {
  std::optional<ConnectionEnd> end;
};

// The answer to a request whose body could not be read: 408 when it did not arrive in time, 400
// when it was malformed (a bad chunk), nothing when the client went away.
std::optional<Response> AnswerToBadBody(const error_code& ec, bool timed_out,
                                        const ConnectionHub& hub, CloseReason& reason) {
  if (timed_out) {
    reason.end = ConnectionEnd::kBodyTimeout;
    return TextResponse(http::status::request_timeout,
                        "request body not complete within " +
                            std::to_string(hub.options().body_timeout.count()) + " ms",
                        /*keep_alive=*/false);
  }
  if (ec.category() != http::make_error_code(http::error::end_of_stream).category() ||
      ec == http::error::end_of_stream || ec == http::error::partial_message) {
    reason.end = EndOfFailedIo(ec, hub);
    return std::nullopt;
  }
  reason.end = ConnectionEnd::kFramingError;
  return TextResponse(http::status::bad_request, "malformed request body: " + ec.message(),
                      /*keep_alive=*/false);
}

// Reads the rest of a request's header into `header` (framing.h's one way): the bytes received
// so far are checked for line endings before each parse, so that a header of bare LFs is refused
// at once instead of waiting for the CRLF CRLF that never comes. Receives are as Beast's own
// async_read_header makes them (512 bytes upwards, within the buffer's room): a large one would
// take the start of a PUT's body along. The error, or none with `refusal` set or the header done.
asio::awaitable<error_code> ReadHeader(beast::tcp_stream& stream, beast::flat_buffer& buffer,
                                       HeaderParser& header,
                                       std::optional<FramingRefusal>& refusal) {
  error_code ec;
  while (true) {
    const std::string_view received(static_cast<const char*>(buffer.data().data()),
                                    buffer.size());
    refusal = CheckHeaderLines(received);
    if (refusal) co_return ec;
    if (buffer.size() > 0) {
      buffer.consume(header.put(buffer.data(), ec));
      if (ec != http::error::need_more) co_return ec;  // The header is done, or refused.
      ec = {};
    }
    const size_t n = co_await stream.async_read_some(
        buffer.prepare(beast::read_size(buffer, 64 * 1024)),
        asio::redirect_error(asio::use_awaitable, ec));
    buffer.commit(n);
    if (ec) co_return ec;
  }
}

// Waits until the next request has begun to arrive (its first bytes may be in `buffer`
// already), so that its duration can count from there.
asio::awaitable<error_code> AwaitFirstByte(beast::tcp_stream& stream, beast::flat_buffer& buffer) {
  error_code ec;
  if (buffer.size() > 0) co_return ec;
  // A small receive: a large one would take the start of a PUT's body along (see below).
  const size_t n = co_await stream.async_read_some(buffer.prepare(kSmallReceiveBytes),
                                                   asio::redirect_error(asio::use_awaitable, ec));
  buffer.commit(n);
  co_return ec;
}

asio::awaitable<error_code> Write(beast::tcp_stream& stream, Response& response,
                                  std::chrono::milliseconds timeout) {
  error_code ec;
  stream.expires_after(timeout);
  co_await http::async_write(stream, response, asio::redirect_error(asio::use_awaitable, ec));
  co_return ec;
}

std::string NamespaceList(const ServerOptions& options) {
  std::string out;
  for (const std::string& ns : options.namespaces) out += (out.empty() ? "" : ", ") + ns;
  return out;
}

// What answering needs from a request's header, copied out before a body parser takes the
// header over.
struct RequestHead {
  explicit RequestHead(const HeaderParser& header)
      : method(header.get().method()),
        method_text(header.get().method_string()),
        target(header.get().target()),
        client_keep_alive(header.get().keep_alive()),
        expects_continue(beast::iequals(header.get()[http::field::expect], "100-continue")) {
    if (const auto declared = header.content_length()) length = *declared;
    has_body = header.chunked() || length.value_or(0) > 0;
    conditions.if_match = std::string(header.get()[http::field::if_match]);
    conditions.if_none_match = std::string(header.get()[http::field::if_none_match]);
    partition = std::string(
        header.get()[boost::beast::string_view(kPartitionHeader.data(), kPartitionHeader.size())]);
  }
  // A body we do not read would be taken for the next request: answer it and close.
  bool keep_alive_unread() const { return client_keep_alive && !has_body; }

  http::verb method;
  std::string method_text;  // As sent: Beast knows no name for an unknown method.
  std::string target;
  bool client_keep_alive;
  bool expects_continue;
  std::optional<uint64_t> length;  // Content-Length, if declared.
  bool has_body = false;
  Preconditions conditions;  // If-Match, If-None-Match.
  std::string partition;     // Blobtune-Partition, "" when absent.
};

// A routed PUT: its write permit first (waited for until `deadline`), then its body, then the
// store. A blob the store cannot take in time is refused before it is received: a client that
// sent "Expect: 100-continue" never sends it, and one already on its way is dropped. Nothing
// when the connection has to end without an answer.
asio::awaitable<std::optional<Response>> ReceiveAndPut(beast::tcp_stream& stream,
                                                       beast::flat_buffer& buffer,
                                                       HeaderParser& header, const RequestHead& head,
                                                       Route route, TimePoint deadline,
                                                       ConnectionHub& hub, CloseReason& reason) {
  const ServerOptions& options = hub.options();
  const std::string too_large = "blob is over the maximum of " +
                                std::to_string(options.max_blob_size_bytes) + " bytes";
  if (head.length && *head.length > options.max_blob_size_bytes) {
    // Refused from the header alone: the body is never read.
    co_return TextResponse(http::status::payload_too_large,
                           too_large + " (Content-Length " + std::to_string(*head.length) + ")",
                           /*keep_alive=*/false);
  }
  stream.expires_never();  // The wait deadline bounds the wait.
  StatusOr<tuner::Permit> permit =
      co_await hub.handler().AcquireWritePermit(deadline, route.partition);
  if (!permit.ok()) {
    // A body of known length that is on its way anyway is dropped and the connection goes on;
    // one that may never come (the client waits for 100 Continue) or has no length ends it.
    const int retry = options.retry_after_seconds;
    if (head.length && head.has_body && head.client_keep_alive && !head.expects_continue) {
      if (!co_await examples::DiscardBody(stream, buffer, *head.length, options.body_timeout)) {
        reason.end = ConnectionEnd::kClientClosed;
        co_return std::nullopt;
      }
      co_return ErrorResponse(permit.status(), retry, /*keep_alive=*/true);
    }
    co_return ErrorResponse(permit.status(), retry, head.keep_alive_unread());
  }

  std::vector<std::byte> body;
  if (head.has_body) {
    if (head.expects_continue) {
      http::response<http::empty_body> go_on{http::status::continue_, 11};
      error_code ec;
      stream.expires_after(options.write_timeout);
      co_await http::async_write(stream, go_on, asio::redirect_error(asio::use_awaitable, ec));
      if (ec) {
        const bool timed_out = ec == beast::error::timeout;
        if (timed_out) hub.http().RecordTimeout(HttpTimeout::kWrite);
        reason.end = timed_out ? ConnectionEnd::kWriteTimeout : EndOfFailedIo(ec, hub);
        co_return std::nullopt;
      }
    }
    BodyParser parser(std::move(header));
    ConfigureBodyParser(parser, options.max_blob_size_bytes);
    examples::ReserveReceiveRoom(buffer);
    error_code ec;
    bool timed_out = false;
    {
      stream.expires_never();  // The deadline bounds the body and leaves the socket to answer on.
      const examples::ReadDeadline body_deadline(stream.socket(), options.body_timeout);
      co_await http::async_read(stream, buffer, parser,
                                asio::redirect_error(asio::use_awaitable, ec));
      timed_out = body_deadline.expired();
    }
    if (timed_out) hub.http().RecordTimeout(HttpTimeout::kBody);
    if (ec == http::error::body_limit) {  // Chunked: found out while reading.
      co_return TextResponse(http::status::payload_too_large, too_large, /*keep_alive=*/false);
    }
    if (ec) co_return AnswerToBadBody(ec, timed_out, hub, reason);
    body = std::move(parser.get().body());
  }
  stream.expires_never();  // The store bounds the commit.
  Response response = co_await hub.handler().Put(std::move(route), head.conditions,
                                                 *std::move(permit), std::move(body),
                                                 head.client_keep_alive);
  co_return response;
}

// Answers the request whose header `header` holds, reading a PUT's body if it is admitted.
// Nothing when the connection has to end without an answer.
asio::awaitable<std::optional<Response>> ReadAndAnswer(beast::tcp_stream& stream,
                                                       beast::flat_buffer& buffer,
                                                       HeaderParser& header, ConnectionHub& hub,
                                                       CloseReason& reason) {
  const ServerOptions& options = hub.options();
  const int retry = options.retry_after_seconds;
  const RequestHead head(header);
  const bool keep_alive = head.keep_alive_unread();

  if (head.method == http::verb::unknown) {
    // A method Beast has no name for is one no route of this server takes (RFC 9110 15.6.2).
    co_return TextResponse(http::status::not_implemented,
                           "method " + QuoteForMessage(head.method_text) +
                               " is not implemented; this server implements GET, HEAD, PUT "
                               "and DELETE",
                           keep_alive);
  }
  StatusOr<Route> route = ParseRoute(head.method, head.target);
  if (!route.ok()) co_return ErrorResponse(route.status(), retry, keep_alive);
  if (route->kind == RouteKind::kMethodNotAllowed) {
    Response response = TextResponse(http::status::method_not_allowed,
                                     "method " + QuoteForMessage(head.method_text) +
                                         " is not allowed here; allowed: " + route->allow,
                                     keep_alive);
    response.set(http::field::allow, route->allow);
    co_return response;
  }
  if (!route->ns.empty() && !hub.handler().KnowsNamespace(route->ns)) {
    co_return TextResponse(http::status::not_found,
                           "unknown namespace " + QuoteForMessage(route->ns) +
                               "; this server has: " + NamespaceList(options),
                           keep_alive);
  }
  StatusOr<tuner::PartitionId> partition = hub.handler().PartitionOf(head.partition, route->ns);
  if (!partition.ok()) co_return ErrorResponse(partition.status(), retry, keep_alive);
  route->partition = *partition;
  // A store access waits at its limiter's gate (request_gate.h) until it may be handled.
  RequestGate* gate = hub.GateOf(route->kind);
  if (gate != nullptr) co_await gate->Enter();
  struct Pass {
    RequestGate* gate;
    ~Pass() {
      if (gate != nullptr) gate->Leave();
    }
  } pass{gate};
  // The wait budget starts past the gate: time queued behind other work on this thread counts
  // against it, so an overloaded server answers 503 on time.
  const TimePoint deadline = Clock::Steady().Now() + options.wait_deadline;
  if (route->kind == RouteKind::kPutBlob) {
    std::optional<Response> response = co_await ReceiveAndPut(
        stream, buffer, header, head, *std::move(route), deadline, hub, reason);
    co_return response;
  }
  stream.expires_never();  // The wait deadline and the store bound the handler.
  Response response =
      co_await hub.handler().Handle(*std::move(route), head.conditions, deadline, keep_alive);
  co_return response;
}

}  // namespace

RequestGate* ConnectionHub::GateOf(RouteKind kind) noexcept {
  switch (kind) {
    case RouteKind::kGetBlob:
    case RouteKind::kHeadBlob:
    case RouteKind::kList:
      return &reads_gate_;
    case RouteKind::kPutBlob:
    case RouteKind::kDeleteBlob:
      return &writes_gate_;
    default:
      return nullptr;  // Metrics, the status page and health are no store accesses.
  }
}

void ConnectionHub::Remove(Handle handle) {
  live_.erase(handle);
  if (live_.empty() && on_empty_) std::exchange(on_empty_, nullptr)();
}

void ConnectionHub::StartDraining(std::function<void()> on_empty) {
  draining_->store(true, std::memory_order_relaxed);
  // The parked requests are answered (and their connections closed) now.
  reads_gate_.Open();
  writes_gate_.Open();
  on_empty_ = std::move(on_empty);
  for (Entry& entry : live_) {
    if (entry.idle) entry.stream->cancel();  // Its header read ends with operation_aborted.
  }
  if (live_.empty() && on_empty_) std::exchange(on_empty_, nullptr)();
}

void ConnectionHub::CloseAll() {
  for (Entry& entry : live_) entry.stream->cancel();
  for (Entry& entry : live_) {
    error_code ignored;
    entry.stream->socket().close(ignored);
  }
}

asio::awaitable<void> ServeConnection(tcp::socket socket, ConnectionHub& hub) {
  beast::tcp_stream stream(std::move(socket));
  const ConnectionHub::Handle self = hub.Add(&stream);
  // Every connection is counted once, by how it ended (set on every way out of the loop).
  struct Leave {
    ConnectionHub& hub;
    ConnectionHub::Handle self;
    ConnectionEnd end = ConnectionEnd::kShutdown;  // The loop ends by itself only when draining.
    ~Leave() {
      hub.http().RecordConnectionEnd(end);
      hub.Remove(self);
    }
  } leave{hub, self};
  const ServerOptions& options = hub.options();

  beast::flat_buffer buffer;
  while (!hub.draining()) {
    HeaderParser header;
    ConfigureHeaderParser(header);
    self->idle = true;
    // The header is read in receives of 512 bytes upwards, not into the 64 KiB of room an
    // admitted body left: a large receive would take the start of a PUT's body along, copied
    // for nothing if the PUT is refused (a refused body is dropped uncopied, DiscardBody).
    if (buffer.size() == 0 && buffer.capacity() > kSmallReceiveBytes) buffer.shrink_to_fit();
    error_code ec;
    std::optional<FramingRefusal> refusal;
    TimePoint first_byte;
    bool begun = false;
    bool timed_out = false;
    {
      // Idle past header_timeout, the connection closes; a request begun and not whole by then
      // is answered 408 (a slowloris client that trickles header bytes is cut off).
      stream.expires_never();
      const examples::ReadDeadline header_deadline(stream.socket(), options.header_timeout);
      ec = co_await AwaitFirstByte(stream, buffer);
      first_byte = Clock::Steady().Now();
      begun = !ec;
      if (!ec) ec = co_await ReadHeader(stream, buffer, header, refusal);
      timed_out = header_deadline.expired();
    }
    self->idle = false;
    CloseReason reason;
    std::optional<Response> response;
    std::string method = "other";  // Until a header says.
    if (timed_out) {
      hub.http().RecordTimeout(begun ? HttpTimeout::kHeader : HttpTimeout::kIdle);
      if (!begun) {
        leave.end = ConnectionEnd::kIdleTimeout;  // No request had begun: nobody to answer.
        break;
      }
      reason.end = ConnectionEnd::kHeaderTimeout;
      response = TextResponse(http::status::request_timeout,
                              "request header not complete within " +
                                  std::to_string(options.header_timeout.count()) + " ms",
                              /*keep_alive=*/false);
    } else if (refusal) {
      // Bare LF or obs-fold: the header is not read whole, so where the request ends is not known.
      reason.end = ConnectionEnd::kMalformed;
      response = TextResponse(refusal->status, refusal->message, /*keep_alive=*/false);
    } else if (ec) {
      refusal = RefusalOfHeaderError(ec);
      if (!refusal) {
        leave.end = EndOfFailedIo(ec, hub);  // Closed by the client, or cancelled by a shutdown.
        break;
      }
      reason.end = ConnectionEnd::kMalformed;
      response = TextResponse(refusal->status, refusal->message, /*keep_alive=*/false);
    } else if ((refusal = CheckFraming(header.get()))) {
      // Where this request ends is not known: nothing after it on the connection is read.
      method = std::string(header.get().method_string());
      reason.end = ConnectionEnd::kFramingError;
      response = TextResponse(refusal->status, refusal->message, /*keep_alive=*/false);
    } else {
      method = std::string(header.get().method_string());
      const bool head = header.get().method() == http::verb::head;
      const bool client_keep_alive = header.get().keep_alive();
      response = co_await ReadAndAnswer(stream, buffer, header, hub, reason);
      // A HEAD answer keeps the Content-Length a GET would have, without the body.
      if (response && head) response->body().clear();
      if (response && !response->keep_alive() && !reason.end) {
        reason.end = client_keep_alive ? ConnectionEnd::kBodyNotRead
                                       : ConnectionEnd::kClientAskedClose;
      }
    }
    if (!response) {
      leave.end = reason.end.value_or(ConnectionEnd::kClientClosed);
      break;
    }
    if (hub.draining() && response->keep_alive()) {
      response->keep_alive(false);
      reason.end = ConnectionEnd::kShutdown;
    }
    const error_code written = co_await Write(stream, *response, options.write_timeout);
    hub.http().Record(method, response->result_int(), Clock::Steady().Now() - first_byte);
    if (written) {
      if (written == beast::error::timeout) {
        hub.http().RecordTimeout(HttpTimeout::kWrite);
        leave.end = ConnectionEnd::kWriteTimeout;
      } else {
        leave.end = EndOfFailedIo(written, hub);
      }
      break;
    }
    if (!response->keep_alive()) {
      leave.end = reason.end.value_or(ConnectionEnd::kClientAskedClose);
      co_await LingeringClose(stream);
      co_return;
    }
  }
  Close(stream);
}

asio::awaitable<void> RefuseConnection(tcp::socket socket, ConnectionHub& hub) {
  hub.http().RecordConnectionEnd(ConnectionEnd::kRefusedOverCap);
  if (hub.refusing() >= hub.options().max_connections) co_return;  // The socket just closes.
  ++hub.refusing();
  struct Done {
    size_t& refusing;
    ~Done() { --refusing; }
  } done{hub.refusing()};

  const TimePoint accepted = Clock::Steady().Now();
  beast::tcp_stream stream(std::move(socket));
  Response response = UnavailableResponse(
      "too many connections (at most " + std::to_string(hub.options().max_connections) + ")",
      hub.options().retry_after_seconds, /*keep_alive=*/false);
  const error_code written = co_await Write(stream, response, std::chrono::seconds(1));
  // No request was read: the method is unknown.
  hub.http().Record("other", response.result_int(), Clock::Steady().Now() - accepted);
  if (!written) {
    co_await LingeringClose(stream);
  } else {
    stream.close();
  }
}

}  // namespace blobtune::server
