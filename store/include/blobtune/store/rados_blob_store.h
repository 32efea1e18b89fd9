// OpenRadosBlobStore: the BlobStore (blob_store.h) over a Ceph cluster (librados), for blobs
// that must outlive one machine, and its options (RadosStoreOptions). Each blob is one RADOS
// object holding the same record as the LMDB store (32-byte header with its own checksum, then
// the bytes; see store/src/blob_format.h), so the CRC32C travels with the object and every read
// can check it end to end.
//
//   blobtune::store::RadosStoreOptions options;
//   options.conf_file = "/etc/ceph/ceph.conf";
//   options.pool = "blobtune";
//   options.namespaces = {"incoming", "payload"};
//   auto store = blobtune::store::OpenRadosBlobStore(options);
//   if (!store.ok()) return store.status();
//   Status s = (*store)->Put("incoming", "order-17", std::as_bytes(std::span(data)));
//
// Namespaces: one pool, one RADOS namespace per store namespace (one IoCtx each, made at open).
// A pool is an admin operation with its own placement groups; RADOS namespaces cost nothing and
// share the pool's placement groups, so a store's namespaces need no cluster configuration.
//
// Where it differs from the LMDB store (OpenLmdbBlobStore, lmdb_blob_store.h):
// - Writes: SubmitWrite sends the write at once (aio_write_full / aio_remove); its callback runs
//   on a librados finisher thread once the OSD acknowledged the write (so a limiter's permit is
//   held until then). The rules of WriteCallback apply: quick, no throwing, no waiting. There is
//   no group commit and no write queue of its own: SubmitWrite blocks instead of failing while
//   librados' own throttle is full (objecter_inflight_ops, 1024, or objecter_inflight_op_bytes,
//   100 MiB, in flight), so a limiter in front should keep concurrency below that. Each put copies
//   its bytes once, into a buffer librados owns.
// - PutOutcome: a plain write_full cannot say whether it created the object. A put with an
//   outcome pointer therefore sends an exclusive create + write_full; if the object exists it
//   sends assert_exists + write_full (kReplaced), and if that finds the object gone it starts
//   again. Each attempt is one atomic RADOS operation, so the outcome is exact for the write
//   that landed, at the cost of a second round trip on a replace (and, after 16 rounds lost to
//   concurrent erases of the same id, the put fails with NOT_FOUND). Puts without an outcome
//   pointer are one write_full.
// - Durability: a write is acknowledged once every replica of the pool has it (RADOS' ack);
//   whether that survives a power loss is the cluster's configuration (object store, replicas).
// - ViewBlob is not zero-copy: RADOS has no view of an object's bytes. It reads the object into
//   a buffer and calls `fn` with that buffer (valid only during the call).
// - Get reads the whole object, then copies the bytes out (verified first unless ReadOptions
//   say otherwise). Stat reads only the 32-byte header; Exists is a RADOS stat. These wait on
//   the calling thread; SubmitRead (under AsyncBlobStore::AsyncGet) sends an aio_read and
//   returns, its callback running on a librados finisher thread when the OSD answered, so a
//   read holds no thread while it is in flight.
// - List costs O(objects in the namespace) per page: RADOS lists objects in hash order, so every
//   page walks the whole namespace, keeps the ids with the prefix after `start_after`, sorts them
//   and reads the header of the ones it returns. Fine for thousands of blobs, not for millions.
// - Stats: commits = writes the cluster acknowledged, queued_writes = writes submitted whose
//   callback has not yet returned; the map fields and map_growths are 0 (there is no map).
// - Time limits: op_timeout bounds the connection (client_mount_timeout, rados_mon_op_timeout)
//   and every OSD operation (rados_osd_op_timeout): a hung cluster gives DEADLINE_EXCEEDED, an
//   unreachable one UNAVAILABLE at open, never a hang. An operation waiting half of op_timeout
//   (at most 10 s) makes librados ask the monitor for a newer OSD map, so the store finds an OSD
//   that restarted under a new identity before its operations time out.
// Errors: NOT_FOUND for a missing blob, DATA_LOSS for a checksum mismatch, DEADLINE_EXCEEDED for
// an operation over op_timeout, INVALID_ARGUMENT for bad names (the LMDB store's rules: declared
// namespace, id of 1..511 bytes), RESOURCE_EXHAUSTED for a blob over max_blob_size_bytes, other
// RADOS errors as INTERNAL/UNAVAILABLE with the errno text.
//
// Boost.Asio in the same program: libceph-common carries its own copy of Asio, built with
// BOOST_ASIO_DISABLE_THREAD_KEYWORD_EXTENSION, and shares Asio's per-thread call stacks (template
// statics merged by the dynamic linker) with the program. Every Asio user in a program with this
// store must therefore be built with that definition too; blobtune::tuner_asio (and so
// blobtune::store) carries it as a usage requirement. Without it, such a program built with
// ASan crashed in librados' MonClient::handle_config while connecting.
//
// Thread-safety: all methods are safe to call from any number of threads at once. Destroying the
// store waits for the writes and submitted reads in flight, then shuts the cluster connection
// down.
#ifndef BLOBTUNE_STORE_RADOS_BLOB_STORE_H_
#define BLOBTUNE_STORE_RADOS_BLOB_STORE_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "blobtune/base/clock.h"
#include "blobtune/base/status.h"
#include "blobtune/base/status_or.h"
#include "blobtune/store/blob_store.h"
#include "blobtune/store/store_observer.h"

namespace blobtune::store {

struct RadosStoreOptions {
  // The ceph.conf to read (monitor addresses, authentication). REQUIRES: not empty.
  std::string conf_file;
  // The Ceph user, as in `ceph --id`. Default: "admin" (client.admin).
  std::string client_id = "admin";
  // The pool holding every namespace; it must exist (creating pools is an admin operation).
  // REQUIRES: not empty.
  std::string pool;
  // The namespaces, one RADOS namespace each. Names are 1..255 bytes without NUL and distinct
  // (the LMDB store's rule, so one set of options fits both). Default: {"default"}.
  std::vector<std::string> namespaces = {"default"};
  // Largest blob accepted, in bytes. Default: 64 MiB. (RADOS itself refuses objects over
  // osd_max_object_size, 128 MiB by default.)
  size_t max_blob_size_bytes = size_t{64} << 20;
  // The store-wide default of ReadOptions::verify_checksums. Default: true.
  bool verify_checksums = true;
  // How long connecting and each RADOS operation may take before it fails (UNAVAILABLE at open,
  // DEADLINE_EXCEEDED after). Ceph takes whole seconds: rounded up, at least 1 s. Default: 30 s.
  Duration op_timeout = std::chrono::seconds(30);
  // Receives events (StoreObserver): every operation's outcome, and one OnCommit per write that
  // reached the cluster, its latency from sending to RADOS' acknowledgement. Write events run on
  // librados finisher threads; CommitEvent::attempts > 1 when a put with an outcome lost a race
  // with an erase of its id and started again. No map events (there is no map). Not owned; must
  // outlive the store. Default: nullptr (none).
  StoreObserver* observer = nullptr;

  // Checks the fields above; OpenRadosBlobStore calls it and fails with its Status.
  Status Validate() const;
};

// Connects to the cluster and opens one IoCtx per namespace in `options.pool`.
// Errors: INVALID_ARGUMENT for bad options or an unreadable conf_file, UNAVAILABLE when the
// cluster cannot be reached within op_timeout, NOT_FOUND when the pool does not exist.
StatusOr<std::unique_ptr<BlobStore>> OpenRadosBlobStore(const RadosStoreOptions& options);

}  // namespace blobtune::store

#endif  // BLOBTUNE_STORE_RADOS_BLOB_STORE_H_
