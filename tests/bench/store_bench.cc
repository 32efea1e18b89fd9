// blobtune-store-bench: the BlobStore against raw LMDB on the same disk, in the same run.
//
//   build/bin/blobtune-store-bench --benchmark_repetitions=3 --benchmark_format=json
//
// Writes (durable, items/s = puts/s):
//   BM_StorePutDurable/<size>                  one caller, so one put per transaction
//   BM_StorePutGroupCommit/<size>/threads:<n>  n callers blocking in Put; avg_batch = puts/commit
//   BM_RawLmdbPutBatch/<size>/<n>              one thread: txn_begin, n x mdb_put, txn_commit
// Reads (warm, one read transaction per get in both: mdb_txn_renew ... mdb_txn_reset):
//   BM_StoreGetCopy / BM_RawLmdbGetCopy        bytes copied into a reused buffer; 16 blobs per
//                                              size, so they stay in the CPU caches
//   BM_RawLmdbGetCopyCrc                       raw get and copy, then CRC32C of the copy with
//                                              the store's own CRC32C code: the cheapest honest
//                                              verified read, the floor of BM_StoreGetCopy
//   BM_StoreGetCopyCold / BM_RawLmdbGetCopyCold  the same over 64 MiB of blobs per size, more
//                                              than the last-level cache: page-cache reads, as
//                                              a store serving many blobs sees them
//   BM_StoreGetZeroCopy / BM_RawLmdbGetZeroCopy  the callback sees the bytes in the map and
//                                              does nothing with them (lookup cost only)
//   BM_StoreGetZeroCopyConsume / BM_RawLmdbGetZeroCopyConsume  the callback reads every byte
//                                              (a 64-bit XOR over the blob), as a real
//                                              zero-copy reader (hash, parse, send) does
// The store verifies each blob's CRC32C on every read by default (raw LMDB has nothing to
// verify); the *NoVerify variants read the same store with ReadOptions::verify_checksums = false.
// Fair comparisons: a copying reader needs the bytes in its buffer, so BM_StoreGetCopyNoVerify
// against BM_RawLmdbGetCopy and BM_StoreGetCopy against BM_RawLmdbGetCopyCrc are the
// like-for-like pairs (the store's check rides along the copy). A zero-copy read that never looks
// at the bytes costs O(1) raw and O(size) verified, so the fair zero-copy pair is *Consume, where
// both readers touch every byte once.
// Both run with glibc's heap kept resident (LmdbStoreOptions::keep_heap_resident: process-wide).
// Repetitions of all benchmarks run interleaved in random order (tests/bench/interleave.h), so
// a store benchmark and its raw baseline see the same machine; medians are the figures to quote.
// Set BLOBTUNE_BENCH_DIR to put the databases somewhere other than /tmp.
#include <lmdb.h>
#include <stdlib.h>

#include <benchmark/benchmark.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "blobtune/store/blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "blobtune/store/store_observer.h"
#include "crc32c.h"
#include "command_line.h"

namespace blobtune::store {
namespace {

constexpr size_t kSizes[] = {10 * 1024, 100 * 1024, 1024 * 1024};
constexpr int kReadKeys = 16;   // Blobs per size that the read benchmarks cycle over.
constexpr int kWriteKeys = 8;   // Ids per writer thread that the write benchmarks overwrite.
constexpr size_t kColdBytes = size_t{64} << 20;  // Cold working set per size (> the LLC).

int ColdKeys(size_t size) { return static_cast<int>(kColdBytes / size); }

std::vector<std::byte> Payload(size_t size) {
  std::vector<std::byte> out(size);
  uint32_t x = 12345;
  for (auto& b : out) {
    x = x * 1103515245u + 12345u;
    b = static_cast<std::byte>(x >> 24);
  }
  return out;
}

class BatchObserver : public StoreObserver {
 public:
  void OnCommit(const CommitEvent& e) override {
    commits.fetch_add(1, std::memory_order_relaxed);
    ops.fetch_add(e.operations, std::memory_order_relaxed);
  }
  std::atomic<uint64_t> commits{0};
  std::atomic<uint64_t> ops{0};
};

void Check(int rc, const char* what) {
  if (rc != MDB_SUCCESS) {
    std::fprintf(stderr, "%s: %s\n", what, mdb_strerror(rc));
    std::abort();
  }
}

// The store and a raw LMDB environment side by side, opened once for the whole run.
struct BenchWorld {
  std::string root;
  std::unique_ptr<BlobStore> store;
  BatchObserver observer;
  MDB_env* raw = nullptr;
  MDB_dbi raw_dbi = 0;

  BenchWorld() {
    const char* base = std::getenv("BLOBTUNE_BENCH_DIR");
    std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/blobtune-bench-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    root = pattern;
    LmdbStoreOptions o;
    o.directory = root + "/store";
    o.namespaces = {"bench"};
    o.initial_map_size_bytes = size_t{4} << 30;
    o.keep_heap_resident = true;
    o.observer = &observer;
    StatusOr<std::unique_ptr<BlobStore>> opened = OpenLmdbBlobStore(o);
    if (!opened.ok()) {
      std::fprintf(stderr, "open store: %s\n", opened.status().ToString().c_str());
      std::abort();
    }
    store = *std::move(opened);

    std::filesystem::create_directory(root + "/raw");
    Check(mdb_env_create(&raw), "mdb_env_create");
    Check(mdb_env_set_mapsize(raw, size_t{4} << 30), "mdb_env_set_mapsize");
    Check(mdb_env_set_maxdbs(raw, 1), "mdb_env_set_maxdbs");
    Check(mdb_env_open(raw, (root + "/raw").c_str(), MDB_NOTLS, 0644), "mdb_env_open");
    MDB_txn* txn = nullptr;
    Check(mdb_txn_begin(raw, nullptr, 0, &txn), "mdb_txn_begin");
    Check(mdb_dbi_open(txn, "bench", MDB_CREATE, &raw_dbi), "mdb_dbi_open");
    Check(mdb_txn_commit(txn), "mdb_txn_commit");

    for (size_t size : kSizes) {  // The cold working sets: submitted at once, group committed.
      const auto payload = Payload(size);
      std::mutex mu;
      std::condition_variable cv;
      int pending = ColdKeys(size);
      for (int k = 0; k < ColdKeys(size); ++k) {
        Status s = store->SubmitWrite(WriteOp::PutBorrowed("bench", ColdId(size, k), payload),
                                      [&](Status done) {
                                        if (!done.ok()) std::abort();
                                        std::lock_guard<std::mutex> lock(mu);
                                        if (--pending == 0) cv.notify_one();
                                      });
        if (!s.ok()) std::abort();
      }
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return pending == 0; });
      }
      Check(mdb_txn_begin(raw, nullptr, 0, &txn), "mdb_txn_begin");
      for (int k = 0; k < ColdKeys(size); ++k) {
        const std::string id = ColdId(size, k);
        MDB_val key{id.size(), const_cast<char*>(id.data())};
        MDB_val val{payload.size(), const_cast<std::byte*>(payload.data())};
        Check(mdb_put(txn, raw_dbi, &key, &val, 0), "mdb_put");
      }
      Check(mdb_txn_commit(txn), "mdb_txn_commit");
    }
    for (size_t size : kSizes) {  // The blobs the read benchmarks read.
      const auto payload = Payload(size);
      for (int k = 0; k < kReadKeys; ++k) {
        const std::string id = ReadId(size, k);
        if (!store->Put("bench", id, payload).ok()) std::abort();
        Check(mdb_txn_begin(raw, nullptr, 0, &txn), "mdb_txn_begin");
        MDB_val key{id.size(), const_cast<char*>(id.data())};
        MDB_val val{payload.size(), const_cast<std::byte*>(payload.data())};
        Check(mdb_put(txn, raw_dbi, &key, &val, 0), "mdb_put");
        Check(mdb_txn_commit(txn), "mdb_txn_commit");
      }
    }
  }
  ~BenchWorld() {
    store.reset();
    mdb_env_close(raw);
    std::error_code ignored;
    std::filesystem::remove_all(root, ignored);
  }
  static std::string ReadId(size_t size, int k) {
    return "read-" + std::to_string(size) + "-" + std::to_string(k);
  }
  static std::string ColdId(size_t size, int k) {
    return "cold-" + std::to_string(size) + "-" + std::to_string(k);
  }
};

BenchWorld* world = nullptr;

void SetCounters(benchmark::State& state, size_t size) {
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
}

void BM_StorePutDurable(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  const auto payload = Payload(size);
  int i = 0;
  for (auto _ : state) {
    const std::string id = "put-" + std::to_string(size) + "-" + std::to_string(i++ % kWriteKeys);
    if (!world->store->Put("bench", id, payload).ok()) state.SkipWithError("put failed");
  }
  SetCounters(state, size);
}

void BM_StorePutGroupCommit(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  const auto payload = Payload(size);
  uint64_t commits_before = 0;
  uint64_t ops_before = 0;
  if (state.thread_index() == 0) {
    commits_before = world->observer.commits.load();
    ops_before = world->observer.ops.load();
  }
  int i = 0;
  const std::string prefix =
      "group-" + std::to_string(size) + "-t" + std::to_string(state.thread_index()) + "-";
  for (auto _ : state) {
    const std::string id = prefix + std::to_string(i++ % kWriteKeys);
    if (!world->store->Put("bench", id, payload).ok()) state.SkipWithError("put failed");
  }
  SetCounters(state, size);
  if (state.thread_index() == 0) {
    const double commits = static_cast<double>(world->observer.commits.load() - commits_before);
    const double ops = static_cast<double>(world->observer.ops.load() - ops_before);
    state.counters["avg_batch"] = commits > 0 ? ops / commits : 0;
  }
}

void BM_RawLmdbPutBatch(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  const int batch = static_cast<int>(state.range(1));
  const auto payload = Payload(size);
  std::vector<std::string> ids;
  for (int k = 0; k < batch * kWriteKeys; ++k) {
    ids.push_back("raw-" + std::to_string(size) + "-" + std::to_string(k));
  }
  size_t next = 0;
  for (auto _ : state) {
    MDB_txn* txn = nullptr;
    Check(mdb_txn_begin(world->raw, nullptr, 0, &txn), "mdb_txn_begin");
    for (int b = 0; b < batch; ++b) {
      const std::string& id = ids[next++ % ids.size()];
      MDB_val key{id.size(), const_cast<char*>(id.data())};
      MDB_val val{payload.size(), const_cast<std::byte*>(payload.data())};
      Check(mdb_put(txn, world->raw_dbi, &key, &val, 0), "mdb_put");
    }
    Check(mdb_txn_commit(txn), "mdb_txn_commit");
  }
  state.SetItemsProcessed(state.iterations() * batch);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * batch * size));
}

std::vector<std::string> ReadIds(size_t size, bool cold) {
  std::vector<std::string> ids;
  for (int k = 0; k < (cold ? ColdKeys(size) : kReadKeys); ++k) {
    ids.push_back(cold ? BenchWorld::ColdId(size, k) : BenchWorld::ReadId(size, k));
  }
  return ids;
}

// What a zero-copy reader does with the bytes in the *Consume benchmarks: reads each once.
uint64_t Consume(std::span<const std::byte> bytes) {
  uint64_t x = 0;
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t v;
    std::memcpy(&v, bytes.data() + i, 8);
    x ^= v;
  }
  for (; i < bytes.size(); ++i) x ^= static_cast<uint64_t>(bytes[i]);
  return x;
}

// The store's reads, verified or not (a per-read choice).
ReadOptions Verify(bool verify) {
  ReadOptions options;
  options.verify_checksums = verify;
  return options;
}

template <bool kVerify, bool kCold = false>
void StoreGetCopy(benchmark::State& state) {
  BlobStore& store = *world->store;
  const ReadOptions options = Verify(kVerify);
  const size_t size = static_cast<size_t>(state.range(0));
  const std::vector<std::string> ids = ReadIds(size, kCold);
  std::vector<std::byte> buffer;
  size_t i = 0;
  for (auto _ : state) {
    if (!store.Get(options, "bench", ids[i++ % ids.size()], &buffer, nullptr).ok()) {
      state.SkipWithError("get failed");
    }
    benchmark::DoNotOptimize(buffer.data());
    benchmark::ClobberMemory();
  }
  SetCounters(state, size);
}

template <bool kVerify, bool kConsume = false>
void StoreGetZeroCopy(benchmark::State& state) {
  BlobStore& store = *world->store;
  const ReadOptions options = Verify(kVerify);
  const size_t size = static_cast<size_t>(state.range(0));
  const std::vector<std::string> ids = ReadIds(size, false);
  size_t i = 0;
  size_t seen = 0;
  for (auto _ : state) {
    Status s = store.View(options, "bench", ids[i++ % ids.size()],
                          [&](std::span<const std::byte> bytes, const BlobInfo&) {
                            benchmark::DoNotOptimize(bytes.data());
                            if constexpr (kConsume) {
                              seen += Consume(bytes);
                            } else {
                              seen += bytes.size();
                            }
                          });
    if (!s.ok()) state.SkipWithError("view failed");
  }
  benchmark::DoNotOptimize(seen);
  SetCounters(state, size);
}

// Raw reads use the same transaction discipline as the store: one read transaction per get,
// recycled with mdb_txn_reset / mdb_txn_renew (the cheap path under MDB_NOTLS).
template <bool kCopy, bool kCold = false, bool kConsume = false, bool kCrc = false>
void RawGet(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  const std::vector<std::string> ids = ReadIds(size, kCold);
  std::vector<std::byte> buffer;
  MDB_txn* txn = nullptr;
  Check(mdb_txn_begin(world->raw, nullptr, MDB_RDONLY, &txn), "mdb_txn_begin");
  mdb_txn_reset(txn);
  size_t i = 0;
  size_t seen = 0;
  for (auto _ : state) {
    Check(mdb_txn_renew(txn), "mdb_txn_renew");
    const std::string& id = ids[i++ % ids.size()];
    MDB_val key{id.size(), const_cast<char*>(id.data())};
    MDB_val val{};
    Check(mdb_get(txn, world->raw_dbi, &key, &val), "mdb_get");
    // A const pointer: DoNotOptimize(non-const T&) uses a "+m,r" asm constraint that GCC 12
    // miscompiles under ASan (p came back as garbage); the const overload only reads it.
    const auto* const p = static_cast<const std::byte*>(val.mv_data);
    if constexpr (kCopy) {
      buffer.assign(p, p + val.mv_size);
      if constexpr (kCrc) {
        const uint32_t crc = crc32c::Value(buffer);
        benchmark::DoNotOptimize(crc);
      }
      benchmark::DoNotOptimize(buffer.data());
      benchmark::ClobberMemory();
    } else if constexpr (kConsume) {
      benchmark::DoNotOptimize(p);
      seen += Consume(std::span<const std::byte>(p, val.mv_size));
    } else {
      benchmark::DoNotOptimize(p);
      seen += val.mv_size;
    }
    mdb_txn_reset(txn);
  }
  mdb_txn_abort(txn);
  benchmark::DoNotOptimize(seen);
  SetCounters(state, size);
}

void BM_StoreGetCopy(benchmark::State& state) { StoreGetCopy<true>(state); }
void BM_StoreGetCopyNoVerify(benchmark::State& state) { StoreGetCopy<false>(state); }
void BM_StoreGetZeroCopy(benchmark::State& state) { StoreGetZeroCopy<true>(state); }
void BM_StoreGetZeroCopyNoVerify(benchmark::State& state) { StoreGetZeroCopy<false>(state); }
void BM_RawLmdbGetCopy(benchmark::State& state) { RawGet<true>(state); }
void BM_RawLmdbGetCopyCrc(benchmark::State& state) { RawGet<true, false, false, true>(state); }
void BM_RawLmdbGetZeroCopy(benchmark::State& state) { RawGet<false>(state); }
void BM_StoreGetCopyCold(benchmark::State& state) { StoreGetCopy<true, true>(state); }
void BM_RawLmdbGetCopyCold(benchmark::State& state) { RawGet<true, true>(state); }
void BM_StoreGetZeroCopyConsume(benchmark::State& state) { StoreGetZeroCopy<true, true>(state); }
void BM_RawLmdbGetZeroCopyConsume(benchmark::State& state) {
  RawGet<false, false, true>(state);
}

void SizeArgs(benchmark::internal::Benchmark* b) {
  for (size_t size : kSizes) b->Arg(static_cast<int64_t>(size));
}

BENCHMARK(BM_StorePutDurable)->Apply(SizeArgs)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_StorePutGroupCommit)
    ->Apply(SizeArgs)
    ->Threads(1)
    ->Threads(2)
    ->Threads(8)
    ->Threads(32)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RawLmdbPutBatch)
    ->ArgsProduct({{10 * 1024, 100 * 1024, 1024 * 1024}, {1, 2, 8, 32}})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_StoreGetCopy)->Apply(SizeArgs);
BENCHMARK(BM_RawLmdbGetCopy)->Apply(SizeArgs);
BENCHMARK(BM_RawLmdbGetCopyCrc)->Apply(SizeArgs);
BENCHMARK(BM_StoreGetCopyNoVerify)->Apply(SizeArgs);
BENCHMARK(BM_StoreGetZeroCopy)->Apply(SizeArgs);
BENCHMARK(BM_StoreGetZeroCopyNoVerify)->Apply(SizeArgs);
BENCHMARK(BM_RawLmdbGetZeroCopy)->Apply(SizeArgs);
BENCHMARK(BM_StoreGetCopyCold)->Apply(SizeArgs);
BENCHMARK(BM_RawLmdbGetCopyCold)->Apply(SizeArgs);
BENCHMARK(BM_StoreGetZeroCopyConsume)->Apply(SizeArgs);
BENCHMARK(BM_RawLmdbGetZeroCopyConsume)->Apply(SizeArgs);

}  // namespace
}  // namespace blobtune::store

int main(int argc, char** argv) {
  if (int code = bench::Initialize("blobtune-store-bench", argc, argv); code >= 0) return code;
  blobtune::store::BenchWorld world;
  blobtune::store::world = &world;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  blobtune::store::world = nullptr;
  return 0;
}
