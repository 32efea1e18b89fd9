#include "connection.h"

#include <boost/asio/buffer.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <string>

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

using HeaderParser = http::request_parser<http::empty_body>;
using BodyParser = http::request_parser<http::vector_body<std::byte>>;

// Largest request header (request line and fields) accepted; more gets 431.
constexpr uint32_t kHeaderLimit = 16 * 1024;
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

// The answer to a request whose header could not be read, or nothing when the connection just
// ended (closed by the client, cancelled by a shutdown, or idle past header_timeout: no request
// had begun, so there is nobody to answer).
std::optional<Response> AnswerToBadHeader(const error_code& ec, bool begun, bool timed_out,
                                          const ServerOptions& options) {
  if (timed_out && begun) {
    return TextResponse(http::status::request_timeout,
                        "request header not complete within " +
                            std::to_string(options.header_timeout.count()) + " ms",
                        /*keep_alive=*/false);
  }
  if (ec.category() != http::make_error_code(http::error::end_of_stream).category() ||
      ec == http::error::end_of_stream || ec == http::error::partial_message) {
    return std::nullopt;
  }
  if (ec == http::error::header_limit) {
    return TextResponse(http::status::request_header_fields_too_large,
                        "request header is over " + std::to_string(kHeaderLimit) + " bytes",
                        /*keep_alive=*/false);
  }
  return TextResponse(http::status::bad_request, "malformed HTTP request: " + ec.message(),
                      /*keep_alive=*/false);
}

// The answer to a request whose body could not be read: 408 when it did not arrive in time, 400
// when it was malformed (a bad chunk), nothing when the client went away.
std::optional<Response> AnswerToBadBody(const error_code& ec, bool timed_out,
                                        const ServerOptions& options) {
  if (timed_out) {
    return TextResponse(http::status::request_timeout,
                        "request body not complete within " +
                            std::to_string(options.body_timeout.count()) + " ms",
                        /*keep_alive=*/false);
  }
  if (ec.category() != http::make_error_code(http::error::end_of_stream).category() ||
      ec == http::error::end_of_stream || ec == http::error::partial_message) {
    return std::nullopt;
  }
  return TextResponse(http::status::bad_request, "malformed request body: " + ec.message(),
                      /*keep_alive=*/false);
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

asio::awaitable<bool> Write(beast::tcp_stream& stream, Response& response,
                            std::chrono::milliseconds timeout) {
  error_code ec;
  stream.expires_after(timeout);
  co_await http::async_write(stream, response, asio::redirect_error(asio::use_awaitable, ec));
  co_return !ec;
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
                                                       ConnectionHub& hub) {
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
      if (ec) co_return std::nullopt;
    }
    BodyParser parser(std::move(header));
    parser.body_limit(options.max_blob_size_bytes);
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
    if (ec == http::error::body_limit) {  // Chunked: found out while reading.
      co_return TextResponse(http::status::payload_too_large, too_large, /*keep_alive=*/false);
    }
    if (ec) co_return AnswerToBadBody(ec, timed_out, options);
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
                                                       HeaderParser& header, ConnectionHub& hub) {
  const ServerOptions& options = hub.options();
  const int retry = options.retry_after_seconds;
  // The wait budget starts when the header is in: time queued behind other work on this thread
  // counts against it, so an overloaded server answers 503 on time.
  const TimePoint deadline = Clock::Steady().Now() + options.wait_deadline;
  const RequestHead head(header);
  const bool keep_alive = head.keep_alive_unread();

  StatusOr<Route> route = ParseRoute(head.method, head.target);
  if (!route.ok()) co_return ErrorResponse(route.status(), retry, keep_alive);
  if (route->kind == RouteKind::kMethodNotAllowed) {
    Response response = TextResponse(
        http::status::method_not_allowed,
        "method " + std::string(http::to_string(head.method)) + " is not allowed here; allowed: " +
            route->allow,
        keep_alive);
    response.set(http::field::allow, route->allow);
    co_return response;
  }
  if (!route->ns.empty() && !hub.handler().KnowsNamespace(route->ns)) {
    co_return TextResponse(http::status::not_found,
                           "unknown namespace '" + route->ns + "'; this server has: " +
                               NamespaceList(options),
                           keep_alive);
  }
  StatusOr<tuner::PartitionId> partition = hub.handler().PartitionOf(head.partition, route->ns);
  if (!partition.ok()) co_return ErrorResponse(partition.status(), retry, keep_alive);
  route->partition = *partition;
  if (route->kind == RouteKind::kPutBlob) {
    std::optional<Response> response =
        co_await ReceiveAndPut(stream, buffer, header, head, *std::move(route), deadline, hub);
    co_return response;
  }
  stream.expires_never();  // The wait deadline and the store bound the handler.
  Response response =
      co_await hub.handler().Handle(*std::move(route), head.conditions, deadline, keep_alive);
  co_return response;
}

}  // namespace

void ConnectionHub::Remove(Handle handle) {
  live_.erase(handle);
  if (live_.empty() && on_empty_) std::exchange(on_empty_, nullptr)();
}

void ConnectionHub::StartDraining(std::function<void()> on_empty) {
  draining_->store(true, std::memory_order_relaxed);
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
  struct Leave {
    ConnectionHub& hub;
    ConnectionHub::Handle self;
    ~Leave() { hub.Remove(self); }
  } leave{hub, self};
  const ServerOptions& options = hub.options();

  beast::flat_buffer buffer;
  while (!hub.draining()) {
    HeaderParser header;
    header.header_limit(kHeaderLimit);
    header.body_limit(std::numeric_limits<uint64_t>::max());  // The size check is ours.
    self->idle = true;
    // The header is read in receives of 512 bytes upwards, not into the 64 KiB of room an
    // admitted body left: a large receive would take the start of a PUT's body along, copied
    // for nothing if the PUT is refused (a refused body is dropped uncopied, DiscardBody).
    if (buffer.size() == 0 && buffer.capacity() > kSmallReceiveBytes) buffer.shrink_to_fit();
    error_code ec;
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
      if (!ec) {
        co_await http::async_read_header(stream, buffer, header,
                                         asio::redirect_error(asio::use_awaitable, ec));
      }
      timed_out = header_deadline.expired();
    }
    self->idle = false;
    std::optional<Response> response;
    std::string method = "other";  // Until a header says.
    if (ec) {
      response = AnswerToBadHeader(ec, begun, timed_out, options);
    } else if (std::optional<FramingRefusal> refusal = CheckFraming(header.get())) {
      // Where this request ends is not known: nothing after it on the connection is read.
      method = std::string(header.get().method_string());
      response = TextResponse(refusal->status, refusal->message, /*keep_alive=*/false);
    } else {
      method = std::string(header.get().method_string());
      const bool head = header.get().method() == http::verb::head;
      response = co_await ReadAndAnswer(stream, buffer, header, hub);
      // A HEAD answer keeps the Content-Length a GET would have, without the body.
      if (response && head) response->body().clear();
    }
    if (!response) break;
    if (hub.draining()) response->keep_alive(false);
    const bool ok = co_await Write(stream, *response, options.write_timeout);
    hub.http().Record(method, response->result_int(), Clock::Steady().Now() - first_byte);
    if (!ok) break;
    if (!response->keep_alive()) {
      co_await LingeringClose(stream);
      co_return;
    }
  }
  Close(stream);
}

asio::awaitable<void> RefuseConnection(tcp::socket socket, ConnectionHub& hub) {
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
  const bool written = co_await Write(stream, response, std::chrono::seconds(1));
  // No request was read: the method is unknown.
  hub.http().Record("other", response.result_int(), Clock::Steady().Now() - accepted);
  if (written) {
    co_await LingeringClose(stream);
  } else {
    stream.close();
  }
}

}  // namespace blobtune::server
