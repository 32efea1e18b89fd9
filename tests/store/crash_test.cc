// Crash safety: a child process writes blobs as fast as it can and reports each acknowledged
// put; the test SIGKILLs it at a random moment (after a seeded random number of
// acknowledgements, zero included: killed while opening), reopens the store and checks that every
// blob ever acknowledged is present with a valid checksum and the right bytes.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "blobtune/store/blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "temp_dir.h"

namespace blobtune::store {
namespace {

struct Acked {
  std::string id;
  size_t size;
  uint32_t seed;
};

class CrashChild {
 public:
  CrashChild(const std::string& dir, int round) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return;
    const std::string round_arg = std::to_string(round);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fds[1], STDOUT_FILENO);  // dup2 clears O_CLOEXEC on the copy.
      ::execl(BLOBTUNE_CRASH_CHILD, BLOBTUNE_CRASH_CHILD, dir.c_str(), round_arg.c_str(),
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    read_fd_ = fds[0];
  }
  ~CrashChild() {
    if (read_fd_ >= 0) ::close(read_fd_);
  }
  bool started() const { return pid_ > 0 && read_fd_ >= 0; }

  // Reads acknowledgement lines until `count` more are complete or the pipe ends.
  bool ReadAcks(size_t count, std::vector<Acked>* out) {
    const size_t target = out->size() + count;
    char buf[4096];
    while (out->size() < target) {
      const ssize_t n = ::read(read_fd_, buf, sizeof buf);
      if (n <= 0) return false;
      pending_.append(buf, static_cast<size_t>(n));
      size_t nl;
      while ((nl = pending_.find('\n')) != std::string::npos) {
        std::istringstream line(pending_.substr(0, nl));
        Acked a;
        line >> a.id >> a.size >> a.seed;
        out->push_back(a);
        pending_.erase(0, nl + 1);
      }
    }
    return true;
  }

  // SIGKILLs the child, then collects every line it wrote before dying. Returns the wait status.
  int KillAndDrain(std::vector<Acked>* out) {
    ::kill(pid_, SIGKILL);
    while (ReadAcks(1, out)) {
    }
    int status = 0;
    ::waitpid(pid_, &status, 0);
    return status;
  }

 private:
  pid_t pid_ = -1;
  int read_fd_ = -1;
  std::string pending_;
};

TEST(StoreCrashTest, EveryAcknowledgedBlobSurvivesSigkill) {
  testing::TempDir dir;
  const std::string store_dir = dir.Sub("store");
  std::mt19937 rng(20240517);  // Seeded: the kill points repeat from run to run.
  std::uniform_int_distribution<size_t> acks_before_kill(0, 300);
  std::vector<Acked> acked;
  constexpr int kRounds = 24;
  for (int round = 0; round < kRounds; ++round) {
    const size_t kill_after = round == 0 ? 0 : acks_before_kill(rng);
    CrashChild child(store_dir, round);
    ASSERT_TRUE(child.started());
    const size_t before = acked.size();
    ASSERT_TRUE(child.ReadAcks(kill_after, &acked))
        << "round " << round << ": the child stopped after " << acked.size() - before << " puts";
    const int status = child.KillAndDrain(&acked);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "round " << round << ": the child ended on its own, status " << status;

    StatusOr<std::unique_ptr<BlobStore>> store = [&] {
      LmdbStoreOptions o;
      o.directory = store_dir;
      o.namespaces = {"incoming", "payload"};
      return OpenLmdbBlobStore(o);
    }();
    ASSERT_TRUE(store.ok()) << "round " << round << ": " << store.status();
    for (const Acked& a : acked) {
      const size_t n = std::stoul(a.id.substr(a.id.rfind('-') + 1));
      StatusOr<std::vector<std::byte>> got = (*store)->Get(n % 2 ? "payload" : "incoming", a.id);
      ASSERT_TRUE(got.ok()) << "round " << round << ": acknowledged blob " << a.id << ": "
                            << got.status();
      ASSERT_EQ(*got, testing::Pattern(a.size, a.seed)) << a.id;
    }
  }
  EXPECT_GT(acked.size(), size_t{kRounds * 20});
  std::cout << "verified " << acked.size() << " acknowledged blobs over " << kRounds
            << " SIGKILLed rounds\n";
}

}  // namespace
}  // namespace blobtune::store
