// blobtune-server over a real socket: every answer it documents (200, 201, 204, 304, 400, 404,
// 405, 412, 413, 431, 503 + Retry-After), ETags and conditional requests, cut listings, the
// timeouts on idle and slowloris clients, the connection cap, the HTTP metrics, and a graceful
// shutdown of the in-process BlobServer.
#include "blob_server.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <atomic>
#include <boost/asio/buffer.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/blocking_http_client.h"
#include "common/http_message.h"
#include "common/temp_dir.h"
#include "common/wait_for.h"

namespace blobtune::server {
namespace {

using blobtune::testing::TempDir;
using blobtune::testing::WaitFor;
using examples::BlockingHttpClient;
using examples::HttpResponse;
using examples::MakeRequest;
namespace http = boost::beast::http;
using namespace std::chrono_literals;

// The answer, or an empty response with status 0 after a test failure that says why.
HttpResponse Answered(StatusOr<HttpResponse> response) {
  if (response.ok()) return *std::move(response);
  ADD_FAILURE() << "no answer: " << response.status();
  HttpResponse none;
  none.result(0u);
  return none;
}

// Writes `bytes` as they are; a failed write fails the test.
void WriteRaw(BlockingHttpClient& client, std::string_view bytes) {
  const Status written = client.WriteRaw(bytes);
  EXPECT_TRUE(written.ok()) << written;
}

class BlobServerTest : public ::testing::Test {
 protected:
  void Start(ServerOptions options = {}) {
    options.data_dir = dir_.Sub("data");
    options.namespaces = {"default", "photos"};
    options.max_blob_size_bytes = 64 * 1024;
    options.durability = store::Durability::kNoSync;  // Speed; durability is the child test's.
    StatusOr<std::unique_ptr<BlobServer>> started = BlobServer::Start(options);
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    server_ = *std::move(started);
  }
  uint16_t port() const { return server_->port(); }

  // Write permits held right now: a PUT holds one from its header on.
  int WritePermitsHeld() const {
    for (const metrics::LimiterSnapshot& s : server_->LimiterSnapshots()) {
      if (s.name == "write" && s.gauges.has_value()) return s.gauges->inflight;
    }
    return -1;
  }

  // Starts a server whose writes take one permit at a time, each waiting up to `wait`, and a
  // client that holds that permit: a PUT of /blobs/default/held whose 2-byte body has not come
  // (WriteRaw(*holder, "ok") sends it). Fails the test if the permit is not taken in time.
  std::unique_ptr<BlockingHttpClient> StartWithTheOneWritePermitHeld(
      std::chrono::milliseconds wait) {
    ServerOptions options;
    options.algorithm = "fixed:limit=1";
    options.wait_deadline = wait;
    Start(options);
    auto holder = std::make_unique<BlockingHttpClient>(port());
    WriteRaw(*holder, "PUT /blobs/default/held HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n");
    EXPECT_TRUE(WaitFor([&] { return WritePermitsHeld() == 1; }, 10s))
        << "the half-sent PUT never took the write permit";
    return holder;
  }

  TempDir dir_{"blobtune-server"};
  std::unique_ptr<BlobServer> server_;
};

TEST_F(BlobServerTest, PutGetHeadListDeleteOnOneKeepAliveConnection) {
  Start();
  BlockingHttpClient client(port());
  HttpResponse put = Answered(client.Send(http::verb::put, "/blobs/photos/cat-1", "meow"));
  EXPECT_EQ(put.result_int(), 201) << put.body();
  HttpResponse get = Answered(client.Send(http::verb::get, "/blobs/photos/cat-1"));
  EXPECT_EQ(get.result_int(), 200);
  EXPECT_EQ(get.body(), "meow");
  HttpResponse head = Answered(client.Send(http::verb::head, "/blobs/photos/cat-1"));
  EXPECT_EQ(head.result_int(), 200);
  EXPECT_EQ(head[http::field::content_length], "4");
  ASSERT_EQ(Answered(client.Send(http::verb::put, "/blobs/photos/cat-2", "purr")).result_int(),
            201);
  ASSERT_EQ(Answered(client.Send(http::verb::put, "/blobs/photos/dog-1", "woof")).result_int(),
            201);
  HttpResponse list = Answered(client.Send(http::verb::get, "/blobs/photos?prefix=cat-&limit=10"));
  EXPECT_EQ(list.result_int(), 200);
  EXPECT_EQ(list.body(), "cat-1\t4\ncat-2\t4\n");
  HttpResponse page = Answered(client.Send(http::verb::get, "/blobs/photos?limit=1&after=cat-1"));
  EXPECT_EQ(page.body(), "cat-2\t4\n");
  HttpResponse erase = Answered(client.Send(http::verb::delete_, "/blobs/photos/cat-1"));
  EXPECT_EQ(erase.result_int(), 204);
  EXPECT_TRUE(erase.body().empty());
  EXPECT_EQ(erase.find(http::field::content_type), erase.end()) << "a 204 has no content";
  EXPECT_EQ(Answered(client.Send(http::verb::get, "/blobs/photos/cat-1")).result_int(), 404);
}

// The request `verb target` with one extra header.
examples::HttpRequest With(http::verb verb, std::string target, http::field field,
                           std::string value, std::string body = "") {
  examples::HttpRequest request = MakeRequest(verb, std::move(target), std::move(body));
  request.set(field, value);
  return request;
}

// PUTs `body` at `target` (a test failure unless that answers 200 or 201), then returns the
// ETag a HEAD answers.
std::string PutForETag(BlockingHttpClient& client, const std::string& target, std::string body) {
  const unsigned code =
      Answered(client.Send(http::verb::put, target, std::move(body))).result_int();
  EXPECT_TRUE(code == 200 || code == 201) << target << ": " << code;
  return std::string(Answered(client.Send(http::verb::head, target))[http::field::etag]);
}

TEST_F(BlobServerTest, GetAndHeadGiveTheSameETagAndChecksum) {
  Start();
  BlockingHttpClient client(port());
  ASSERT_EQ(Answered(client.Send(http::verb::put, "/blobs/photos/cat-1", "meow")).result_int(),
            201);
  HttpResponse get = Answered(client.Send(http::verb::get, "/blobs/photos/cat-1"));
  HttpResponse head = Answered(client.Send(http::verb::head, "/blobs/photos/cat-1"));
  const std::string etag(get[http::field::etag]);
  EXPECT_EQ(etag.size(), 10u) << etag;  // "8 hex digits"
  EXPECT_EQ(etag.front(), '"');
  EXPECT_EQ(head[http::field::etag], etag);
  EXPECT_NE(get["X-Blob-Crc32c"], "");
  EXPECT_EQ(head["X-Blob-Crc32c"], get["X-Blob-Crc32c"]);
  // A new content, a new ETag.
  ASSERT_EQ(Answered(client.Send(http::verb::put, "/blobs/photos/cat-1", "purr")).result_int(),
            200);
  EXPECT_NE(Answered(client.Send(http::verb::get, "/blobs/photos/cat-1"))[http::field::etag],
            etag);
}

TEST_F(BlobServerTest, IfNoneMatchWithTheETagIs304WithoutABody) {
  Start();
  BlockingHttpClient client(port());
  const std::string etag = PutForETag(client, "/blobs/photos/cat-1", "meow");
  for (http::verb verb : {http::verb::get, http::verb::head}) {
    HttpResponse cached = Answered(
        client.Send(With(verb, "/blobs/photos/cat-1", http::field::if_none_match, etag)));
    EXPECT_EQ(cached.result_int(), 304) << verb;
    EXPECT_EQ(cached[http::field::etag], etag);
    EXPECT_TRUE(cached.body().empty());
    EXPECT_EQ(cached.find(http::field::content_type), cached.end());
  }
  HttpResponse other = Answered(client.Send(
      With(http::verb::get, "/blobs/photos/cat-1", http::field::if_none_match, "\"00000000\"")));
  EXPECT_EQ(other.result_int(), 200);
  EXPECT_EQ(other.body(), "meow");
}

TEST_F(BlobServerTest, AStaleIfMatchIs412AndChangesNothing) {
  Start();
  BlockingHttpClient client(port());
  const std::string first = PutForETag(client, "/blobs/photos/cat-1", "meow");
  const std::string second = PutForETag(client, "/blobs/photos/cat-1", "purr");

  HttpResponse stale_put = Answered(client.Send(
      With(http::verb::put, "/blobs/photos/cat-1", http::field::if_match, first, "hiss")));
  EXPECT_EQ(stale_put.result_int(), 412) << stale_put.body();
  EXPECT_NE(stale_put.body().find(second), std::string::npos) << stale_put.body();
  HttpResponse stale_delete = Answered(
      client.Send(With(http::verb::delete_, "/blobs/photos/cat-1", http::field::if_match, first)));
  EXPECT_EQ(stale_delete.result_int(), 412);
  EXPECT_EQ(Answered(client.Send(http::verb::get, "/blobs/photos/cat-1")).body(), "purr");

  HttpResponse fresh_put = Answered(client.Send(
      With(http::verb::put, "/blobs/photos/cat-1", http::field::if_match, second, "hiss")));
  EXPECT_EQ(fresh_put.result_int(), 200) << fresh_put.body();
  EXPECT_EQ(Answered(client.Send(http::verb::get, "/blobs/photos/cat-1")).body(), "hiss");
  // Only if absent: a create-only PUT of an existing blob fails.
  EXPECT_EQ(Answered(client.Send(With(http::verb::put, "/blobs/photos/cat-1",
                                      http::field::if_none_match, "*", "roar")))
                .result_int(),
            412);
  EXPECT_EQ(Answered(client.Send(With(http::verb::put, "/blobs/photos/cat-2",
                                      http::field::if_none_match, "*", "roar")))
                .result_int(),
            201);
  // If-Match on a blob that does not exist fails too.
  EXPECT_EQ(Answered(client.Send(
                With(http::verb::delete_, "/blobs/photos/none", http::field::if_match, "*")))
                .result_int(),
            412);
}

TEST_F(BlobServerTest, OfConcurrentWritesIfMatchingOneETagExactlyOneSucceeds) {
  Start();
  BlockingHttpClient setup(port());
  const std::string etag = PutForETag(setup, "/blobs/default/counter", "0");
  constexpr int kWriters = 8;
  std::atomic<int> ok{0}, failed{0}, other{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      BlockingHttpClient client(port());
      const StatusOr<HttpResponse> r = client.Send(With(
          http::verb::put, "/blobs/default/counter", http::field::if_match, etag,
          std::to_string(w + 1)));
      const unsigned code = r.ok() ? r->result_int() : 0;
      (code == 200 ? ok : code == 412 ? failed : other).fetch_add(1);
    });
  }
  for (std::thread& t : writers) t.join();
  EXPECT_EQ(ok.load(), 1);
  EXPECT_EQ(failed.load(), kWriters - 1);
  EXPECT_EQ(other.load(), 0);
}

TEST_F(BlobServerTest, ACutListingLinksToItsNextPage) {
  Start();
  BlockingHttpClient client(port());
  for (const char* id : {"a", "b", "c", "d", "e"}) {
    ASSERT_EQ(Answered(client.Send(http::verb::put, std::string("/blobs/default/") + id, "x"))
                  .result_int(),
              201);
  }
  HttpResponse first = Answered(client.Send(http::verb::get, "/blobs/default?limit=2"));
  EXPECT_EQ(first.body(), "a\t1\nb\t1\n");
  EXPECT_EQ(first[http::field::link], "</blobs/default?limit=2&after=b>; rel=\"next\"");
  HttpResponse second = Answered(client.Send(http::verb::get, "/blobs/default?limit=2&after=b"));
  EXPECT_EQ(second.body(), "c\t1\nd\t1\n");
  HttpResponse last = Answered(client.Send(http::verb::get, "/blobs/default?limit=2&after=d"));
  EXPECT_EQ(last.body(), "e\t1\n");
  EXPECT_EQ(last.find(http::field::link), last.end()) << "the whole rest fit";
  HttpResponse exact = Answered(client.Send(http::verb::get, "/blobs/default?limit=5"));
  EXPECT_EQ(exact.find(http::field::link), exact.end()) << "exactly full is not cut";
  HttpResponse prefixed = Answered(client.Send(http::verb::get, "/blobs/default?prefix=a&limit=1"));
  EXPECT_EQ(prefixed.find(http::field::link), prefixed.end());
}

TEST_F(BlobServerTest, PutThatCreatesIs201AndPutThatReplacesIs200) {
  Start();
  BlockingHttpClient client(port());
  HttpResponse first = Answered(client.Send(http::verb::put, "/blobs/photos/cat-1", "meow"));
  EXPECT_EQ(first.result_int(), 201) << first.body();
  HttpResponse second = Answered(client.Send(http::verb::put, "/blobs/photos/cat-1", "purr!"));
  EXPECT_EQ(second.result_int(), 200) << second.body();
  EXPECT_NE(second.body().find("replaced photos/cat-1 (5 bytes)"), std::string::npos)
      << second.body();
  EXPECT_EQ(Answered(client.Send(http::verb::get, "/blobs/photos/cat-1")).body(), "purr!");
  // Once erased, the id is new again.
  ASSERT_EQ(Answered(client.Send(http::verb::delete_, "/blobs/photos/cat-1")).result_int(), 204);
  EXPECT_EQ(Answered(client.Send(http::verb::put, "/blobs/photos/cat-1", "meow")).result_int(),
            201);
}

TEST_F(BlobServerTest, MissingBlobIs404WithAMessage) {
  Start();
  BlockingHttpClient client(port());
  HttpResponse get = Answered(client.Send(http::verb::get, "/blobs/default/nothing-here"));
  EXPECT_EQ(get.result_int(), 404);
  EXPECT_NE(get.body().find("nothing-here"), std::string::npos) << get.body();
  EXPECT_EQ(Answered(client.Send(http::verb::delete_, "/blobs/default/nothing-here")).result_int(),
            404);
  EXPECT_EQ(Answered(client.Send(http::verb::head, "/blobs/default/nothing-here")).result_int(),
            404);
  EXPECT_EQ(Answered(client.Send(http::verb::get, "/nowhere")).result_int(), 404);
}

TEST_F(BlobServerTest, UnknownNamespaceIs404AndSaysWhichExist) {
  Start();
  BlockingHttpClient client(port());
  for (const char* target : {"/blobs/videos/a", "/blobs/videos"}) {
    HttpResponse unknown = Answered(client.Send(http::verb::get, target));
    EXPECT_EQ(unknown.result_int(), 404) << target;
    EXPECT_NE(unknown.body().find("unknown namespace 'videos'; this server has: default, photos"),
              std::string::npos)
        << unknown.body();
  }
}

TEST_F(BlobServerTest, BadIdOrQueryIs400AndSaysWhy) {
  Start();
  BlockingHttpClient client(port());
  HttpResponse bad_id = Answered(client.Send(http::verb::get, "/blobs/default/a*b"));
  EXPECT_EQ(bad_id.result_int(), 400);
  EXPECT_NE(bad_id.body().find("'*'"), std::string::npos) << bad_id.body();
  HttpResponse bad_query = Answered(client.Send(http::verb::get, "/blobs/default?limit=0"));
  EXPECT_EQ(bad_query.result_int(), 400);
  // A PUT with a bad id is refused before its body is read, and the connection closes.
  HttpResponse bad_put = Answered(client.Send(http::verb::put, "/blobs/default/..", "x"));
  EXPECT_EQ(bad_put.result_int(), 400);
  EXPECT_FALSE(bad_put.keep_alive());
}

TEST_F(BlobServerTest, WrongMethodIs405WithAllow) {
  Start();
  BlockingHttpClient client(port());
  HttpResponse post = Answered(client.Send(http::verb::post, "/blobs/default/a"));
  EXPECT_EQ(post.result_int(), 405);
  EXPECT_EQ(post[http::field::allow], "GET, HEAD, PUT, DELETE");
}

TEST_F(BlobServerTest, OversizedBodyIs413BeforeTheBodyIsSent) {
  Start();
  BlockingHttpClient client(port());
  // Only the header goes out: the answer must come without the 10 MB the header announces.
  WriteRaw(client,
           "PUT /blobs/default/big HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n");
  HttpResponse response = Answered(client.Read());
  EXPECT_EQ(response.result_int(), 413);
  EXPECT_NE(response.body().find("maximum of 65536 bytes"), std::string::npos) << response.body();
  EXPECT_FALSE(response.keep_alive());
  EXPECT_TRUE(client.ServerClosed());
}

TEST_F(BlobServerTest, OversizedChunkedBodyIs413) {
  Start();
  BlockingHttpClient client(port());
  std::string chunk(40 * 1024, 'z');
  char size[16];
  std::snprintf(size, sizeof size, "%zx", chunk.size());
  std::string request =
      "PUT /blobs/default/big HTTP/1.1\r\nHost: x\r\n"
      "Transfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 2; ++i) request += std::string(size) + "\r\n" + chunk + "\r\n";
  request += "0\r\n\r\n";
  WriteRaw(client, request);
  EXPECT_EQ(Answered(client.Read()).result_int(), 413);
}

TEST_F(BlobServerTest, ExpectContinueGets100ThenTheAnswer) {
  Start();
  BlockingHttpClient client(port());
  WriteRaw(client,
           "PUT /blobs/default/c HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
           "Expect: 100-continue\r\n\r\n");
  EXPECT_EQ(Answered(client.Read()).result_int(), 100);
  WriteRaw(client, "abc");
  EXPECT_EQ(Answered(client.Read()).result_int(), 201);
  EXPECT_EQ(Answered(client.Send(http::verb::get, "/blobs/default/c")).body(), "abc");
}

TEST_F(BlobServerTest, MalformedRequestIs400AndOversizedHeaderIs431) {
  Start();
  {
    BlockingHttpClient client(port());
    WriteRaw(client, "HELLO THERE\r\n\r\n");
    EXPECT_EQ(Answered(client.Read()).result_int(), 400);
  }
  BlockingHttpClient client(port());
  WriteRaw(client, "GET /healthz HTTP/1.1\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n");
  EXPECT_EQ(Answered(client.Read()).result_int(), 431);
}

TEST_F(BlobServerTest, OverloadGets503WithRetryAfterPromptly) {
  ServerOptions options;
  options.algorithm = "fixed:limit=1";
  options.wait_deadline = 0ms;  // Only a free slot admits.
  Start(options);
  std::atomic<int> created{0}, unavailable{0}, other{0};
  std::atomic<int> retry_after_ok{0};
  std::atomic<int64_t> slowest_503_us{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&, c] {
      auto client = std::make_unique<BlockingHttpClient>(port());
      for (int i = 0; i < 30; ++i) {
        if (!client) client = std::make_unique<BlockingHttpClient>(port());
        auto start = std::chrono::steady_clock::now();
        HttpResponse r = Answered(client->Send(
            http::verb::put, "/blobs/default/k" + std::to_string(c) + "-" + std::to_string(i),
            std::string(32 * 1024, 'v')));
        auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
        // Refused before its body was read, the connection closes.
        if (!r.keep_alive()) client.reset();
        if (r.result_int() == 201) {
          ++created;
        } else if (r.result_int() == 503) {
          ++unavailable;
          if (r[http::field::retry_after] == "1") ++retry_after_ok;
          int64_t seen = slowest_503_us.load();
          while (us > seen && !slowest_503_us.compare_exchange_weak(seen, us)) {
          }
        } else {
          ++other;
        }
      }
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_GT(created.load(), 0);
  EXPECT_GT(unavailable.load(), 0) << "8 clients on a limit of 1 with no wait never collided";
  EXPECT_EQ(retry_after_ok.load(), unavailable.load());
  EXPECT_EQ(other.load(), 0);
  // "Promptly": no wait was allowed, so a 503 never waits for a commit.
  EXPECT_LT(slowest_503_us.load(), 1'000'000);
}

TEST_F(BlobServerTest, APutIsRefusedBeforeItsBodyIsSentWhenNoWritePermitComes) {
  // The only write permit: a PUT whose body is still on its way.
  std::unique_ptr<BlockingHttpClient> holder = StartWithTheOneWritePermitHeld(200ms);
  ASSERT_EQ(WritePermitsHeld(), 1);
  BlockingHttpClient refused(port());
  WriteRaw(refused,
           "PUT /blobs/default/next HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n"
           "Expect: 100-continue\r\n\r\n");
  HttpResponse answer = Answered(refused.Read());  // Comes without the 100 bytes being sent.
  EXPECT_EQ(answer.result_int(), 503);
  EXPECT_EQ(answer[http::field::retry_after], "1");
  EXPECT_FALSE(answer.keep_alive());
  EXPECT_NE(answer.body().find("no permit before the deadline"), std::string::npos)
      << answer.body();
  WriteRaw(*holder, "ok");
  EXPECT_EQ(Answered(holder->Read()).result_int(), 201);
  // Health and metrics never need a permit.
  BlockingHttpClient monitor(port());
  EXPECT_EQ(Answered(monitor.Send(http::verb::get, "/healthz")).result_int(), 200);
}

TEST_F(BlobServerTest, SlowlorisClientGets408AndIsDisconnected) {
  ServerOptions options;
  options.header_timeout = 300ms;
  Start(options);
  BlockingHttpClient client(port());
  ASSERT_TRUE(client.Connect().ok());
  const std::string header = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ";
  const auto start = std::chrono::steady_clock::now();
  bool answered = false;
  // One byte every 50 ms: each byte would reset a per-read timer, never the header deadline.
  // Between two bytes the client waits up to 50 ms for the server's answer.
  for (size_t i = 0; i < 100 && !answered; ++i) {
    boost::system::error_code ec;
    boost::asio::write(client.socket(), boost::asio::buffer(&header[i % header.size()], 1), ec);
    if (ec) break;
    pollfd readable{client.socket().native_handle(), POLLIN, 0};
    answered = ::poll(&readable, 1, 50) > 0;
  }
  const auto held = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(answered) << "the server kept a slowloris connection for 5 s";
  EXPECT_LT(held, 2s);
  EXPECT_EQ(Answered(client.Read()).result_int(), 408);
  EXPECT_TRUE(client.ServerClosed());
}

TEST_F(BlobServerTest, IdleKeepAliveConnectionIsClosed) {
  ServerOptions options;
  options.header_timeout = 200ms;
  Start(options);
  BlockingHttpClient client(port());
  EXPECT_EQ(Answered(client.Send(http::verb::get, "/healthz")).result_int(), 200);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(client.ServerClosed());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST_F(BlobServerTest, ConnectionsOverTheCapGet503) {
  ServerOptions options;
  options.max_connections = 2;
  Start(options);
  auto first = std::make_unique<BlockingHttpClient>(port());
  BlockingHttpClient second(port());
  EXPECT_EQ(Answered(first->Send(http::verb::get, "/healthz")).result_int(), 200);
  EXPECT_EQ(Answered(second.Send(http::verb::get, "/healthz")).result_int(), 200);
  BlockingHttpClient third(port());
  HttpResponse refused = Answered(third.Read());
  EXPECT_EQ(refused.result_int(), 503);
  EXPECT_EQ(refused[http::field::retry_after], "1");
  EXPECT_NE(refused.body().find("too many connections"), std::string::npos) << refused.body();
  // The cap counts live connections: once one goes, a new one is served. The server learns of
  // the close asynchronously, so new connections are tried until one is served.
  first.reset();
  int answered = 0;
  EXPECT_TRUE(WaitFor(
      [&] {
        BlockingHttpClient fourth(port());
        StatusOr<HttpResponse> r = fourth.Send(http::verb::get, "/healthz");
        // Without an answer: refused and closed before the answer was read.
        answered = r.ok() ? static_cast<int>(r->result_int()) : 0;
        return answered == 200;
      },
      10s))
      << "last answer: " << answered;
}

TEST_F(BlobServerTest, MetricsAndHealthz) {
  Start();
  BlockingHttpClient client(port());
  ASSERT_EQ(Answered(client.Send(http::verb::put, "/blobs/default/m", "x")).result_int(), 201);
  HttpResponse metrics = Answered(client.Send(http::verb::get, "/metrics"));
  EXPECT_EQ(metrics.result_int(), 200);
  EXPECT_NE(metrics.body().find("blobtune_limiter_limit{limiter=\"write\"}"), std::string::npos);
  EXPECT_NE(metrics.body().find("store=\"blobs\""), std::string::npos);
  // The status page: HTML with a section per limiter and for the store (the sampler records
  // at start, so they are there from the first request).
  HttpResponse page = Answered(client.Send(http::verb::get, "/status"));
  EXPECT_EQ(page.result_int(), 200);
  EXPECT_EQ(page[http::field::content_type], "text/html; charset=utf-8");
  EXPECT_NE(page["Content-Security-Policy"], "");
  for (const char* section : {"data-limiter='read'", "data-limiter='write'", "data-store='blobs'"}) {
    EXPECT_NE(page.body().find(section), std::string::npos) << section;
  }
  HttpResponse health = Answered(client.Send(http::verb::get, "/healthz"));
  EXPECT_EQ(health.result_int(), 200);
  EXPECT_EQ(health.body(), "ok\n");
}

// The value of the sample `series` (name and labels as exposed) in an exposition, -1 if absent.
double Sample(const std::string& exposition, const std::string& series) {
  const size_t at = exposition.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(exposition.substr(at + series.size() + 2));
}

TEST_F(BlobServerTest, EveryAnswerIsCountedByMethodAndCodeRefusalsIncluded) {
  ServerOptions options;
  options.max_connections = 1;
  Start(options);
  {
    BlockingHttpClient client(port());
    ASSERT_EQ(Answered(client.Send(http::verb::put, "/blobs/default/a", "x")).result_int(), 201);
    EXPECT_EQ(Answered(client.Send(http::verb::get, "/blobs/default/a")).result_int(), 200);
    EXPECT_EQ(Answered(client.Send(http::verb::get, "/blobs/default/zz")).result_int(), 404);
    // While `client` holds the one connection: 503 before any request is read.
    BlockingHttpClient refused(port());
    EXPECT_EQ(Answered(refused.Read()).result_int(), 503);
    // Refused from its header: over the maximum blob size (the connection closes).
    WriteRaw(client,
             "PUT /blobs/default/big HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n");
    EXPECT_EQ(Answered(client.Read()).result_int(), 413);
  }
  // Malformed: 400 with no method known. The cap frees as the server sees the closes.
  int malformed = 0;
  EXPECT_TRUE(WaitFor(
      [&] {
        BlockingHttpClient garbled(port());
        if (!garbled.WriteRaw("NOT HTTP AT ALL\r\n\r\n").ok()) return false;
        StatusOr<HttpResponse> r = garbled.Read();
        malformed = r.ok() ? static_cast<int>(r->result_int()) : 0;
        return malformed == 400;
      },
      10s))
      << "last answer: " << malformed;
  // The server counts an answer once it has written it, so a client may read the last ones
  // before they are counted.
  std::string text;
  EXPECT_TRUE(WaitFor(
      [&] {
        text = server_->MetricsText();
        return Sample(text, "blobtune_http_requests_total{method=\"other\",code=\"400\"}") >= 1 &&
               Sample(text, "blobtune_http_requests_total{method=\"PUT\",code=\"413\"}") >= 1;
      },
      10s));
  EXPECT_EQ(Sample(text, "blobtune_http_requests_total{method=\"PUT\",code=\"201\"}"), 1);
  EXPECT_EQ(Sample(text, "blobtune_http_requests_total{method=\"GET\",code=\"200\"}"), 1);
  EXPECT_EQ(Sample(text, "blobtune_http_requests_total{method=\"GET\",code=\"404\"}"), 1);
  EXPECT_EQ(Sample(text, "blobtune_http_requests_total{method=\"PUT\",code=\"413\"}"), 1);
  EXPECT_GE(Sample(text, "blobtune_http_requests_total{method=\"other\",code=\"503\"}"), 1);
  EXPECT_EQ(Sample(text, "blobtune_http_requests_total{method=\"other\",code=\"400\"}"), 1);
  EXPECT_EQ(Sample(text, "blobtune_http_request_duration_seconds_count{method=\"GET\"}"), 2);
  EXPECT_GT(Sample(text, "blobtune_http_request_duration_seconds_sum{method=\"PUT\"}"), 0);
  EXPECT_NE(text.find("\nblobtune_build_info{version=\""), std::string::npos);
  EXPECT_GT(Sample(text, "process_resident_memory_bytes"), 0);
  EXPECT_GT(Sample(text, "process_open_fds"), 0);
  EXPECT_GT(Sample(text, "blobtune_limiter_max_limit{limiter=\"write\"}"), 0);
  EXPECT_GT(Sample(text, "blobtune_limiter_min_limit{limiter=\"read\"}"), 0);
}

TEST_F(BlobServerTest, ARequestsDurationIncludesItsWaitForAPermit) {
  // A PUT whose body has not come holds the one write permit; a DELETE then waits for it.
  std::unique_ptr<BlockingHttpClient> holder = StartWithTheOneWritePermitHeld(10s);
  ASSERT_EQ(WritePermitsHeld(), 1);
  std::thread waiter([&] {
    BlockingHttpClient deleter(port());
    // No such blob: the store says so once the permit comes.
    EXPECT_EQ(Answered(deleter.Send(http::verb::delete_, "/blobs/default/none")).result_int(),
              404);
  });
  auto write_limiter = [&] {
    for (const metrics::LimiterSnapshot& s : server_->LimiterSnapshots()) {
      if (s.name == "write") return s;
    }
    return metrics::LimiterSnapshot();
  };
  ASSERT_TRUE(WaitFor([&] { return write_limiter().gauges->queue_length == 1; }, 10s));
  WriteRaw(*holder, "ok");
  EXPECT_EQ(Answered(holder->Read()).result_int(), 201);
  waiter.join();
  // The DELETE was the only acquire that waited; its duration holds its wait. The server
  // records a request's duration after writing its answer: wait for it to be counted.
  const double waited = static_cast<double>(write_limiter().queue_wait.sum) * 1e-9;
  EXPECT_GT(waited, 0);
  const std::string deletes = "blobtune_http_request_duration_seconds_count{method=\"DELETE\"}";
  ASSERT_TRUE(WaitFor([&] { return Sample(server_->MetricsText(), deletes) == 1; }, 10s));
  const std::string text = server_->MetricsText();
  EXPECT_GE(Sample(text, "blobtune_http_request_duration_seconds_sum{method=\"DELETE\"}"),
            waited);
}

TEST_F(BlobServerTest, ShutdownFinishesTheRequestInFlightAndClosesIdleConnections) {
  Start();
  BlockingHttpClient idle(port());
  EXPECT_EQ(Answered(idle.Send(http::verb::get, "/healthz")).result_int(), 200);
  BlockingHttpClient busy(port());
  // Half a request: the server is reading its body when the shutdown starts.
  WriteRaw(busy, "PUT /blobs/default/late HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nla");
  ASSERT_TRUE(WaitFor([&] { return WritePermitsHeld() == 1; }, 10s))
      << "the server never started on the half-sent PUT";
  server_->Shutdown();
  EXPECT_TRUE(idle.ServerClosed());
  WriteRaw(busy, "te");
  HttpResponse answer = Answered(busy.Read());
  EXPECT_EQ(answer.result_int(), 201);
  EXPECT_FALSE(answer.keep_alive());
  server_->Wait();
  const uint16_t old_port = port();
  server_.reset();
  // Nothing listens any more.
  EXPECT_EQ(BlockingHttpClient(old_port).Connect().code(), StatusCode::kUnavailable);
}

// Two sync PUTs hold both write permits, their bodies not sent yet. A reader's PUT, in a
// partition guaranteed one of the two, is stored at once; another sync PUT waits and is refused.
TEST_F(BlobServerTest, APartitionUnderItsShareIsServedWhileAnotherHoldsEveryPermit) {
  ServerOptions options;
  options.algorithm = "fixed:limit=2";
  options.wait_deadline = 50ms;
  options.partitions = {{.name = "sync", .share = 0.5},
                        {.name = "reader", .share = 0.5, .priority = 1}};
  options.namespace_partitions = {{"photos", "reader"}};
  Start(options);
  BlockingHttpClient first(port()), second(port());
  for (BlockingHttpClient* holder : {&first, &second}) {
    WriteRaw(*holder,
             "PUT /blobs/default/held HTTP/1.1\r\nHost: x\r\nBlobtune-Partition: sync\r\n"
             "Content-Length: 2\r\n\r\n");
  }
  ASSERT_TRUE(WaitFor([&] { return WritePermitsHeld() == 2; }, 10s));
  BlockingHttpClient client(port());
  examples::HttpRequest more_sync = MakeRequest(http::verb::put, "/blobs/default/s2", "x");
  more_sync.set("Blobtune-Partition", "sync");
  EXPECT_EQ(Answered(client.Send(std::move(more_sync))).result_int(), 503);
  examples::HttpRequest reader = MakeRequest(http::verb::put, "/blobs/default/r", "x");
  reader.set("Blobtune-Partition", "reader");
  EXPECT_EQ(Answered(client.Send(std::move(reader))).result_int(), 201);
  // A namespace mapped to the reader's partition needs no header.
  EXPECT_EQ(Answered(client.Send(http::verb::put, "/blobs/photos/p", "x")).result_int(), 201);
}

TEST_F(BlobServerTest, AnUnknownPartitionIs400NamingThePartitionsThereAre) {
  ServerOptions options;
  options.partitions = {{.name = "sync", .share = 0.5}, {.name = "reader", .share = 0.5}};
  Start(options);
  BlockingHttpClient client(port());
  examples::HttpRequest request = MakeRequest(http::verb::get, "/blobs/default/x");
  request.set("Blobtune-Partition", "bulk");
  HttpResponse answer = Answered(client.Send(std::move(request)));
  EXPECT_EQ(answer.result_int(), 400);
  EXPECT_NE(answer.body().find("unknown partition 'bulk'"), std::string::npos) << answer.body();
  EXPECT_NE(answer.body().find("this server has sync, reader"), std::string::npos) << answer.body();
}

}  // namespace
}  // namespace blobtune::server
