// blobtune-server's manners over a real socket: an unknown method is 501 with the method echoed
// escaped; HEAD is answered wherever GET is, with GET's header and no body; a PUT's answer
// carries the ETag a GET gives; a line ending in a bare LF or a folded header line is 400 saying
// so; every error body is a plain sentence without a canonical code name; every connection is
// counted by how it ended, and the series are there from the first scrape.
#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <chrono>
#include <memory>
#include <regex>
#include <string>
#include <string_view>
#include <thread>

#include "blob_server.h"
#include "common/blocking_http_client.h"
#include "common/temp_dir.h"
#include "short_timeout_server.h"

namespace blobtune::server {
namespace {

namespace http = boost::beast::http;
using blobtune::testing::TempDir;
using examples::BlockingHttpClient;
using examples::HttpResponse;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

class HttpMannersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = StartShortTimeoutServer(dir_.Sub("data"));
    ASSERT_NE(server_, nullptr);
  }

  HttpResponse Answered(StatusOr<HttpResponse> response) {
    EXPECT_TRUE(response.ok()) << response.status();
    return response.ok() ? *std::move(response) : HttpResponse();
  }

  // The one answer to the raw `request` on a connection of its own, which the server closes.
  HttpResponse RawAnswerThenClosed(std::string_view request) {
    BlockingHttpClient client(server_->port());
    EXPECT_TRUE(client.WriteRaw(request).ok());
    HttpResponse answer = Answered(client.Read());
    EXPECT_TRUE(client.ServerClosed()) << "a second answer came on the connection";
    return answer;
  }

  // The value of the series `name{labels}` in the server's exposition, or -1 when absent.
  double Series(std::string_view name_and_labels) {
    const std::string text = server_->MetricsText();
    const size_t at = text.find(std::string(name_and_labels) + " ");
    if (at == std::string::npos) return -1;
    return std::stod(text.substr(at + name_and_labels.size() + 1));
  }

  // Every connection counted as closed, whatever the reason.
  double ClosedConnections() {
    const std::string text = server_->MetricsText();
    const std::regex series("blobtune_http_connections_closed_total\\{[^}]*\\} (\\S+)");
    double total = 0;
    for (std::sregex_iterator it(text.begin(), text.end(), series), end; it != end; ++it) {
      total += std::stod((*it)[1]);
    }
    return total;
  }

  TempDir dir_{"blobtune-manners"};
  std::unique_ptr<BlobServer> server_;
};

TEST_F(HttpMannersTest, AnUnknownMethodIs501WithTheMethodEchoedEscaped) {
  BlockingHttpClient client(server_->port());
  ASSERT_TRUE(client.WriteRaw("BREW /blobs/default/x HTTP/1.1\r\nHost: x\r\n\r\n").ok());
  HttpResponse brew = Answered(client.Read());
  EXPECT_EQ(brew.result_int(), 501);
  EXPECT_THAT(brew.body(), HasSubstr("method 'BREW' is not implemented"));
  EXPECT_THAT(brew.body(), Not(HasSubstr("<unknown>")));
  // The connection goes on: the request had no body.
  HttpResponse health = Answered(client.Send(http::verb::get, "/healthz"));
  EXPECT_EQ(health.result_int(), 200);

  // A method Beast knows that this path does not take is 405, echoed the same way.
  HttpResponse post = Answered(client.Send(http::verb::post, "/metrics"));
  EXPECT_EQ(post.result_int(), 405);
  EXPECT_THAT(post.body(), HasSubstr("method 'POST' is not allowed here; allowed: GET, HEAD"));
  EXPECT_EQ(post[http::field::allow], "GET, HEAD");
}

TEST_F(HttpMannersTest, HeadIsAnsweredWhereverGetIsWithGetsHeaderAndNoBody) {
  BlockingHttpClient client(server_->port());
  ASSERT_EQ(Answered(client.Send(http::verb::put, "/blobs/default/a", "abc")).result_int(), 201);
  for (const char* target : {"/metrics", "/status", "/blobs/default", "/healthz",
                             "/blobs/default/a"}) {
    HttpResponse get = Answered(client.Send(http::verb::get, target));
    HttpResponse head = Answered(client.Send(http::verb::head, target));
    EXPECT_EQ(get.result_int(), 200) << target;
    EXPECT_EQ(head.result_int(), 200) << target;
    EXPECT_EQ(head[http::field::content_type], get[http::field::content_type]) << target;
    EXPECT_TRUE(head.body().empty()) << target;
    EXPECT_FALSE(head[http::field::content_length].empty()) << target;
  }
  // The listing's and the blob's lengths are exactly GET's (the metrics' and the page's change
  // between two requests).
  for (const char* target : {"/blobs/default", "/blobs/default/a"}) {
    HttpResponse get = Answered(client.Send(http::verb::get, target));
    HttpResponse head = Answered(client.Send(http::verb::head, target));
    EXPECT_EQ(head[http::field::content_length], std::to_string(get.body().size())) << target;
  }
  HttpResponse put_metrics = Answered(client.Send(http::verb::delete_, "/status"));
  EXPECT_EQ(put_metrics.result_int(), 405);
  EXPECT_EQ(put_metrics[http::field::allow], "GET, HEAD");
  HttpResponse delete_list = Answered(client.Send(http::verb::delete_, "/blobs/default"));
  EXPECT_EQ(delete_list[http::field::allow], "GET, HEAD");
}

TEST_F(HttpMannersTest, APutsAnswerCarriesTheETagAGetGives) {
  BlockingHttpClient client(server_->port());
  HttpResponse created = Answered(client.Send(http::verb::put, "/blobs/default/e", "first"));
  ASSERT_EQ(created.result_int(), 201);
  HttpResponse got = Answered(client.Send(http::verb::get, "/blobs/default/e"));
  EXPECT_FALSE(created[http::field::etag].empty());
  EXPECT_EQ(created[http::field::etag], got[http::field::etag]);

  HttpResponse replaced = Answered(client.Send(http::verb::put, "/blobs/default/e", "second"));
  ASSERT_EQ(replaced.result_int(), 200);
  EXPECT_NE(replaced[http::field::etag], created[http::field::etag]);
  // The ETag a PUT answered is good for the next conditional write, without a HEAD first.
  examples::HttpRequest conditional =
      examples::MakeRequest(http::verb::put, "/blobs/default/e", "third");
  conditional.set(http::field::if_match, std::string(replaced[http::field::etag]));
  HttpResponse third = Answered(client.Send(std::move(conditional)));
  EXPECT_EQ(third.result_int(), 200);
  EXPECT_EQ(third[http::field::etag],
            Answered(client.Send(http::verb::head, "/blobs/default/e"))[http::field::etag]);
}

TEST_F(HttpMannersTest, ABareLineFeedIs400SayingLinesEndInCrlf) {
  // Request line, a header line, every line: each is refused at once, not after a timeout.
  for (const char* request : {"GET /healthz HTTP/1.1\nHost: x\r\n\r\n",
                              "GET /healthz HTTP/1.1\r\nHost: x\n\r\n",
                              "GET /healthz HTTP/1.1\nHost: x\n\n"}) {
    const auto started = std::chrono::steady_clock::now();
    HttpResponse answer = RawAnswerThenClosed(request);
    EXPECT_EQ(answer.result_int(), 400) << request;
    EXPECT_THAT(answer.body(), HasSubstr("must end in CRLF")) << request;
    EXPECT_THAT(answer.body(), Not(HasSubstr("bad version")));
    EXPECT_LT(std::chrono::steady_clock::now() - started, 250ms) << "waited for a timeout";
  }
  HttpResponse folded = RawAnswerThenClosed("GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n 2\r\n\r\n");
  EXPECT_EQ(folded.result_int(), 400);
  EXPECT_THAT(folded.body(), HasSubstr("obs-fold"));
}

TEST_F(HttpMannersTest, EveryErrorBodyIsAPlainSentenceWithoutACodeName) {
  BlockingHttpClient client(server_->port());
  const std::regex code_name("^[A-Z_]+: ");
  for (const char* target : {"/blobs/default/missing", "/blobs/other/x", "/nowhere",
                             "/blobs/default/a*b", "/blobs/default?colour=red"}) {
    HttpResponse answer = Answered(client.Send(http::verb::get, target));
    EXPECT_GE(answer.result_int(), 400) << target;
    EXPECT_FALSE(std::regex_search(answer.body(), code_name)) << target << ": " << answer.body();
    EXPECT_EQ(answer.body().find('\n'), answer.body().size() - 1) << "one line: " << target;
  }
  HttpResponse missing = Answered(client.Send(http::verb::get, "/blobs/default/missing"));
  EXPECT_EQ(missing.result_int(), 404);
  EXPECT_EQ(missing.body(), "blob 'missing' in namespace 'default' does not exist\n");
  HttpResponse no_namespace = Answered(client.Send(http::verb::get, "/blobs/other/x"));
  EXPECT_EQ(no_namespace.body(), "unknown namespace 'other'; this server has: default\n");
}

TEST_F(HttpMannersTest, EveryConnectionIsCountedByHowItEndedFromTheFirstScrape) {
  // Before any connection: every reason and every kind of timeout, at 0.
  for (const char* reason : {"client_closed", "client_asked_close", "body_not_read",
                             "idle_timeout", "header_timeout", "body_timeout", "write_timeout",
                             "framing_error", "malformed", "refused_over_cap", "shutdown",
                             "error"}) {
    EXPECT_EQ(Series("blobtune_http_connections_closed_total{reason=\"" + std::string(reason) +
                     "\"}"),
              0)
        << reason;
  }
  for (const char* kind : {"idle", "header", "body", "write"}) {
    EXPECT_EQ(Series("blobtune_http_timeouts_total{kind=\"" + std::string(kind) + "\"}"), 0)
        << kind;
  }

  {
    BlockingHttpClient client(server_->port());
    ASSERT_EQ(Answered(client.Send(http::verb::get, "/healthz")).result_int(), 200);
  }  // Closed by the client.
  RawAnswerThenClosed("PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
                      "Transfer-Encoding: chunked\r\n\r\n");  // Beast's: malformed.
  RawAnswerThenClosed("PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\n"
                      "Transfer-Encoding: gzip\r\n\r\n");
  RawAnswerThenClosed("GET /healthz HTTP/1.1\nHost: x\n\n");
  RawAnswerThenClosed("GET /healthz HTTP/1.1\r\nHost: x\r\n");  // Header timeout.
  RawAnswerThenClosed("PUT /blobs/default/s HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\nab");
  RawAnswerThenClosed("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  RawAnswerThenClosed("GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab");
  {
    BlockingHttpClient idle(server_->port());
    ASSERT_TRUE(idle.Connect().ok());
    EXPECT_TRUE(idle.ServerClosed());  // Idle past the header timeout.
  }
  // The server counts a connection once it has closed it: nine connections, each once.
  const auto deadline = std::chrono::steady_clock::now() + 3s;
  while (ClosedConnections() < 9 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(ClosedConnections(), 9);
  EXPECT_EQ(Series("blobtune_http_connections_closed_total{reason=\"client_closed\"}"), 1);
  EXPECT_EQ(Series("blobtune_http_connections_closed_total{reason=\"malformed\"}"), 2);
  EXPECT_EQ(Series("blobtune_http_connections_closed_total{reason=\"framing_error\"}"), 1);
  EXPECT_EQ(Series("blobtune_http_connections_closed_total{reason=\"header_timeout\"}"), 1);
  EXPECT_EQ(Series("blobtune_http_connections_closed_total{reason=\"body_timeout\"}"), 1);
  EXPECT_EQ(Series("blobtune_http_connections_closed_total{reason=\"client_asked_close\"}"), 1);
  EXPECT_EQ(Series("blobtune_http_connections_closed_total{reason=\"body_not_read\"}"), 1);
  EXPECT_EQ(Series("blobtune_http_connections_closed_total{reason=\"idle_timeout\"}"), 1);
  EXPECT_EQ(Series("blobtune_http_timeouts_total{kind=\"idle\"}"), 1);
  EXPECT_EQ(Series("blobtune_http_timeouts_total{kind=\"header\"}"), 1);
  EXPECT_EQ(Series("blobtune_http_timeouts_total{kind=\"body\"}"), 1);
}

TEST_F(HttpMannersTest, AFreshServersFirstScrapeHasTheDashboardsSeries) {
  const std::string text = server_->MetricsText();
  for (const char* series : {"blobtune_limiter_recent_latency_seconds{limiter=\"read\"}",
                             "blobtune_limiter_recent_latency_seconds{limiter=\"write\"}",
                             "blobtune_store_errors_total{store=\"blobs\",op=\"put\","
                             "code=\"RESOURCE_EXHAUSTED\"}",
                             "blobtune_store_errors_total{store=\"blobs\",op=\"get\","
                             "code=\"NOT_FOUND\"}",
                             "blobtune_store_errors_total{store=\"blobs\",op=\"list\","
                             "code=\"INTERNAL\"}"}) {
    EXPECT_THAT(text, HasSubstr(std::string(series) + " 0\n")) << series;
  }
  EXPECT_THAT(text, Not(HasSubstr("NaN")));
}

}  // namespace
}  // namespace blobtune::server
