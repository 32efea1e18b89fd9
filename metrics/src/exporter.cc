#include "blobtune/metrics/exporter.h"

#include <CivetServer.h>  // CivetCallbacks, which the Exposer takes.
#include <civetweb.h>
#include <prometheus/collectable.h>
#include <prometheus/exposer.h>
#include <prometheus/metric_family.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <exception>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "blobtune/base/mutex.h"
#include "blobtune/metrics/status_page.h"
#include "blobtune/metrics/status_sampler.h"

namespace blobtune::metrics {
namespace {

// Compares without an early exit, so response times do not tell how much of a guess matched.
bool SameSecret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  }
  return diff == 0;
}

std::string Base64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < in.size(); i += 3) {
    const size_t n = std::min<size_t>(3, in.size() - i);
    uint32_t v = 0;
    for (size_t k = 0; k < 3; ++k) {
      v = (v << 8) | (k < n ? static_cast<uint8_t>(in[i + k]) : 0u);
    }
    for (size_t k = 0; k < 4; ++k) {
      out += k <= n ? kAlphabet[(v >> (18 - 6 * k)) & 63] : '=';
    }
  }
  return out;
}

// The status page of one exporter, as its civetweb callback serves it.
struct StatusEndpoint {
  std::string path;
  std::string expected_authorization;  // "Basic BASE64(user:password)"; empty: no auth.
  const StatusPage* page = nullptr;
  int refresh_seconds = 2;
};

// prometheus-cpp's Exposer registers only collectables, but it passes CivetCallbacks to its
// civetweb server. Its begin_request callback sees every request first; it cannot carry a
// pointer of ours (civetweb's user data is the CivetServer), so the status pages are found by
// the port the request came in on (two exporters on one port number but different hosts would
// share the newer one's page). The lock keeps an endpoint alive while its page is rendered: an
// exporter removes its entry before its page goes away.
struct StatusRoutes {
  Mutex mu;
  std::map<int, StatusEndpoint> by_port BLOBTUNE_GUARDED_BY(mu);
};

StatusRoutes& Routes() {
  static StatusRoutes* routes = new StatusRoutes();  // Never destroyed: used by server threads.
  return *routes;
}

void Answer(mg_connection* conn, int code, std::string_view reason, std::string_view type,
            std::string_view body, std::string_view extra_headers, bool head) {
  mg_printf(conn,
            "HTTP/1.1 %d %.*s\r\nContent-Type: %.*s\r\nContent-Length: %zu\r\n"
            "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n%.*s\r\n",
            code, static_cast<int>(reason.size()), reason.data(), static_cast<int>(type.size()),
            type.data(), body.size(), static_cast<int>(extra_headers.size()), extra_headers.data());
  if (!head) mg_write(conn, body.data(), body.size());
}

// civetweb's begin_request: 0 lets civetweb (and so the Exposer) handle the request; otherwise
// the status code sent.
int ServeStatusPage(mg_connection* conn) {
  const mg_request_info* info = mg_get_request_info(conn);
  if (info == nullptr || info->local_uri == nullptr || info->request_method == nullptr) return 0;
  const bool head = std::strcmp(info->request_method, "HEAD") == 0;
  const bool get = std::strcmp(info->request_method, "GET") == 0;
  const char* given = mg_get_header(conn, "Authorization");
  enum class Answered { kNotOurs, kMethod, kAuth, kPage } answered = Answered::kNotOurs;
  std::string html;
  {
    // Only the lookup and the rendering hold the lock: a slow client must not block the others
    // (or an exporter's destructor) while its answer is written.
    StatusRoutes& routes = Routes();
    MutexLock lock(routes.mu);
    auto it = routes.by_port.find(info->server_port);
    if (it == routes.by_port.end() || it->second.path != info->local_uri) return 0;
    const StatusEndpoint& endpoint = it->second;
    if (!head && !get) {
      answered = Answered::kMethod;
    } else if (!endpoint.expected_authorization.empty() &&
               (given == nullptr || !SameSecret(given, endpoint.expected_authorization))) {
      answered = Answered::kAuth;
    } else {
      answered = Answered::kPage;
      html = endpoint.page->Html(endpoint.refresh_seconds);
    }
  }
  switch (answered) {
    case Answered::kNotOurs:
      return 0;
    case Answered::kMethod:
      Answer(conn, 405, "Method Not Allowed", "text/plain; charset=utf-8",
             "the status page answers GET and HEAD\n", "Allow: GET, HEAD\r\n", false);
      return 405;
    case Answered::kAuth:
      Answer(conn, 401, "Unauthorized", "text/plain; charset=utf-8", "authorization required\n",
             "WWW-Authenticate: Basic realm=\"blobtune\"\r\n", head);
      return 401;
    case Answered::kPage:
      break;
  }
  Answer(conn, 200, "OK", "text/html; charset=utf-8", html,
         "Content-Security-Policy: " + std::string(kStatusPageContentSecurityPolicy) + "\r\n",
         head);
  return 200;
}

bool ValidPort(std::string_view port) {
  if (port.empty() || port.size() > 5) return false;
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  return ec == std::errc() && end == port.data() + port.size() && value <= 65535;
}

}  // namespace

// The HTTP server and what it serves. Members are destroyed in reverse order: the server threads
// stop before the collectable they call goes away, and the status page's route is removed (in
// the destructor's body) before anything.
class Exporter::Server {
 public:
  ~Server() {
    if (routed_port == 0) return;
    StatusRoutes& routes = Routes();
    MutexLock lock(routes.mu);
    auto it = routes.by_port.find(routed_port);
    if (it != routes.by_port.end() && it->second.page == status_page.get()) {
      routes.by_port.erase(it);
    }
  }

  std::unique_ptr<StatusPage> status_page;
  std::unique_ptr<StatusSampler> status_sampler;
  int routed_port = 0;  // The port of this exporter's entry in Routes(); 0: none.
  CivetCallbacks callbacks{};
  std::shared_ptr<prometheus::Collectable> collectable;
  std::unique_ptr<prometheus::Exposer> exposer;
};

Status ExporterOptions::Validate() const {
  if (path.empty() || path.front() != '/') {
    return Status::InvalidArgument("ExporterOptions::path must start with '/', not '" + path + "'");
  }
  if (threads < 1) return Status::InvalidArgument("ExporterOptions::threads must be >= 1");
  if (!status_path.empty() && (status_path.front() != '/' || status_path == path)) {
    return Status::InvalidArgument(
        "ExporterOptions::status_path must be empty or start with '/' "
        "and differ from path, not '" +
        status_path + "'");
  }
  if (status_interval <= std::chrono::milliseconds(0)) {
    return Status::InvalidArgument("ExporterOptions::status_interval must be > 0");
  }
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
  if (options.process_metrics) exporter->registry_.AddProcessMetrics();
  auto server = std::make_unique<Server>();
  StatusOr<std::shared_ptr<prometheus::Collectable>> collectable =
      MakeCollectable(exporter->registry_, options.constant_labels);
  if (!collectable.ok()) return collectable.status();
  server->collectable = *std::move(collectable);
  if (!options.status_path.empty()) server->callbacks.begin_request = &ServeStatusPage;
  // prometheus-cpp reports failures by throwing (CivetException when the port cannot be bound);
  // none may leave this function.
  try {
    server->exposer = std::make_unique<prometheus::Exposer>(
        std::vector<std::string>{"listening_ports", *listen, "num_threads",
                                 std::to_string(options.threads)},
        &server->callbacks);
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
    if (!options.status_path.empty()) {
      server->status_page = std::make_unique<StatusPage>();
      server->status_sampler = std::make_unique<StatusSampler>(
          exporter->registry_, *server->status_page, options.status_interval);
      StatusEndpoint endpoint{.path = options.status_path, .page = server->status_page.get()};
      if (!options.basic_auth_username.empty()) {
        endpoint.expected_authorization =
            "Basic " + Base64(options.basic_auth_username + ":" + options.basic_auth_password);
      }
      StatusRoutes& routes = Routes();
      MutexLock lock(routes.mu);
      routes.by_port[ports.front()] = std::move(endpoint);
      server->routed_port = ports.front();
    }
  } catch (const std::exception& e) {
    return Status::Unavailable("cannot serve metrics on " + *listen + ": " + e.what());
  } catch (...) {
    return Status::Unavailable("cannot serve metrics on " + *listen);
  }
  const std::string& host = *listen;
  exporter->address_ = host.substr(0, host.rfind(':') + 1) + std::to_string(exporter->port_);
  exporter->path_ = options.path;
  exporter->status_path_ = options.status_path;
  exporter->server_ = std::move(server);
  return exporter;
}

tuner::LimiterObserver* LimiterObserverOf(Exporter* exporter, std::string name) {
  if (exporter == nullptr) return nullptr;
  if (LimiterMetrics* known = exporter->registry().FindLimiter(name)) return known;
  StatusOr<LimiterMetrics*> m = exporter->AddLimiter(std::move(name));
  return m.ok() ? *m : nullptr;
}

store::StoreObserver* StoreObserverOf(Exporter* exporter, std::string name) {
  if (exporter == nullptr) return nullptr;
  if (StoreMetrics* known = exporter->registry().FindStore(name)) return known;
  StatusOr<StoreMetrics*> m = exporter->AddStore(std::move(name));
  return m.ok() ? *m : nullptr;
}

Attachment AttachTo(Exporter* exporter, std::string_view name, const store::BlobStore& store) {
  if (exporter == nullptr) return {};
  StoreMetrics* m = exporter->registry().FindStore(name);
  return m != nullptr ? m->Attach(store) : Attachment();
}

}  // namespace blobtune::metrics
