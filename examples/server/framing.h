// How a request's body is delimited, decided from its header alone by RFC 9112 section 6, before
// the request is routed or anything of it is done. A request whose framing is ambiguous is
// refused and its connection closed: were the server to frame it one way and a proxy in front
// of it another, the bytes one of them takes for a body would be a request to the other
// (request smuggling).
//
//   std::optional<FramingRefusal> refusal = CheckFraming(parser.get());
//   if (refusal) ...  // answer refusal->status with refusal->message, then close
//
// Refused (and the connection closed after the answer):
//   Transfer-Encoding with Content-Length                        400 (RFC 9112 6.1, 6.3)
//   Transfer-Encoding whose final coding is not chunked          400 (RFC 9112 6.3)
//   chunked applied more than once                               400 (RFC 9112 6.1)
//   Transfer-Encoding in an HTTP/1.0 request                     400 (RFC 9112 6.1)
//   a transfer coding other than chunked (gzip, chunked)         501 (RFC 9112 6.1)
//   an HTTP/1.1 request without exactly one Host                 400 (RFC 9112 3.2)
//   a PUT with neither Content-Length nor chunked                411 (RFC 9110 15.5.12)
// Beast's parser refuses the rest before this is called: two Content-Lengths that differ, a
// Content-Length that is not a number, a Transfer-Encoding after a chunked one.
//
// Thread-safety: a stateless function, safe from any thread.
#ifndef BLOBTUNE_EXAMPLES_SERVER_FRAMING_H_
#define BLOBTUNE_EXAMPLES_SERVER_FRAMING_H_

#include <boost/beast/http/fields.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/status.hpp>
#include <optional>
#include <string>

namespace blobtune::server {

// Why a request is refused: the status to answer and what was wrong. The connection closes
// after the answer, since the end of the refused request is not known.
struct FramingRefusal {
  boost::beast::http::status status;
  std::string message;
};

// Nothing when `header`'s framing is unambiguous and supported; otherwise the refusal.
std::optional<FramingRefusal> CheckFraming(const boost::beast::http::request_header<>& header);

}  // namespace blobtune::server

#endif  // BLOBTUNE_EXAMPLES_SERVER_FRAMING_H_
