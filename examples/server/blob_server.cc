#include "blob_server.h"

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <thread>

#include "blob_handler.h"
#include "blobtune/metrics/registry.h"
#include "blobtune/metrics/status_page.h"
#include "blobtune/metrics/status_sampler.h"
#include "blobtune/store/async_blob_store.h"
#include "blobtune/store/blob_store.h"
#include "blobtune/store/directory_claim.h"
#include "blobtune/store/lmdb_blob_store.h"
#if BLOBTUNE_HAVE_RADOS
#include "blobtune/store/rados_blob_store.h"
#endif
#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/limiter.h"
#include "limiter_state_file.h"
#include "common/listen.h"
#include "connection.h"

namespace blobtune::server {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// Whether the limiters' learned state is kept (limiter_state_file.h).
bool KeepsState(const ServerOptions& options) {
  return !options.data_dir.empty() && options.state_save_interval.count() > 0;
}

// The limiter `name`, running options.algorithm or blobtune's default when that is empty, and
// starting from its saved state where there is one it can use.
StatusOr<std::unique_ptr<tuner::Limiter>> MakeLimiter(const ServerOptions& options,
                                                      std::string_view name,
                                                      tuner::LimiterObserver* observer) {
  tuner::LimiterOptions limiter;
  if (!options.algorithm.empty()) {
    StatusOr<std::unique_ptr<tuner::LimitAlgorithm>> algorithm =
        tuner::MakeAlgorithmFromText(options.algorithm);
    if (!algorithm.ok()) return algorithm.status();
    limiter.algorithm = *std::move(algorithm);
  } else {
    limiter.algorithm = tuner::MakeDefaultAlgorithm();
  }
  if (KeepsState(options)) {
    const std::string line = RestoreLimiterState(options.data_dir, name, *limiter.algorithm);
    if (!line.empty() && options.log) options.log(line);
  }
  limiter.observer = observer;
  limiter.max_queue = options.max_queue;
  limiter.queue_order = options.queue_order;
  limiter.overload_wait = options.shed_wait;
  limiter.overload_window = options.wait_deadline;
  limiter.partitions = options.partitions;
  return tuner::Limiter::Create(std::move(limiter));
}

StatusOr<std::unique_ptr<store::BlobStore>> OpenStore(const ServerOptions& options,
                                                      store::StoreObserver* observer) {
  if (options.store == StoreBackend::kRados) {
#if BLOBTUNE_HAVE_RADOS
    store::RadosStoreOptions rados;
    rados.conf_file = options.rados_conf;
    rados.pool = options.rados_pool;
    rados.namespaces = options.namespaces;
    rados.max_blob_size_bytes = options.max_blob_size_bytes;
    rados.observer = observer;
    return store::OpenRadosBlobStore(rados);
#else
    return Status::InvalidArgument("this build has no RADOS store");
#endif
  }
  store::LmdbStoreOptions lmdb;
  lmdb.directory = options.data_dir;
  lmdb.namespaces = options.namespaces;
  lmdb.max_blob_size_bytes = options.max_blob_size_bytes;
  lmdb.initial_map_size_bytes = options.initial_map_size_bytes;
  lmdb.durability = options.durability;
  lmdb.observer = observer;
  return store::OpenLmdbBlobStore(lmdb);
}

// Room for max_connections sockets, as many more being refused (RefuseConnection), and the
// store's and the program's own files: where the soft limit on open files is lower (commonly
// 1024), it is raised as far as the hard limit allows, and the operator told if that is short
// (connections past it wait in the kernel's backlog until one closes).
void MakeRoomForConnections(const ServerOptions& options) {
  constexpr rlim_t kOwnFiles = 64;
  const rlim_t wanted = 2 * static_cast<rlim_t>(options.max_connections) + kOwnFiles;
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur >= wanted) return;
  rlimit raised = files;
  raised.rlim_cur = std::min(wanted, files.rlim_max);
  if (setrlimit(RLIMIT_NOFILE, &raised) == 0) files = raised;
  if (files.rlim_cur < wanted && options.log) {
    options.log("open files are limited to " + std::to_string(files.rlim_cur) +
                " (ulimit -n); --max-connections " + std::to_string(options.max_connections) +
                " wants " + std::to_string(wanted) +
                ": connections past the limit wait in the kernel's backlog");
  }
}

}  // namespace

// Members are declared in the order they must be built; destruction runs the other way, so the
// event loop and the read pool (which hold operations on the store and limiters) go first, the
// metrics registry (which every observer reports to) last.
class BlobServer::Impl {
 public:
  explicit Impl(const ServerOptions& options) : options_(options) {}

  Status Open() {
    StatusOr<metrics::StoreMetrics*> store_metrics = registry_.AddStore("blobs");
    StatusOr<metrics::LimiterMetrics*> read_metrics = registry_.AddLimiter("read");
    StatusOr<metrics::LimiterMetrics*> write_metrics = registry_.AddLimiter("write");
    StatusOr<metrics::HttpMetrics*> http_metrics = registry_.AddHttpServer();
    if (!store_metrics.ok() || !read_metrics.ok() || !write_metrics.ok() || !http_metrics.ok()) {
      return Status::Internal("cannot register the server's metrics");
    }
    registry_.AddProcessMetrics();
    MakeRoomForConnections(options_);
    // With the blobs in a pool, the data directory holds this server's limiter state alone: one
    // server to a directory, as one LMDB store's server has its directory to itself.
    if (options_.store == StoreBackend::kRados && !options_.data_dir.empty()) {
      StatusOr<store::DirectoryClaim> claim = store::ClaimDirectory(options_.data_dir, false);
      if (!claim.ok()) return claim.status();
      data_dir_claim_ = *std::move(claim);
    }
    StatusOr<std::unique_ptr<store::BlobStore>> store = OpenStore(options_, *store_metrics);
    if (!store.ok()) return store.status();
    store_ = *std::move(store);

    StatusOr<std::unique_ptr<tuner::Limiter>> reads = MakeLimiter(options_, "read", *read_metrics);
    if (!reads.ok()) return reads.status();
    read_limiter_ = *std::move(reads);
    StatusOr<std::unique_ptr<tuner::Limiter>> writes =
        MakeLimiter(options_, "write", *write_metrics);
    if (!writes.ok()) return writes.status();
    write_limiter_ = *std::move(writes);
    store_link_ = (*store_metrics)->Attach(*store_);

    read_pool_ = std::make_unique<asio::thread_pool>(options_.read_threads);
    blobs_ = std::make_unique<store::AsyncBlobStore>(*store_, io_.get_executor(),
                                                     read_pool_->get_executor(),
                                                     read_limiter_.get(), write_limiter_.get());
    // The status page's history: read from the registry once a second, off the permit path.
    status_sampler_ = std::make_unique<metrics::StatusSampler>(registry_, status_page_,
                                                               std::chrono::seconds(1));
    handler_ = std::make_unique<BlobHandler>(*blobs_, registry_, status_page_,
                                             read_pool_->get_executor(), options_, &draining_);
    // Every permit busy and one request in hand for each (request_gate.h).
    hub_ = std::make_unique<ConnectionHub>(
        options_, *handler_, **http_metrics, &draining_,
        [this] { return 2 * static_cast<size_t>(read_limiter_->limit()); },
        [this] { return 2 * static_cast<size_t>(write_limiter_->limit()); });
    return Listen();
  }

  void Run() {
    asio::co_spawn(io_, Accept(), asio::detached);
    if (KeepsState(options_)) asio::co_spawn(io_, SaveStatesPeriodically(), asio::detached);
    thread_ = std::thread([this] { io_.run(); });
  }

  ~Impl() {
    Shutdown();
    Wait();
  }

  uint16_t port() const noexcept { return port_; }

  void Shutdown() {
    asio::post(io_, [this] {
      if (shutdown_started_) return;
      shutdown_started_ = true;
      boost::system::error_code ignored;
      acceptor_.close(ignored);
      save_timer_.cancel();  // The last save comes after the last request (Wait).
      grace_.expires_after(options_.shutdown_grace);
      grace_.async_wait([this](boost::system::error_code ec) {
        if (!ec) hub_->CloseAll();  // Grace is over: whatever is still busy is cut off.
      });
      hub_->StartDraining([this] { grace_.cancel(); });
    });
  }

  void Wait() {
    std::call_once(joined_, [this] {
      if (thread_.joinable()) thread_.join();  // Returns once every connection is gone.
      if (read_pool_) read_pool_->join();
      if (KeepsState(options_) && write_limiter_) SaveStates();
    });
  }

  std::string MetricsText() const { return registry_.TextExposition(); }
  std::vector<metrics::LimiterSnapshot> LimiterSnapshots() const {
    return registry_.LimiterSnapshots();
  }

 private:
  Status Listen() {
    StatusOr<uint16_t> port = examples::Listen(acceptor_, options_.address, options_.port);
    if (!port.ok()) return port.status();
    port_ = *port;
    return Status();
  }

  // Saves both limiters' states; a failure goes to the log. Never two at once: the periodic
  // saves run one after the other on the read pool, the last one after it has stopped.
  void SaveStates() {
    for (auto [name, limiter] : {std::pair{"read", read_limiter_.get()},
                                 std::pair{"write", write_limiter_.get()}}) {
      const Status saved = SaveLimiterState(options_.data_dir, name, limiter->SaveAlgorithmState());
      if (!saved.ok() && options_.log) options_.log(saved.message());
    }
  }

  asio::awaitable<void> SaveStatesOnPool() {
    SaveStates();
    co_return;
  }

  // Every state_save_interval, a save on the read pool (off the event loop: it syncs a file),
  // the next only once the last one is done.
  asio::awaitable<void> SaveStatesPeriodically() {
    while (true) {
      boost::system::error_code ec;
      save_timer_.expires_after(options_.state_save_interval);
      co_await save_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return;  // Shutting down.
      co_await asio::co_spawn(read_pool_->get_executor(), SaveStatesOnPool(), asio::use_awaitable);
    }
  }

  asio::awaitable<void> Accept() {
    asio::steady_timer backoff(io_);
    while (acceptor_.is_open()) {
      boost::system::error_code ec;
      tcp::socket socket =
          co_await acceptor_.async_accept(asio::redirect_error(asio::use_awaitable, ec));
      if (ec == asio::error::operation_aborted || !acceptor_.is_open()) co_return;
      if (ec) {
        // Out of file descriptors or similar: back off instead of spinning on the error.
        backoff.expires_after(std::chrono::milliseconds(10));
        co_await backoff.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        continue;
      }
      asio::awaitable<void> serve = hub_->full() ? RefuseConnection(std::move(socket), *hub_)
                                                 : ServeConnection(std::move(socket), *hub_);
      asio::co_spawn(io_, std::move(serve), asio::detached);
    }
  }

  const ServerOptions options_;
  store::DirectoryClaim data_dir_claim_;  // With --store rados: released after the last save.
  metrics::MetricsRegistry registry_;
  std::unique_ptr<store::BlobStore> store_;
  std::unique_ptr<tuner::Limiter> read_limiter_;
  std::unique_ptr<tuner::Limiter> write_limiter_;
  metrics::Attachment store_link_;  // After the store: unlinked before it closes.
  metrics::StatusPage status_page_;
  // Reads registry_ and writes status_page_, so it is destroyed before either.
  std::unique_ptr<metrics::StatusSampler> status_sampler_;
  std::unique_ptr<asio::thread_pool> read_pool_;
  std::atomic<bool> draining_{false};
  std::unique_ptr<store::AsyncBlobStore> blobs_;
  std::unique_ptr<BlobHandler> handler_;
  std::unique_ptr<ConnectionHub> hub_;
  // After what its handlers use: destroying it destroys any handler it still holds.
  asio::io_context io_{1};
  tcp::acceptor acceptor_{io_};
  asio::steady_timer grace_{io_};
  asio::steady_timer save_timer_{io_};
  bool shutdown_started_ = false;  // Event-loop thread only.
  uint16_t port_ = 0;
  std::thread thread_;
  std::once_flag joined_;
};

StatusOr<std::unique_ptr<BlobServer>> BlobServer::Start(const ServerOptions& options) {
  if (Status valid = options.Validate(); !valid.ok()) return valid;
  auto impl = std::make_unique<Impl>(options);
  if (Status opened = impl->Open(); !opened.ok()) return opened;
  impl->Run();
  return std::unique_ptr<BlobServer>(new BlobServer(std::move(impl)));
}

BlobServer::BlobServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BlobServer::~BlobServer() = default;

uint16_t BlobServer::port() const noexcept { return impl_->port(); }
void BlobServer::Shutdown() { impl_->Shutdown(); }
void BlobServer::Wait() { impl_->Wait(); }
std::string BlobServer::MetricsText() const { return impl_->MetricsText(); }
std::vector<metrics::LimiterSnapshot> BlobServer::LimiterSnapshots() const {
  return impl_->LimiterSnapshots();
}

}  // namespace blobtune::server
