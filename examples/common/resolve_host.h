// ResolveHost: a --host or --listen value, an IP address or a host name, as the one address a
// program connects to or listens on. Names are resolved once, at startup, so that a name that
// resolves to nothing is a bad flag (exit 2) instead of a failure later on.
//
//   StatusOr<boost::asio::ip::address> address = examples::ResolveHost("localhost");
//   if (!address.ok()) return cli.UsageError("--host: " + std::string(address.status().message()));
//   options.host = address->to_string();   // "127.0.0.1"
//
// Of a name's addresses the first IPv4 one is taken (else the first): "localhost" is then
// 127.0.0.1, where the programs listen by default, on a machine whose resolver lists ::1 first.
//
// Thread-safety: a function without state; it blocks while the name is resolved.
#ifndef BLOBTUNE_EXAMPLES_COMMON_RESOLVE_HOST_H_
#define BLOBTUNE_EXAMPLES_COMMON_RESOLVE_HOST_H_

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <optional>
#include <string>

#include "blobtune/base/status_or.h"

namespace blobtune::examples {

// The address `host` names. INVALID_ARGUMENT, saying why, for an empty host or a name that
// resolves to no address.
inline StatusOr<boost::asio::ip::address> ResolveHost(const std::string& host) {
  namespace asio = boost::asio;
  if (host.empty()) return Status::InvalidArgument("the host is empty");
  boost::system::error_code ec;
  const asio::ip::address literal = asio::ip::make_address(host, ec);
  if (!ec) return literal;
  asio::io_context io;
  asio::ip::tcp::resolver resolver(io);
  const asio::ip::tcp::resolver::results_type results = resolver.resolve(host, "", ec);
  if (ec || results.empty()) {
    return Status::InvalidArgument("cannot resolve host '" + host + "'" +
                                   (ec ? ": " + ec.message() : std::string(": no address")));
  }
  std::optional<asio::ip::address> first;
  for (const auto& entry : results) {
    const asio::ip::address address = entry.endpoint().address();
    if (address.is_v4()) return address;
    if (!first) first = address;
  }
  return *first;
}

}  // namespace blobtune::examples

#endif  // BLOBTUNE_EXAMPLES_COMMON_RESOLVE_HOST_H_
