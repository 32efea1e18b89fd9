// How a request's body is delimited, decided from its header alone by RFC 9112 section 6, before
// the request is routed or anything of it is done. A request whose framing is ambiguous is
// refused and its connection closed: were the server to frame it one way and a proxy in front
// of it another, the bytes one of them takes for a body would be a request to the other
// (request smuggling).
//
//   std::optional<FramingRefusal> refusal = CheckFraming(parser.get());
//   if (refusal) ...  // answer refusal->status with refusal->message, then close
//
// One way to frame a request: the connection (connection.cc) and FrameRequest() below, which
// frames a byte stream without a socket for the fuzzer (tests/server/request_fuzzer.cc), build
// their parsers with ConfigureHeaderParser/ConfigureBodyParser, check the header bytes received
// with CheckHeaderLines, map the parser's errors with RefusalOfHeaderError, and check the parsed
// header with CheckFraming.
//
// Refused (and the connection closed after the answer):
//   Transfer-Encoding with Content-Length                        400 (RFC 9112 6.1, 6.3)
//   Transfer-Encoding whose final coding is not chunked          400 (RFC 9112 6.3)
//   chunked applied more than once                               400 (RFC 9112 6.1)
//   Transfer-Encoding in an HTTP/1.0 request                     400 (RFC 9112 6.1)
//   a transfer coding other than chunked (gzip, chunked)         501 (RFC 9112 6.1)
//   an HTTP/1.1 request without exactly one Host                 400 (RFC 9112 3.2)
//   a PUT with neither Content-Length nor chunked                411 (RFC 9110 15.5.12)
//   a request line or header line ending in a bare LF            400 (RFC 9112 2.2)
//   a header line continued on the next (obs-fold)               400 (RFC 9112 5.2)
//   a header over kHeaderLimit bytes                             431 (RFC 6585 5)
//   a chunk extension with a control byte (CR, LF, NUL)          400 (RFC 9112 7.1.1)
// Beast's parser refuses the rest before this is called: two Content-Lengths that differ, a
// Content-Length that is not a number, a Transfer-Encoding after a chunked one.
//
// Thread-safety: stateless functions, safe from any thread.
#ifndef BLOBTUNE_EXAMPLES_SERVER_FRAMING_H_
#define BLOBTUNE_EXAMPLES_SERVER_FRAMING_H_

#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/fields.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/optional/optional.hpp>
#include <boost/system/error_code.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blobtune::server {

// Why a request is refused: the status to answer and what was wrong. The connection closes
// after the answer, since the end of the refused request is not known.
struct FramingRefusal {
  boost::beast::http::status status;
  std::string message;
};

// Nothing when `header`'s framing is unambiguous and supported; otherwise the refusal.
std::optional<FramingRefusal> CheckFraming(const boost::beast::http::request_header<>& header);

// Largest request header (request line and fields) accepted; more gets 431.
inline constexpr uint32_t kHeaderLimit = 16 * 1024;

// A request body as bytes: Beast's vector_body<std::byte> for parsing, without its
// &body[0] of an empty vector (undefined behaviour when Beast hands it an empty buffer).
struct RequestBody {
  using value_type = std::vector<std::byte>;

  static uint64_t size(const value_type& body) { return body.size(); }

  class reader {
   public:
    template <bool isRequest, class Fields>
    reader(boost::beast::http::header<isRequest, Fields>&, value_type& body) : body_(body) {}

    void init(const boost::optional<uint64_t>& length, boost::system::error_code& ec) {
      // A declared length is reserved at once (the server has checked it against its limit).
      if (length) body_.reserve(static_cast<size_t>(*length));
      ec = {};
    }

    template <class ConstBufferSequence>
    size_t put(const ConstBufferSequence& buffers, boost::system::error_code& ec) {
      const size_t n = boost::asio::buffer_size(buffers);
      const size_t old_size = body_.size();
      ec = {};
      if (n == 0) return 0;
      body_.resize(old_size + n);
      return boost::asio::buffer_copy(boost::asio::buffer(body_.data() + old_size, n), buffers);
    }

    void finish(boost::system::error_code& ec) { ec = {}; }

   private:
    value_type& body_;
  };
};

using HeaderParser = boost::beast::http::request_parser<boost::beast::http::empty_body>;
using BodyParser = boost::beast::http::request_parser<RequestBody>;

// Sets a new request's header parser to the server's limits: kHeaderLimit for the header, no
// limit of Beast's on the body (the server checks a body's size itself).
void ConfigureHeaderParser(HeaderParser& parser);
// Sets a body parser (built from a header parser) to take at most `max_body_bytes`, and to
// refuse a chunk extension with a control byte (a CR or LF inside a quoted string), which Beast
// alone would take.
void ConfigureBodyParser(BodyParser& parser, uint64_t max_body_bytes);

// What is wrong with the line endings of a request header of which `received` has arrived so far
// (from the request's first byte; the header may not be whole yet): a bare LF (a line must end
// in CRLF) or an obs-fold. Nothing while every line so far ends in CRLF and none is folded.
// Beast waits for CRLF CRLF before it looks at a header, so without this a header of bare LFs
// would wait for the header timeout.
std::optional<FramingRefusal> CheckHeaderLines(std::string_view received);

// The answer to a header Beast's parser refused with `ec`: 431 over kHeaderLimit, else 400 saying
// what was wrong. Nothing for the errors that end a stream (the client went away: nobody to
// answer) or that are not the parser's.
std::optional<FramingRefusal> RefusalOfHeaderError(const boost::system::error_code& ec);

// One request framed from the start of a byte stream the way the server frames it: its header
// read and checked as above, its body delimited by Content-Length or chunked.
struct FramedRequest {
  enum class Outcome {
    kRequest,     // A whole request: `size` bytes, header and body.
    kRefused,     // The server answers `refusal` and reads nothing more on the connection.
    kIncomplete,  // The bytes end before the request does.
  };
  Outcome outcome = Outcome::kIncomplete;
  size_t size = 0;                       // kRequest: header and body bytes.
  size_t body_size = 0;                  // kRequest: the body's bytes after decoding.
  std::string method;                    // kRequest: as sent.
  std::string target;                    // kRequest.
  std::optional<FramingRefusal> refusal;  // kRefused.
};

// The request at the start of `stream`, framed as the server frames one (a body of at most
// `max_body_bytes`, more is 413). Pure: no socket, no state.
FramedRequest FrameRequest(std::string_view stream, uint64_t max_body_bytes);

// Every request of `stream`, in order, up to and including the first that is refused or
// incomplete.
std::vector<FramedRequest> FrameRequests(std::string_view stream, uint64_t max_body_bytes);

}  // namespace blobtune::server

#endif  // BLOBTUNE_EXAMPLES_SERVER_FRAMING_H_
