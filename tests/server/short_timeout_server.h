// The in-process blobtune-server that the socket tests of framing and manners run against: one
// namespace "default", no fsync, and header and body timeouts of 300 ms, so that a request that
// stops coming is answered 408 within the test's patience.
//
//   std::unique_ptr<BlobServer> server = StartShortTimeoutServer(dir_.Sub("data"));
//   BlockingHttpClient client(server->port());
#ifndef BLOBTUNE_TESTS_SERVER_SHORT_TIMEOUT_SERVER_H_
#define BLOBTUNE_TESTS_SERVER_SHORT_TIMEOUT_SERVER_H_

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "blob_server.h"

namespace blobtune::server {

// The started server, or nullptr after a test failure saying why it did not start.
inline std::unique_ptr<BlobServer> StartShortTimeoutServer(const std::string& data_dir) {
  ServerOptions options;
  options.data_dir = data_dir;
  options.namespaces = {"default"};
  options.durability = store::Durability::kNoSync;
  options.header_timeout = std::chrono::milliseconds(300);
  options.body_timeout = std::chrono::milliseconds(300);
  StatusOr<std::unique_ptr<BlobServer>> started = BlobServer::Start(options);
  EXPECT_TRUE(started.ok()) << started.status();
  return started.ok() ? *std::move(started) : nullptr;
}

}  // namespace blobtune::server

#endif  // BLOBTUNE_TESTS_SERVER_SHORT_TIMEOUT_SERVER_H_
