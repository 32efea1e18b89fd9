// MailServer: the mail server of the delivery benchmark, on 127.0.0.1, over HTTP/1.1 (Beast)
// with keep-alive.
//
// It holds the incoming message blobs, accepts uploads and deletes, and reproduces what made the
// original system slow (docs/DELIVERY.md): every request does an authentication lookup on ONE
// server thread with a random (exponential) service time, so lookups queue behind each other.
// Network round trip, bandwidth and the costs of the listing and sync are options; every cost is
// multiplied by `time_scale` so a benchmark fits in seconds. (The legacy endpoints cost only the
// lookup and the network: the legacy path's per-byte cost is the client's, see delivery_run.h.) With `fault_rate` > 0 a request may
// get a 503, a reset connection or a stall instead of a normal answer. A request body over its
// endpoint's limit is read and dropped and answered 413 with a message saying which limit. With
// `max_outgoing_bytes` set, an upload that does not fit in what is left of it is answered 507
// (the server's storage is full).
//
//   GET    /incoming             ids of the incoming messages, one per line
//   GET    /incoming/{id}        a message blob
//   DELETE /incoming/{id}        deletes it (404 if absent)
//   PUT    /outgoing/{id}        uploads an encrypted payload
//   POST   /sync                 the batched metadata upload
//   GET    /legacy/documents?offset=I&count=N   the legacy path's batched download
//   POST   /legacy/upload        the legacy path's batched upload; acknowledges (deletes) every
//                                incoming message
//
// Thread-safety: Start/Reset/Report/the destructor from one controlling thread; the server runs
// its own event-loop thread and touches its state only there.
#ifndef BLOBTUNE_EXAMPLES_DELIVERY_MAIL_SERVER_H_
#define BLOBTUNE_EXAMPLES_DELIVERY_MAIL_SERVER_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "blobtune/base/status_or.h"

namespace blobtune::delivery {

struct MailServerOptions {
  // Incoming messages per mailbox reset, and their size in bytes. Default: 100 of 100 KiB.
  size_t messages = 100;
  size_t message_size = 100 * 1024;
  uint64_t seed = 1;
  // Multiplies every cost below. Default: 1 (the original system's timings).
  double time_scale = 1.0;
  // Mean of the exponential authentication lookup on the single server thread. Default: 45 ms.
  std::chrono::microseconds auth_mean{45'000};
  // Added to every request: network round trip. Default: 1 ms.
  std::chrono::microseconds network_rtt{1'000};
  // Bytes per second of the link; 0 means unlimited. Default: 0 (the original link was far
  // faster than the data).
  double bandwidth_bytes_per_s = 0;
  // Server-side cost of the listing and of the final metadata sync of the blob path. The
  // measured blob runs spend about 3.8 s outside the per-message work. Default: 1.9 s each.
  std::chrono::microseconds list_cost{1'900'000};
  std::chrono::microseconds sync_cost{1'900'000};
  // Largest body of a message upload (PUT /outgoing/{id}), in bytes. Default: 65 MiB, which fits
  // the largest message the simulator makes (64 MiB) with its 16-byte encryption tag.
  size_t max_upload_bytes = size_t{65} << 20;
  // Largest body of the metadata sync (POST /sync) and of the legacy upload, in bytes. The sync
  // carries about 4.6 KB per message. Default: 64 MiB, which fits 10,000 messages (46 MB).
  size_t max_sync_bytes = size_t{64} << 20;
  // Bytes of uploads (PUT /outgoing/{id}) the server keeps between mailbox resets; an upload
  // that does not fit is answered 507 Insufficient Storage. 0: no limit. Default: 0.
  size_t max_outgoing_bytes = 0;
  // Probability that a request is answered with a fault (503, reset or stall). Default: 0.
  double fault_rate = 0;
  // Listen address; port 0 picks a free port. Default: 127.0.0.1:0.
  std::string address = "127.0.0.1";
  uint16_t port = 0;
};

// What the server saw since the last reset.
struct MailServerReport {
  std::map<std::string, int> applied_deletes;  // Per id: deletes that removed the message.
  size_t remaining = 0;                        // Incoming messages not deleted.
  size_t uploads = 0;                          // PUT /outgoing requests accepted.
  size_t syncs = 0;                            // POST /sync requests.
  size_t requests = 0;
  size_t faults = 0;                           // Requests answered with an injected fault.
  size_t too_large = 0;                        // Requests answered 413 (body over a limit).
  size_t storage_full = 0;                     // Uploads answered 507 (max_outgoing_bytes).
};

class MailServer {
 public:
  // Binds and starts the event-loop thread. INVALID_ARGUMENT for bad options, UNAVAILABLE if the
  // address cannot be bound.
  static StatusOr<std::unique_ptr<MailServer>> Start(const MailServerOptions& options);

  MailServer(const MailServer&) = delete;
  MailServer& operator=(const MailServer&) = delete;
  // Stops accepting, closes every connection and joins the thread.
  ~MailServer();

  uint16_t port() const noexcept;
  // Refills the mailbox with options.messages fresh messages and zeroes the report.
  void Reset();
  MailServerReport Report();

 private:
  class Impl;
  explicit MailServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace blobtune::delivery

#endif  // BLOBTUNE_EXAMPLES_DELIVERY_MAIL_SERVER_H_
