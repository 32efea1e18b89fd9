// Listen: opens, binds and starts listening on a TCP acceptor for the example servers, with a
// Status that says what went wrong instead of an exception.
//
//   StatusOr<uint16_t> port = examples::Listen(acceptor, "127.0.0.1", 0);  // 0: a free port
//
// Thread-safety: as the acceptor's.
#ifndef BLOBTUNE_EXAMPLES_COMMON_LISTEN_H_
#define BLOBTUNE_EXAMPLES_COMMON_LISTEN_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <string>

#include "blobtune/base/status_or.h"

namespace blobtune::examples {

// The bound port, INVALID_ARGUMENT for an address that is not an IP address, UNAVAILABLE when
// it cannot be bound (in use, not local).
inline StatusOr<uint16_t> Listen(boost::asio::ip::tcp::acceptor& acceptor,
                                 const std::string& address, uint16_t port) {
  namespace asio = boost::asio;
  boost::system::error_code ec;
  const asio::ip::tcp::endpoint endpoint(asio::ip::make_address(address, ec), port);
  if (ec) return Status::InvalidArgument("bad listen address '" + address + "'");
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status::Unavailable("cannot listen on " + address + ":" + std::to_string(port) + ": " +
                               ec.message());
  }
  return acceptor.local_endpoint().port();
}

}  // namespace blobtune::examples

#endif  // BLOBTUNE_EXAMPLES_COMMON_LISTEN_H_
