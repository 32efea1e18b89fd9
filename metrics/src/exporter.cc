#include "blobtune/metrics/exporter.h"

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>
#include <prometheus/metric_family.h>

#include <charconv>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "exposition.h"

namespace blobtune::metrics {
namespace {

// Serves the registry's series; prometheus-cpp calls Collect() on its server threads.
class RegistryCollectable final : public prometheus::Collectable {
 public:
  explicit RegistryCollectable(const MetricsRegistry& registry) : registry_(registry) {}
  std::vector<prometheus::MetricFamily> Collect() const override {
    return internal::ToMetricFamilies(registry_.LimiterSnapshots(), registry_.StoreSnapshots());
  }

 private:
  const MetricsRegistry& registry_;
};

// Compares without an early exit, so response times do not tell how much of a guess matched.
bool SameSecret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  }
  return diff == 0;
}

bool ValidPort(std::string_view port) {
  if (port.empty() || port.size() > 5) return false;
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  return ec == std::errc() && end == port.data() + port.size() && value <= 65535;
}

}  // namespace

// The HTTP server and what it serves. Members are destroyed in reverse order: the server threads
// stop before the collectable they call goes away.
class Exporter::Server {
 public:
  std::shared_ptr<RegistryCollectable> collectable;
  std::unique_ptr<prometheus::Exposer> exposer;
};

Status ExporterOptions::Validate() const {
  if (path.empty() || path.front() != '/') {
    return Status::InvalidArgument("ExporterOptions::path must start with '/', not '" + path + "'");
  }
  if (threads < 1) return Status::InvalidArgument("ExporterOptions::threads must be >= 1");
  if (basic_auth_username.empty() && !basic_auth_password.empty()) {
    return Status::InvalidArgument("ExporterOptions::basic_auth_password given without a username");
  }
  if (basic_auth_username.find(':') != std::string::npos) {
    return Status::InvalidArgument("ExporterOptions::basic_auth_username must not contain ':'");
  }
  return Status::Ok();
}

StatusOr<std::string> NormalizeListenAddress(std::string_view address) {
  const std::string what = "metrics address '" + std::string(address) + "'";
  std::string_view host;
  std::string_view port;
  if (!address.empty() && address.front() == '[') {
    const size_t close = address.find(']');
    if (close == std::string_view::npos || close + 1 >= address.size() ||
        address[close + 1] != ':') {
      return Status::InvalidArgument(what + ": expected [IPV6]:PORT");
    }
    host = address.substr(0, close + 1);
    port = address.substr(close + 2);
    if (host.size() <= 2) return Status::InvalidArgument(what + ": empty IPv6 host");
  } else {
    const size_t colon = address.rfind(':');
    if (colon == std::string_view::npos) {
      port = address;
    } else {
      host = address.substr(0, colon);
      port = address.substr(colon + 1);
      if (host.find(':') != std::string_view::npos) {
        return Status::InvalidArgument(what + ": put an IPv6 host in brackets, [::1]:PORT");
      }
    }
  }
  if (!ValidPort(port)) {
    return Status::InvalidArgument(what + ": expected HOST:PORT with a port in 0..65535");
  }
  if (host.empty()) host = "127.0.0.1";
  if (host.find_first_of(" ,") != std::string_view::npos) {
    return Status::InvalidArgument(what + ": bad host");
  }
  return std::string(host) + ":" + std::string(port);
}

Exporter::Exporter() = default;

Exporter::~Exporter() = default;

StatusOr<std::unique_ptr<Exporter>> Exporter::Start(std::string_view address,
                                                    ExporterOptions options) {
  if (Status s = options.Validate(); !s.ok()) return s;
  StatusOr<std::string> listen = NormalizeListenAddress(address);
  if (!listen.ok()) return listen.status();

  std::unique_ptr<Exporter> exporter(new Exporter());
  auto server = std::make_unique<Server>();
  server->collectable = std::make_shared<RegistryCollectable>(exporter->registry_);
  // prometheus-cpp reports failures by throwing (CivetException when the port cannot be bound);
  // none may leave this function.
  try {
    server->exposer = std::make_unique<prometheus::Exposer>(std::vector<std::string>{
        "listening_ports", *listen, "num_threads", std::to_string(options.threads)});
    if (!options.basic_auth_username.empty()) {
      server->exposer->RegisterAuth(
          [user = options.basic_auth_username, password = options.basic_auth_password](
              const std::string& u, const std::string& p) {
            // Both compared in full, so timing does not say which one was wrong.
            const bool user_ok = SameSecret(u, user);
            const bool password_ok = SameSecret(p, password);
            return user_ok && password_ok;
          },
          "blobtune", options.path);
    }
    server->exposer->RegisterCollectable(server->collectable, options.path);
    const std::vector<int> ports = server->exposer->GetListeningPorts();
    if (ports.empty()) return Status::Unavailable("metrics server on " + *listen + " has no port");
    exporter->port_ = static_cast<uint16_t>(ports.front());
  } catch (const std::exception& e) {
    return Status::Unavailable("cannot serve metrics on " + *listen + ": " + e.what());
  } catch (...) {
    return Status::Unavailable("cannot serve metrics on " + *listen);
  }
  const std::string& host = *listen;
  exporter->address_ = host.substr(0, host.rfind(':') + 1) + std::to_string(exporter->port_);
  exporter->path_ = options.path;
  exporter->server_ = std::move(server);
  return exporter;
}

tuner::LimiterObserver* LimiterObserverOf(Exporter* exporter, std::string name) {
  if (exporter == nullptr) return nullptr;
  StatusOr<LimiterMetrics*> m = exporter->AddLimiter(std::move(name));
  return m.ok() ? *m : nullptr;
}

store::StoreObserver* StoreObserverOf(Exporter* exporter, std::string name) {
  if (exporter == nullptr) return nullptr;
  StatusOr<StoreMetrics*> m = exporter->AddStore(std::move(name));
  return m.ok() ? *m : nullptr;
}

Attachment AttachTo(Exporter* exporter, std::string_view name, const tuner::Limiter& limiter) {
  if (exporter == nullptr) return {};
  LimiterMetrics* m = exporter->registry().FindLimiter(name);
  return m != nullptr ? m->Attach(limiter) : Attachment();
}

Attachment AttachTo(Exporter* exporter, std::string_view name, const store::BlobStore& store) {
  if (exporter == nullptr) return {};
  StoreMetrics* m = exporter->registry().FindStore(name);
  return m != nullptr ? m->Attach(store) : Attachment();
}

}  // namespace blobtune::metrics
