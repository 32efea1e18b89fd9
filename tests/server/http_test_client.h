// Blocking HTTP helpers for the server tests: one keep-alive connection with Beast, and raw
// bytes for requests a well-behaved client would never send.
//
//   TestClient client(port);
//   auto response = client.Send(http::verb::put, "/blobs/default/a", "bytes");
//   EXPECT_EQ(response.result_int(), 201);
//
// Thread-safety: a TestClient belongs to one thread.
#ifndef BLOBTUNE_TESTS_SERVER_HTTP_TEST_CLIENT_H_
#define BLOBTUNE_TESTS_SERVER_HTTP_TEST_CLIENT_H_

#include <utility>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <cstdint>
#include <string>
#include <string_view>

namespace blobtune::testing {

namespace http = boost::beast::http;
using HttpResponse = http::response<http::string_body>;

class TestClient {
 public:
  explicit TestClient(uint16_t port) : socket_(io_) {
    socket_.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  }
  TestClient(const TestClient&) = delete;
  TestClient& operator=(const TestClient&) = delete;

  // Sends one request and reads the answer; throws boost::system::system_error on transport
  // errors (the tests treat that as a closed connection).
  HttpResponse Send(http::verb verb, std::string_view target, std::string body = {},
                    std::string_view expect = {}) {
    http::request<http::string_body> request{verb, std::string(target), 11};
    request.set(http::field::host, "127.0.0.1");
    if (!expect.empty()) request.set(http::field::expect, std::string(expect));
    request.body() = std::move(body);
    if (verb == http::verb::put || !request.body().empty()) request.prepare_payload();
    http::write(socket_, request);
    return Read(verb == http::verb::head);
  }

  // Writes raw bytes as they are.
  void WriteRaw(std::string_view bytes) { boost::asio::write(socket_, boost::asio::buffer(bytes)); }

  HttpResponse Read(bool head = false) {
    http::response_parser<http::string_body> parser;
    parser.skip(head);
    parser.body_limit(uint64_t{1} << 30);
    http::read(socket_, buffer_, parser);
    return parser.release();
  }

  // True when the server has closed the connection (a read sees EOF or a reset).
  bool ServerClosed() {
    char byte;
    boost::system::error_code ec;
    socket_.read_some(boost::asio::buffer(&byte, 1), ec);
    return ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset;
  }

  boost::asio::ip::tcp::socket& socket() { return socket_; }

 private:
  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
  boost::beast::flat_buffer buffer_;
};

}  // namespace blobtune::testing

#endif  // BLOBTUNE_TESTS_SERVER_HTTP_TEST_CLIENT_H_
