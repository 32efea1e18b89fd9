// One process per data directory: a second blobtune-server on a running one's data directory
// exits 1 at once, naming the directory and the running server's pid, whether its blobs would be
// in that directory (LMDB) or in a RADOS pool; once the first is killed with SIGKILL, nothing it
// left behind keeps a new server from opening the directory.
#include <gtest/gtest.h>
#include <signal.h>

#include <string>

#include "common/temp_dir.h"
#include "server_process.h"

namespace blobtune::server {
namespace {

using blobtune::testing::TempDir;

// `refused`, started on `data` while `holder` runs there, exits 1 without listening and names
// the directory and the holder's pid.
void ExpectRefused(ServerProcess& refused, const std::string& data, const ServerProcess& holder) {
  EXPECT_EQ(refused.ReadPort(), 0) << "the refused server listens: " << refused.output();
  EXPECT_EQ(refused.WaitExit(), 1) << refused.output();
  EXPECT_NE(refused.output().find("'" + data + "'"), std::string::npos) << refused.output();
  EXPECT_NE(refused.output().find("pid " + std::to_string(holder.pid())), std::string::npos)
      << refused.output();
  std::printf("refused: %s", refused.output().c_str());
}

TEST(ServerStoreLock, SecondServerOnTheSameDataDirExitsOneNamingItAndTheHolder) {
  TempDir dir("blobtune-store-lock");
  const std::string data = dir.Sub("data");
  ServerProcess first({"--data-dir", data, "--listen", "127.0.0.1:0"});
  ASSERT_NE(first.ReadPort(), 0) << first.output();

  ServerProcess second({"--data-dir", data, "--listen", "127.0.0.1:0"});
  ExpectRefused(second, data, first);

  first.Signal(SIGKILL);
  EXPECT_EQ(first.WaitExit(), 128 + SIGKILL);
  ServerProcess third({"--data-dir", data, "--listen", "127.0.0.1:0"});
  EXPECT_NE(third.ReadPort(), 0) << "after kill -9 of the first: " << third.output();
  third.Signal(SIGTERM);
  EXPECT_EQ(third.WaitExit(), 0) << third.output();
}

// With --store rados the data directory holds only the limiters' state, and two servers on one
// would overwrite each other's. The directory is claimed before the pool is reached, so no
// cluster is needed to see the refusal.
TEST(ServerStoreLock, ARadosServerOnAHeldDataDirExitsOneNamingItAndTheHolder) {
  if (!BLOBTUNE_HAVE_RADOS) GTEST_SKIP() << "this build has no RADOS store";
  TempDir dir("blobtune-store-lock");
  const std::string data = dir.Sub("data");
  ServerProcess holder({"--data-dir", data, "--listen", "127.0.0.1:0"});
  ASSERT_NE(holder.ReadPort(), 0) << holder.output();

  ServerProcess rados({"--store", "rados", "--rados-conf", dir.Sub("no-such-ceph.conf"),
                       "--rados-pool", "blobs", "--data-dir", data, "--listen", "127.0.0.1:0"});
  ExpectRefused(rados, data, holder);
  holder.Signal(SIGTERM);
  EXPECT_EQ(holder.WaitExit(), 0) << holder.output();
}

}  // namespace
}  // namespace blobtune::server
