// One process per store: a second blobtune-server on a running one's data directory exits 1 at
// once, naming the directory and the running server's pid; once the first is killed with
// SIGKILL, nothing it left behind keeps a new server from opening the directory.
#include <gtest/gtest.h>
#include <signal.h>

#include <string>

#include "common/temp_dir.h"
#include "server_process.h"

namespace blobtune::server {
namespace {

using blobtune::testing::TempDir;

TEST(ServerStoreLock, SecondServerOnTheSameDataDirExitsOneNamingItAndTheHolder) {
  TempDir dir("blobtune-store-lock");
  const std::string data = dir.Sub("data");
  ServerProcess first({"--data-dir", data, "--listen", "127.0.0.1:0"});
  ASSERT_NE(first.ReadPort(), 0) << first.output();

  ServerProcess second({"--data-dir", data, "--listen", "127.0.0.1:0"});
  EXPECT_EQ(second.ReadPort(), 0) << "the second server listens: " << second.output();
  EXPECT_EQ(second.WaitExit(), 1) << second.output();
  EXPECT_NE(second.output().find("'" + data + "'"), std::string::npos) << second.output();
  EXPECT_NE(second.output().find("pid " + std::to_string(first.pid())), std::string::npos)
      << second.output();
  std::printf("second server: %s", second.output().c_str());

  first.Signal(SIGKILL);
  EXPECT_EQ(first.WaitExit(), 128 + SIGKILL);
  ServerProcess third({"--data-dir", data, "--listen", "127.0.0.1:0"});
  EXPECT_NE(third.ReadPort(), 0) << "after kill -9 of the first: " << third.output();
  third.Signal(SIGTERM);
  EXPECT_EQ(third.WaitExit(), 0) << third.output();
}

}  // namespace
}  // namespace blobtune::server
