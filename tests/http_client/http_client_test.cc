// The examples' HTTP client (examples/common/http_connection.h, blocking_http_client.h) against a
// real server on 127.0.0.1:0 that the test scripts by request target: status and body, keep-alive
// reuse, bodies over Beast's default limits, servers that close, a server that never answers,
// basic authentication and paced uploads, from blocking code and from a coroutine.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "blobtune/base/mutex.h"
#include "common/blocking_http_client.h"
#include "common/http_connection.h"

namespace blobtune::examples {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

// A blocking HTTP/1.1 server, one thread per connection, whose answers the request target picks:
//   /hello          200 "hello"
//   /bytes/N        200 with N bytes
//   /echo           200 with the request's body
//   /authorization  200 with the request's Authorization header
//   /close          200 "bye" with Connection: close, then closes
//   /drop           200 "dropped" as if keep-alive, then closes (an idle timeout, a restart)
//   /silent         no answer; the connection stays open until the client closes it
//   /refuse         asked first (Expect: 100-continue): 503 "refused" and close, the body
//                   unread; whatever body still comes is counted (unwanted_body_bytes)
//   anything else   404
// A request that asks first gets 100 Continue before its body is read (but /refuse).
class ScriptedServer {
 public:
  ScriptedServer() : acceptor_(io_, {asio::ip::address_v4::loopback(), 0}) {
    accepting_ = std::thread([this] { Accept(); });
  }
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;
  ~ScriptedServer() { Stop(); }

  // Stops accepting and waits for every connection to end.
  // REQUIRES: every client has closed its connection (each connection thread ends on EOF).
  void Stop() {
    if (stopping_.exchange(true)) return;
    boost::system::error_code ignored;
    tcp::socket wake(io_);
    wake.connect({asio::ip::address_v4::loopback(), port_}, ignored);
    accepting_.join();
    MutexLock lock(mu_);
    for (std::thread& t : connections_) t.join();
  }

  uint16_t port() const { return port_; }
  int accepted() const { return accepted_.load(); }
  int requests() const { return requests_.load(); }
  // Body bytes that arrived after a /refuse answer; final once Stop() returned.
  uint64_t unwanted_body_bytes() const { return unwanted_body_bytes_.load(); }

 private:
  void Accept() {
    for (;;) {
      auto socket = std::make_shared<tcp::socket>(io_);
      boost::system::error_code ec;
      acceptor_.accept(*socket, ec);
      if (stopping_ || ec) return;
      ++accepted_;
      MutexLock lock(mu_);
      connections_.emplace_back([this, socket] { Serve(*socket); });
    }
  }

  void Serve(tcp::socket& socket) {
    boost::beast::flat_buffer buffer;
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(uint64_t{64} << 20);
      boost::system::error_code ec;
      http::read_header(socket, buffer, parser, ec);
      if (ec) return;  // The client closed, or sent nonsense.
      if (boost::beast::iequals(parser.get()[http::field::expect], "100-continue")) {
        if (parser.get().target() == "/refuse") return Refuse(socket, buffer);
        http::response<http::empty_body> go_on{http::status::continue_, 11};
        http::write(socket, go_on, ec);
        if (ec) return;
      }
      http::read(socket, buffer, parser, ec);
      if (ec) return;
      ++requests_;
      const http::request<http::string_body>& request = parser.get();
      const std::string target(request.target());
      if (target == "/silent") continue;  // The next read sees the client's close.
      HttpResponse response{http::status::ok, 11};
      if (target == "/hello") {
        response.body() = "hello";
      } else if (target.rfind("/bytes/", 0) == 0) {
        response.body() = std::string(std::stoul(target.substr(7)), 'b');
      } else if (target == "/echo") {
        response.body() = request.body();
      } else if (target == "/authorization") {
        response.body() = std::string(request[http::field::authorization]);
      } else if (target == "/close") {
        response.body() = "bye";
        response.keep_alive(false);
      } else if (target == "/drop") {
        response.body() = "dropped";
      } else {
        response.result(http::status::not_found);
        response.body() = "no " + target;
      }
      response.prepare_payload();
      http::write(socket, response, ec);
      if (ec || !response.keep_alive() || target == "/drop") {
        socket.shutdown(tcp::socket::shutdown_both, ec);
        socket.close(ec);
        return;
      }
    }
  }

  // Answers 503 without reading the body, then counts the body bytes that come anyway until
  // the client closes.
  void Refuse(tcp::socket& socket, boost::beast::flat_buffer& buffer) {
    ++requests_;
    HttpResponse refused{http::status::service_unavailable, 11};
    refused.body() = "refused";
    refused.keep_alive(false);
    refused.prepare_payload();
    boost::system::error_code ec;
    http::write(socket, refused, ec);
    uint64_t unwanted = buffer.size();
    char sink[4096];
    while (!ec) unwanted += socket.read_some(asio::buffer(sink), ec);
    unwanted_body_bytes_ += unwanted;
    socket.close(ec);
  }

  asio::io_context io_;  // Only for the sockets: every call here is blocking.
  tcp::acceptor acceptor_;
  const uint16_t port_ = acceptor_.local_endpoint().port();
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0};
  std::atomic<int> requests_{0};
  std::atomic<uint64_t> unwanted_body_bytes_{0};
  std::thread accepting_;
  Mutex mu_;
  std::vector<std::thread> connections_ BLOBTUNE_GUARDED_BY(mu_);
};

TEST(HttpClientTest, AnswersCarryStatusAndBody) {
  ScriptedServer server;
  BlockingHttpClient client(server.port());
  StatusOr<HttpResponse> hello = client.Send(http::verb::get, "/hello");
  ASSERT_TRUE(hello.ok()) << hello.status();
  EXPECT_EQ(hello->result_int(), 200);
  EXPECT_EQ(hello->body(), "hello");
  // A 4xx is an answer, not an error.
  StatusOr<HttpResponse> missing = client.Send(http::verb::get, "/nowhere");
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_EQ(missing->result_int(), 404);
  EXPECT_EQ(missing->body(), "no /nowhere");
}

TEST(HttpClientTest, KeepAliveReusesOneConnection) {
  ScriptedServer server;
  BlockingHttpClient client(server.port());
  for (int i = 0; i < 5; ++i) {
    StatusOr<HttpResponse> r = client.Send(http::verb::put, "/echo", "n" + std::to_string(i));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->body(), "n" + std::to_string(i));
  }
  EXPECT_EQ(client.connection().connects(), 1);
  EXPECT_EQ(server.accepted(), 1);
}

TEST(HttpClientTest, BodiesOverBeastsDefaultLimitsArriveWhole) {
  ScriptedServer server;
  BlockingHttpClient client(server.port());
  // Beast's response parser stops at 8 MiB unless told otherwise, its request parser at 1 MiB.
  const size_t big = (size_t{10} << 20) + 7;
  StatusOr<HttpResponse> down = client.Send(http::verb::get, "/bytes/" + std::to_string(big));
  ASSERT_TRUE(down.ok()) << down.status();
  EXPECT_EQ(down->body().size(), big);
  EXPECT_EQ(down->body().find_first_not_of('b'), std::string::npos);
  std::string upload((size_t{3} << 20) + 1, 'u');
  upload.back() = 'z';
  StatusOr<HttpResponse> up = client.Send(http::verb::put, "/echo", upload);
  ASSERT_TRUE(up.ok()) << up.status();
  EXPECT_EQ(up->body(), upload);
}

TEST(HttpClientTest, ABodyOverTheLimitIsAnErrorNotATruncation) {
  ScriptedServer server;
  BlockingHttpClient client(server.port(), {.max_response_body_bytes = 1000});
  StatusOr<HttpResponse> r = client.Send(http::verb::get, "/bytes/1001");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted) << r.status();
  EXPECT_NE(std::string(r.status().message()).find("GET /bytes/1001"), std::string::npos)
      << r.status();
  // Not sent twice: the answer would be as large again.
  EXPECT_EQ(server.requests(), 1);
  // The limit itself is allowed, on a new connection.
  StatusOr<HttpResponse> at_limit = client.Send(http::verb::get, "/bytes/1000");
  ASSERT_TRUE(at_limit.ok()) << at_limit.status();
  EXPECT_EQ(at_limit->body().size(), 1000u);
}

TEST(HttpClientTest, AnAnswerThatClosesIsFollowedByANewConnection) {
  ScriptedServer server;
  BlockingHttpClient client(server.port());
  StatusOr<HttpResponse> bye = client.Send(http::verb::get, "/close");
  ASSERT_TRUE(bye.ok()) << bye.status();
  EXPECT_EQ(bye->body(), "bye");
  EXPECT_FALSE(bye->keep_alive());
  EXPECT_FALSE(client.connection().open());
  StatusOr<HttpResponse> next = client.Send(http::verb::get, "/hello");
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->body(), "hello");
  EXPECT_EQ(client.connection().connects(), 2);
}

TEST(HttpClientTest, AReusedConnectionTheServerClosedIsReopenedOnce) {
  ScriptedServer server;
  BlockingHttpClient client(server.port());
  StatusOr<HttpResponse> dropped = client.Send(http::verb::get, "/drop");
  ASSERT_TRUE(dropped.ok()) << dropped.status();
  EXPECT_TRUE(dropped->keep_alive());  // The server said nothing of closing.
  StatusOr<HttpResponse> next = client.Send(http::verb::get, "/hello");
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->body(), "hello");
  EXPECT_EQ(client.connection().connects(), 2);
}

TEST(HttpClientTest, AServerThatNeverAnswersIsADeadlineNotAHang) {
  ScriptedServer server;
  BlockingHttpClient client(server.port(), {.timeout = 200ms});
  StatusOr<HttpResponse> r = client.Send(http::verb::get, "/silent");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDeadlineExceeded) << r.status();
  // A fresh connection was not tried again: the first one was new.
  EXPECT_EQ(client.connection().connects(), 1);
  // The client is still usable.
  StatusOr<HttpResponse> next = client.Send(http::verb::get, "/hello");
  ASSERT_TRUE(next.ok()) << next.status();
}

TEST(HttpClientTest, NobodyListeningIsUnavailable) {
  uint16_t port = 0;
  {
    ScriptedServer gone;
    port = gone.port();
  }
  BlockingHttpClient client(port);
  StatusOr<HttpResponse> r = client.Send(http::verb::get, "/hello");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable) << r.status();
  EXPECT_FALSE(client.Connect().ok());
}

TEST(HttpClientTest, BasicAuthenticationGoesOnEveryRequest) {
  ScriptedServer server;
  BlockingHttpClient client(server.port(), {.username = "prom", .password = "s3cret"});
  for (int i = 0; i < 2; ++i) {
    StatusOr<HttpResponse> r = client.Send(http::verb::get, "/authorization");
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->body(), "Basic cHJvbTpzM2NyZXQ=");
  }
  BlockingHttpClient anonymous(server.port());
  EXPECT_EQ(anonymous.Send(http::verb::get, "/authorization")->body(), "");
}

TEST(HttpClientTest, Base64MatchesTheRfcVectors) {
  EXPECT_EQ(Base64(""), "");
  EXPECT_EQ(Base64("f"), "Zg==");
  EXPECT_EQ(Base64("fo"), "Zm8=");
  EXPECT_EQ(Base64("foo"), "Zm9v");
  EXPECT_EQ(Base64("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64(std::string("\xff\x00\x80", 3)), "/wCA");
}

TEST(HttpClientTest, HttpGetUsesAConnectionOfItsOwn) {
  ScriptedServer server;
  for (int i = 0; i < 2; ++i) {
    StatusOr<HttpResponse> r = HttpGet("127.0.0.1", server.port(), "/hello");
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->body(), "hello");
  }
  EXPECT_EQ(server.accepted(), 2);
  EXPECT_EQ(HttpGet("localhost", server.port(), "/hello").status().code(),
            StatusCode::kInvalidArgument);
}

TEST(HttpClientTest, APacedUploadArrivesWhole) {
  ScriptedServer server;
  BlockingHttpClient client(server.port(), {.upload_time = 20ms});
  std::string body(5 * kUploadPieceBytes + 3, 'p');
  body[kUploadPieceBytes] = 'q';
  StatusOr<HttpResponse> r = client.Send(http::verb::put, "/echo", body);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->body(), body);
}

TEST(HttpClientTest, ABodyThatAsksFirstGoesAfterTheContinue) {
  ScriptedServer server;
  BlockingHttpClient client(server.port(), {.expect_continue_bytes = 1024});
  std::string body((size_t{1} << 20) + 5, 'c');
  body[77] = 'd';
  StatusOr<HttpResponse> asked = client.Send(http::verb::put, "/echo", body);
  ASSERT_TRUE(asked.ok()) << asked.status();
  EXPECT_EQ(asked->result_int(), 200);
  EXPECT_EQ(asked->body(), body);
  // Below the threshold the body goes with its header; the connection carries both.
  StatusOr<HttpResponse> small = client.Send(http::verb::put, "/echo", "short");
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ(small->body(), "short");
  EXPECT_EQ(client.connection().connects(), 1);
}

TEST(HttpClientTest, ABodyRefusedBeforeItIsSentIsNeverSent) {
  ScriptedServer server;
  {
    BlockingHttpClient client(server.port(), {.expect_continue_bytes = 1024});
    StatusOr<HttpResponse> refused =
        client.Send(http::verb::put, "/refuse", std::string(size_t{1} << 20, 'r'));
    ASSERT_TRUE(refused.ok()) << refused.status();
    EXPECT_EQ(refused->result_int(), 503);
    EXPECT_EQ(refused->body(), "refused");
    EXPECT_FALSE(client.connection().open());  // The body was never sent: a new connection.
    StatusOr<HttpResponse> next = client.Send(http::verb::get, "/hello");
    ASSERT_TRUE(next.ok()) << next.status();
    EXPECT_EQ(next->body(), "hello");
    EXPECT_EQ(client.connection().connects(), 2);
  }
  server.Stop();
  EXPECT_EQ(server.unwanted_body_bytes(), 0u);
}

TEST(HttpClientTest, RawBytesAndTheirAnswer) {
  ScriptedServer server;
  BlockingHttpClient client(server.port());
  ASSERT_TRUE(client.WriteRaw("GET /close HTTP/1.1\r\nHost: x\r\n\r\n").ok());
  StatusOr<HttpResponse> r = client.Read();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->body(), "bye");
  EXPECT_TRUE(client.ServerClosed());
}

TEST(HttpClientTest, CoroutinesShareOneExecutor) {
  ScriptedServer server;
  asio::io_context io;
  const tcp::endpoint endpoint(asio::ip::address_v4::loopback(), server.port());
  std::vector<std::string> bodies(4);
  auto client = [&](int i) -> asio::awaitable<void> {
    HttpConnection connection(io.get_executor(), endpoint);
    for (int round = 0; round < 3; ++round) {
      // Named, not temporaries beside the co_await (GCC 12 mishandles some of those).
      std::string target = "/echo";
      std::string body = std::to_string(i) + "." + std::to_string(round);
      StatusOr<HttpResponse> r =
          co_await connection.Send(http::verb::put, std::move(target), std::move(body));
      bodies[i] += r.ok() ? r->body() + ";" : r.status().ToString();
    }
  };
  for (int i = 0; i < 4; ++i) asio::co_spawn(io, client(i), asio::detached);
  io.run();
  for (int i = 0; i < 4; ++i) {
    const std::string n = std::to_string(i);
    EXPECT_EQ(bodies[i], n + ".0;" + n + ".1;" + n + ".2;");
  }
  EXPECT_EQ(server.accepted(), 4);
}

}  // namespace
}  // namespace blobtune::examples
