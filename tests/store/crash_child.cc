// blobtune-store-crash-child: writes blobs through a BlobStore as fast as it can, from several
// threads, and prints one line per acknowledged (durably committed) put on stdout:
//   <id> <size> <seed>\n
// until it is killed. Used by crash_test.cc, which SIGKILLs it and checks the acknowledged blobs.
//
// Usage: blobtune-store-crash-child <directory> <round> [threads]
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "blobtune/store/blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "temp_dir.h"

int main(int argc, char** argv) {
  if (argc < 3 || std::string(argv[1]) == "--help") {
    std::fprintf(stderr, "usage: %s <directory> <round> [threads]\n", argv[0]);
    return 2;
  }
  blobtune::store::LmdbStoreOptions options;
  options.directory = argv[1];
  options.namespaces = {"incoming", "payload"};
  options.initial_map_size_bytes = size_t{1} << 20;  // Small, so that crashes hit map growth.
  const int round = std::atoi(argv[2]);
  const int threads = argc > 3 ? std::atoi(argv[3]) : 4;
  auto store = blobtune::store::OpenLmdbBlobStore(options);
  if (!store.ok()) {
    std::fprintf(stderr, "crash child: %s\n", store.status().ToString().c_str());
    return 3;
  }
  std::vector<std::thread> writers;
  for (int t = 0; t < threads; ++t) {
    writers.emplace_back([&, t] {
      uint32_t x = static_cast<uint32_t>(round * 7919 + t * 104729 + 1);
      for (int n = 0;; ++n) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        const size_t size = 100 + x % 16000;
        const uint32_t seed = x;
        const std::string id =
            "r" + std::to_string(round) + "-t" + std::to_string(t) + "-" + std::to_string(n);
        const auto bytes = blobtune::store::testing::Pattern(size, seed);
        blobtune::Status s = (*store)->Put(n % 2 ? "payload" : "incoming", id, bytes);
        if (!s.ok()) {
          std::fprintf(stderr, "crash child: put %s: %s\n", id.c_str(), s.ToString().c_str());
          std::_Exit(4);
        }
        // One write() of less than PIPE_BUF bytes: a whole line or nothing reaches the parent.
        const std::string line = id + " " + std::to_string(size) + " " + std::to_string(seed) + "\n";
        if (::write(STDOUT_FILENO, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
          std::_Exit(5);
        }
      }
    });
  }
  for (auto& w : writers) w.join();
  return 0;
}
