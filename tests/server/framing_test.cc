// How blobtune-server frames requests (RFC 9112 section 6): CheckFraming on parsed headers. The
// server's answers to the same requests over a socket are framing_server_test.cc's.
#include "framing.h"

#include <gtest/gtest.h>

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <optional>
#include <string_view>

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

}  // namespace
}  // namespace blobtune::server
