// How blobtune-server frames requests (RFC 9112 section 6): CheckFraming on parsed headers. The
// server's answers to the same requests over a socket are framing_server_test.cc's.
#include "framing.h"
#include "reference_framer.h"

#include <gtest/gtest.h>

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blobtune::server {
namespace {

namespace http = boost::beast::http;

// CheckFraming's status for the request header `text` (0: accepted), or -1 when Beast's parser
// refuses the header before CheckFraming would see it.
int FramingStatus(std::string_view text) {
  http::request_parser<http::empty_body> parser;
  boost::system::error_code ec;
  parser.put(boost::asio::buffer(text.data(), text.size()), ec);
  if (ec || !parser.is_header_done()) return -1;
  const std::optional<FramingRefusal> refusal = CheckFraming(parser.get());
  return refusal ? static_cast<int>(refusal->status) : 0;
}

TEST(CheckFramingTest, AcceptsContentLengthChunkedAndRequestsWithoutBodies) {
  EXPECT_EQ(FramingStatus("PUT /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n"), 0);
  EXPECT_EQ(FramingStatus("PUT /b HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"), 0);
  EXPECT_EQ(FramingStatus("PUT /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"), 0);
  EXPECT_EQ(FramingStatus("PUT /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:  Chunked \r\n\r\n"), 0);
  EXPECT_EQ(FramingStatus("GET /b HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
  EXPECT_EQ(FramingStatus("GET /b HTTP/1.0\r\n\r\n"), 0);  // HTTP/1.0 needs no Host.
  EXPECT_EQ(FramingStatus("DELETE /b HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
}

TEST(CheckFramingTest, RefusesTransferEncodingThatDoesNotEndWithChunked) {
  EXPECT_EQ(FramingStatus("PUT /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n"), 400);
  EXPECT_EQ(FramingStatus("GET /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n"), 400);
  EXPECT_EQ(FramingStatus("PUT /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n"),
            400);
  EXPECT_EQ(FramingStatus("PUT /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked;x=1\r\n\r\n"),
            400);
  EXPECT_EQ(FramingStatus("PUT /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: ,\r\n\r\n"), 400);
  EXPECT_EQ(FramingStatus("PUT /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n"),
            400);
}

TEST(CheckFramingTest, RefusesTransferEncodingWithContentLengthInEitherOrder) {
  // Beast refuses a Transfer-Encoding after a Content-Length itself; the other order is ours.
  EXPECT_EQ(FramingStatus("PUT /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n"
                          "Content-Length: 5\r\n\r\n"),
            400);
  EXPECT_EQ(FramingStatus("PUT /b HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                          "Transfer-Encoding: gzip\r\n\r\n"),
            -1);
}

TEST(CheckFramingTest, OtherCodingsBeforeChunkedAreNotImplemented) {
  EXPECT_EQ(FramingStatus("PUT /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"),
            501);
  EXPECT_EQ(FramingStatus("PUT /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n"
                          "Transfer-Encoding: chunked\r\n\r\n"),
            501);
}

TEST(CheckFramingTest, RefusesTransferEncodingInHttp10) {
  EXPECT_EQ(FramingStatus("PUT /b HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"), 400);
}

TEST(CheckFramingTest, Http11NeedsExactlyOneHost) {
  EXPECT_EQ(FramingStatus("GET /b HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(FramingStatus("GET /b HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"), 400);
}

TEST(CheckFramingTest, APutWithoutFramingIsLengthRequired) {
  EXPECT_EQ(FramingStatus("PUT /b HTTP/1.1\r\nHost: x\r\n\r\n"), 411);
}

TEST(CheckFramingTest, TheMessageQuotesWhatWasSentWithoutItsControlBytes) {
  http::request_parser<http::empty_body> parser;
  const std::string_view text =
      "PUT /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: x\x80'y\r\n\r\n";
  boost::system::error_code ec;
  parser.put(boost::asio::buffer(text.data(), text.size()), ec);
  ASSERT_FALSE(ec) << ec.message();
  const std::optional<FramingRefusal> refusal = CheckFraming(parser.get());
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->message, "Transfer-Encoding must end with chunked, got 'x\\x80\\x27y'");
}

// The status of CheckHeaderLines for header bytes received so far (0: nothing wrong yet).
int LinesStatus(std::string_view received) {
  const std::optional<FramingRefusal> refusal = CheckHeaderLines(received);
  return refusal ? static_cast<int>(refusal->status) : 0;
}

TEST(CheckHeaderLinesTest, EveryLineMustEndInCrlfAndNoneBeFolded) {
  EXPECT_EQ(LinesStatus("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
  EXPECT_EQ(LinesStatus("GET / HTTP/1.1\r"), 0);  // Its LF may be on its way.
  EXPECT_EQ(LinesStatus("GET / HTTP/1.1\r\nHost: x\r\n"), 0);
  EXPECT_EQ(LinesStatus("GET / HTTP/1.1\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(LinesStatus("GET / HTTP/1.1\r\nHost: x\n"), 400);
  EXPECT_EQ(LinesStatus("GET / HTTP/1.1\r\nHost: x\r\n\n"), 400);
  EXPECT_EQ(LinesStatus("GET / HTTP/1.1\r\nHost: x\rY: z\r\n\r\n"), 400);
  EXPECT_EQ(LinesStatus("GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n"), 400);
  EXPECT_EQ(LinesStatus("GET / HTTP/1.1\r\n Host: x\r\n\r\n"), 400);
  // The body after the header is not looked at.
  EXPECT_EQ(LinesStatus("PUT / HTTP/1.1\r\nContent-Length: 2\r\n\r\n\n\n"), 0);
  const std::optional<FramingRefusal> bare = CheckHeaderLines("GET / HTTP/1.1\nHost: x\n\n");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->message,
            "a bare LF at byte 14: the request line and header lines must end in CRLF");
}

TEST(FrameRequestsTest, FramesPipelinedRequestsByLengthAndChunks) {
  const std::string_view stream =
      "PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
      "PUT /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nde\r\n0\r\n\r\n"
      "GET /c HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /d HTTP/1.1\r\nHost";
  const std::vector<FramedRequest> requests = FrameRequests(stream, 1024);
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0].outcome, FramedRequest::Outcome::kRequest);
  EXPECT_EQ(requests[0].target, "/a");
  EXPECT_EQ(requests[0].body_size, 3u);
  EXPECT_EQ(requests[1].target, "/b");
  EXPECT_EQ(requests[1].body_size, 2u);
  EXPECT_EQ(requests[2].method, "GET");
  EXPECT_EQ(requests[2].target, "/c");
  EXPECT_EQ(requests[3].outcome, FramedRequest::Outcome::kIncomplete);
}

TEST(FrameRequestsTest, StopsAtTheFirstRefusal) {
  const std::string_view smuggled = "DELETE /victim HTTP/1.1\r\nHost: x\r\n\r\n";
  for (std::string_view first :
       {"PUT /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
        "PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
        "PUT /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        // A bare LF inside a quoted chunk extension: Beast alone would take it.
        "PUT /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        "3;a=\"b\nc\"\r\nabc\r\n0\r\n\r\n",
        "PUT /a HTTP/1.1\nHost: x\nContent-Length: 0\n\n",
        "PUT /a HTTP/1.1\r\nHost: x\r\n\r\n",
        "PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2000\r\n\r\n"}) {
    const std::vector<FramedRequest> requests =
        FrameRequests(std::string(first) + std::string(smuggled), 1024);
    ASSERT_EQ(requests.size(), 1u) << first;
    EXPECT_EQ(requests[0].outcome, FramedRequest::Outcome::kRefused) << first;
  }
}

// The fuzzer's oracle (reference_framer.h) on the cases it exists for: it frames what the server
// frames at the same byte, and calls ambiguous what the server refuses.
TEST(ReferenceFramerTest, EndsRequestsWhereTheServerDoesAndFindsTheSmugglingCasesAmbiguous) {
  using reference::FrameByRfc9112;
  using reference::ReferenceOutcome;
  const std::string_view stream =
      "PUT /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3;n=\"v;w\"\r\nabc\r\n0\r\nX-T: 1\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::vector<FramedRequest> server = FrameRequests(stream, 1024);
  ASSERT_EQ(server.size(), 2u);
  const reference::ReferenceFrame first = FrameByRfc9112(stream, kHeaderLimit);
  EXPECT_EQ(first.outcome, ReferenceOutcome::kRequest);
  EXPECT_EQ(first.size, server[0].size);
  EXPECT_EQ(FrameByRfc9112(stream.substr(first.size), kHeaderLimit).size, server[1].size);

  for (std::string_view ambiguous :
       {"PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
        "PUT /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
        "PUT /a HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "PUT /a HTTP/1.1\nHost: x\nContent-Length: 0\n\n",
        "PUT /a HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n",
        "PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length : 3\r\n\r\nabc",
        "PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
        "PUT /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n"}) {
    EXPECT_EQ(FrameByRfc9112(ambiguous, kHeaderLimit).outcome, ReferenceOutcome::kAmbiguous)
        << ambiguous;
    const std::vector<FramedRequest> refused = FrameRequests(ambiguous, 1024);
    ASSERT_FALSE(refused.empty());
    EXPECT_EQ(refused[0].outcome, FramedRequest::Outcome::kRefused) << ambiguous;
  }
}

// Content-Length is 1*DIGIT (RFC 9110 8.6): leading zeros, however many, are part of a number
// both framers read alike; only a value past 64 bits is refused.
TEST(ReferenceFramerTest, ContentLengthWithLeadingZerosIsANumberAndOverflowIsRefused) {
  using reference::FrameByRfc9112;
  using reference::ReferenceOutcome;
  const std::string_view zeros =
      "PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
      "Content-Length: 000000000000000000000000000003\r\n\r\nabc"
      "GET /b HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::vector<FramedRequest> server = FrameRequests(zeros, 1024);
  ASSERT_EQ(server.size(), 2u);
  EXPECT_EQ(server[0].body_size, 3u);
  EXPECT_EQ(server[1].target, "/b");
  // The reference ends the first request where the server does (an ambiguous one has size 0).
  EXPECT_EQ(FrameByRfc9112(zeros, kHeaderLimit).size, server[0].size);

  const std::string_view overflow =
      "PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 18446744073709551616\r\n\r\nabc";
  EXPECT_EQ(FrameByRfc9112(overflow, kHeaderLimit).outcome, ReferenceOutcome::kAmbiguous);
  EXPECT_EQ(FrameByRfc9112(overflow, kHeaderLimit).why, "a Content-Length over 64 bits");
  const std::vector<FramedRequest> refused = FrameRequests(overflow, 1024);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].outcome, FramedRequest::Outcome::kRefused);
}

}  // namespace
}  // namespace blobtune::server
