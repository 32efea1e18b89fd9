// The legacy path of a delivery run and the post-run verification: see delivery_run.h.
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/http/verb.hpp>
#include <algorithm>
#include <span>

#include "delivery_run.h"
#include "mail_client.h"
#include "local_work.h"
#include "message.h"

namespace blobtune::delivery {
namespace {

namespace asio = boost::asio;
using boost::beast::http::verb;

// Documents per download request: 25, fewer for messages over 2.56 MiB, so that no answer
// carries more than 64 MiB (at least one document).
constexpr size_t kDocumentsPerBatch = 25;
constexpr size_t kMaxBatchBytes = size_t{64} << 20;
constexpr double kMiB = 1024.0 * 1024.0;

asio::awaitable<void> Legacy(const DeliveryOptions& options, MailClient& http,
                             store::BlobStore& store, asio::thread_pool& pool,
                             RunResult& result) {
  // One batched download of every incoming document, in a few requests.
  std::string documents;
  documents.reserve(options.messages * options.message_size);
  const size_t per_batch =
      std::clamp<size_t>(kMaxBatchBytes / options.message_size, 1, kDocumentsPerBatch);
  for (size_t offset = 0; offset < options.messages; offset += per_batch) {
    // This request's part of the batch cost, and the cost of its bytes.
    const size_t count = std::min(per_batch, options.messages - offset);
    const double share = static_cast<double>(count) / static_cast<double>(options.messages);
    const double mib = static_cast<double>(count * options.message_size) / kMiB;
    const auto done_at = std::chrono::steady_clock::now() +
                         Scaled(options.legacy_batch_cost, share * options.time_scale) +
                         Scaled(options.legacy_per_mib, mib * options.time_scale);
    StatusOr<HttpResponse> batch = co_await http.Request(
        verb::get, "/legacy/documents?offset=" + std::to_string(offset) +
                       "&count=" + std::to_string(count));
    if (!batch.ok() || batch->result_int() != 200) {
      result.status = batch.ok() ? Status::Internal("legacy download answered " +
                                                    std::to_string(batch->result_int()))
                                 : batch.status();
      co_return;
    }
    documents += batch->body();
    co_await SleepUntil(done_at);
  }
  if (documents.size() != options.messages * options.message_size) {
    result.status = Status::DataLoss("legacy download returned " +
                                     std::to_string(documents.size()) + " bytes, expected " +
                                     std::to_string(options.messages * options.message_size));
    co_return;
  }
  // Per message: 4 local document creates and 1 delete, one message after the other.
  const auto work = Scaled(options.legacy_work_per_message, options.time_scale);
  for (size_t i = 0; i < options.messages; ++i) {
    std::string id = MessageId(i);
    std::string_view body(documents.data() + i * options.message_size, options.message_size);
    auto work_until = std::chrono::steady_clock::now() + work;
    Status s = co_await OnPool(pool, [&] {
      Status put = store.Put(kIncoming, id, Bytes(body));
      if (put.ok()) put = store.Put(kPayload, id, Bytes(body));
      std::vector<std::string> metadata = MetadataDocuments(i);
      for (size_t d = 0; put.ok() && d < 2; ++d) {
        put = store.Put(kDocuments, id + "/" + std::to_string(d), Bytes(metadata[d]));
      }
      if (put.ok()) put = store.Erase(kIncoming, id);
      return put;
    });
    if (!s.ok()) {
      result.status = s.WithContext(id);
      co_return;
    }
    co_await SleepUntil(work_until);  // The real store work is part of the modelled 42 ms.
    ++result.delivered;
  }
  // One batched upload.
  const auto uploaded_at =
      std::chrono::steady_clock::now() + Scaled(options.legacy_batch_cost, options.time_scale);
  StatusOr<HttpResponse> upload = co_await http.Request(verb::post, "/legacy/upload", "");
  co_await SleepUntil(uploaded_at);
  if (!upload.ok() || upload->result_int() != 200) {
    result.status = upload.ok() ? Status::Internal("legacy upload answered " +
                                                   std::to_string(upload->result_int()))
                                : upload.status();
  }
}

}  // namespace

RunResult RunLegacyPath(const DeliveryOptions& options, uint16_t server_port,
                        store::BlobStore& store) {
  asio::io_context io;
  asio::thread_pool pool(1);
  MailClient http(io.get_executor(), "127.0.0.1", server_port);
  RunResult result;
  auto start = std::chrono::steady_clock::now();
  asio::co_spawn(io, Legacy(options, http, store, pool, result), asio::detached);
  io.run();
  pool.join();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.retries = http.retries();
  return result;
}

Status VerifyDelivered(const DeliveryOptions& options, store::BlobStore& store) {
  for (size_t i = 0; i < options.messages; ++i) {
    std::string id = MessageId(i);
    StatusOr<std::vector<std::byte>> payload = store.Get(kPayload, id);  // Checks the CRC.
    if (!payload.ok()) return payload.status().WithContext("verify " + id);
    std::string expected = MessageBody(options.seed, i, options.message_size);
    if (payload->size() != expected.size() ||
        !std::equal(payload->begin(), payload->end(), Bytes(expected).begin())) {
      return Status::DataLoss("verify " + id + ": stored payload differs from the message");
    }
  }
  StatusOr<std::vector<store::ListEntry>> left = store.List(kIncoming, "", 1);
  if (!left.ok()) return left.status();
  if (!left->empty()) return Status::Internal("incoming still holds " + (*left)[0].id);
  return Status();
}

}  // namespace blobtune::delivery
