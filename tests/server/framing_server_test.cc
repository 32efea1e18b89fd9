// blobtune-server over a real socket, framing by RFC 9112 section 6: every ambiguous request is
// answered once with its status and its connection closed, and nothing sent after it, as its
// body or as a request behind it, is ever executed (request smuggling); a header or body that
// stops coming is 408.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "blob_server.h"
#include "common/blocking_http_client.h"
#include "common/temp_dir.h"
#include "short_timeout_server.h"

namespace blobtune::server {
namespace {

namespace http = boost::beast::http;
using blobtune::testing::TempDir;
using examples::BlockingHttpClient;
using namespace std::chrono_literals;

// The server over a socket: a blob named "victim" exists, and every case sends its request with
// "DELETE /blobs/default/victim" behind it, inside what a server that frames the request wrongly
// would take for its body or for the next request.
class FramingServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = StartShortTimeoutServer(dir_.Sub("data"));
    ASSERT_NE(server_, nullptr);
    BlockingHttpClient client(server_->port());
    StatusOr<examples::HttpResponse> put =
        client.Send(http::verb::put, "/blobs/default/victim", "still here");
    ASSERT_TRUE(put.ok()) << put.status();
    ASSERT_EQ(put->result_int(), 201);
  }

  // Sends `request` and the smuggled DELETE on one connection; expects one answer with
  // `status`, then the connection closed by the server, and the victim intact.
  void ExpectOneAnswerThenClosed(std::string_view request, int status) {
    static constexpr std::string_view kSmuggled =
        "DELETE /blobs/default/victim HTTP/1.1\r\nHost: x\r\n\r\n";
    BlockingHttpClient client(server_->port());
    ASSERT_TRUE(client.WriteRaw(std::string(request) + std::string(kSmuggled)).ok());
    StatusOr<examples::HttpResponse> answer = client.Read();
    ASSERT_TRUE(answer.ok()) << answer.status();
    EXPECT_EQ(answer->result_int(), status) << answer->body();
    EXPECT_FALSE(answer->keep_alive());
    EXPECT_TRUE(client.ServerClosed()) << "a second answer came on the connection";
    ExpectVictimIntact();
  }

  void ExpectVictimIntact() {
    BlockingHttpClient reader(server_->port());
    StatusOr<examples::HttpResponse> get = reader.Send(http::verb::get, "/blobs/default/victim");
    ASSERT_TRUE(get.ok()) << get.status();
    EXPECT_EQ(get->result_int(), 200);
    EXPECT_EQ(get->body(), "still here");
  }

  TempDir dir_{"blobtune-framing"};
  std::unique_ptr<BlobServer> server_;
};

TEST_F(FramingServerTest, ANonChunkedTransferEncodingIs400AndItsBodyIsNeverARequest) {
  ExpectOneAnswerThenClosed("PUT /blobs/default/te HTTP/1.1\r\nHost: x\r\n"
                            "Transfer-Encoding: gzip\r\n\r\n",
                            400);
  ExpectOneAnswerThenClosed("GET /blobs/default/te HTTP/1.1\r\nHost: x\r\n"
                            "Transfer-Encoding: identity\r\n\r\n",
                            400);
  // The PUT stored nothing.
  BlockingHttpClient client(server_->port());
  StatusOr<examples::HttpResponse> get = client.Send(http::verb::get, "/blobs/default/te");
  ASSERT_TRUE(get.ok()) << get.status();
  EXPECT_EQ(get->result_int(), 404);
}

TEST_F(FramingServerTest, TransferEncodingWithContentLengthIs400InEitherOrder) {
  ExpectOneAnswerThenClosed("PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                            "Transfer-Encoding: gzip\r\n\r\nabc",
                            400);
  ExpectOneAnswerThenClosed("PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\n"
                            "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc",
                            400);
  ExpectOneAnswerThenClosed("PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\n"
                            "Transfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabc",
                            400);
}

TEST_F(FramingServerTest, UnsupportedOrRepeatedCodingsAreRefused) {
  ExpectOneAnswerThenClosed("PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\n"
                            "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
                            501);
  ExpectOneAnswerThenClosed("PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\n"
                            "Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
                            400);
  ExpectOneAnswerThenClosed("PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\n"
                            "Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n",
                            400);
  ExpectOneAnswerThenClosed("PUT /blobs/default/a HTTP/1.0\r\n"
                            "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
                            400);
}

TEST_F(FramingServerTest, AMalformedChunkIs400) {
  ExpectOneAnswerThenClosed("PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\n"
                            "Transfer-Encoding: chunked\r\n\r\nzz\r\n",
                            400);
  ExpectOneAnswerThenClosed("PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\n"
                            "Transfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n",
                            400);
  ExpectOneAnswerThenClosed("PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\n"
                            "Transfer-Encoding: chunked\r\n\r\n3;q=\"a\nb\"\r\nabc\r\n0\r\n\r\n",
                            400);
}

TEST_F(FramingServerTest, MissingHostIs400AndAPutWithoutLengthIs411) {
  ExpectOneAnswerThenClosed("GET /blobs/default/victim HTTP/1.1\r\n\r\n", 400);
  ExpectOneAnswerThenClosed("PUT /blobs/default/a HTTP/1.1\r\nHost: x\r\n\r\n", 411);
}

TEST_F(FramingServerTest, AChunkedPutIsStoredAndTheRequestBehindItIsServed) {
  BlockingHttpClient client(server_->port());
  ASSERT_TRUE(client
                  .WriteRaw("PUT /blobs/default/c HTTP/1.1\r\nHost: x\r\n"
                            "Transfer-Encoding: Chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
                            "GET /blobs/default/c HTTP/1.1\r\nHost: x\r\n\r\n")
                  .ok());
  StatusOr<examples::HttpResponse> put = client.Read();
  ASSERT_TRUE(put.ok()) << put.status();
  EXPECT_EQ(put->result_int(), 201);
  StatusOr<examples::HttpResponse> get = client.Read();
  ASSERT_TRUE(get.ok()) << get.status();
  EXPECT_EQ(get->result_int(), 200);
  EXPECT_EQ(get->body(), "abcde");
}

TEST_F(FramingServerTest, AHeaderOrBodyThatStopsComingIs408ThenClosed) {
  {
    BlockingHttpClient client(server_->port());
    ASSERT_TRUE(client.WriteRaw("GET /blobs/default/victim HTTP/1.1\r\nHost: x\r\n").ok());
    StatusOr<examples::HttpResponse> answer = client.Read();
    ASSERT_TRUE(answer.ok()) << answer.status();
    EXPECT_EQ(answer->result_int(), 408);
    EXPECT_TRUE(client.ServerClosed());
  }
  BlockingHttpClient client(server_->port());
  ASSERT_TRUE(client
                  .WriteRaw("PUT /blobs/default/slow HTTP/1.1\r\nHost: x\r\n"
                            "Content-Length: 10\r\n\r\nabc")
                  .ok());
  StatusOr<examples::HttpResponse> answer = client.Read();
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->result_int(), 408);
  EXPECT_TRUE(client.ServerClosed());
}

}  // namespace
}  // namespace blobtune::server
