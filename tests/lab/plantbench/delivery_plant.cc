// delivery_auth: the delivery benchmark's MailServer (one authentication thread with
// exponential lookups) at time scale 0.1, so a lookup takes 4.5 ms on average. Each access,
// under one permit: GET /incoming/{id} of a random message through the delivery's MailClient,
// then the client's own local work as an asio timer (lognormal, mean 25.7 ms x 0.1, cv 0.5), as
// the delivery's blob path does; 32 callers in a closed loop on one io thread. The permit ends
// with Success() after the work, Dropped() if the GET failed.

// <utility> before any Asio header: Boost 1.74's awaitable.hpp uses std::exchange without it.
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http/verb.hpp>
#include <cmath>
#include <random>

#include "blobtune/tuner/async_acquire.h"
#include "mail_client.h"
#include "in_process_point.h"
#include "local_work.h"
#include "mail_server.h"
#include "message.h"
#include "plants.h"

namespace blobtune::plantbench {
namespace {

namespace asio = boost::asio;

constexpr int kCallers = 32;
constexpr double kTimeScale = 0.1;
constexpr size_t kMessages = 100;
// The delivery's client work per limited step (DeliveryOptions::client_work_mean).
constexpr std::chrono::microseconds kClientWorkMean{25'700};

// Lognormal with mean kClientWorkMean x kTimeScale and cv 0.5: sigma^2 = ln(1 + cv^2).
std::chrono::nanoseconds ClientWork(std::mt19937_64& rng) {
  const double sigma = std::sqrt(std::log(1.25));
  const double mean =
      static_cast<double>(std::chrono::nanoseconds(kClientWorkMean).count()) * kTimeScale;
  std::lognormal_distribution<double> work(std::log(mean) - sigma * sigma / 2, sigma);
  return std::chrono::nanoseconds(static_cast<int64_t>(work(rng)));
}

asio::awaitable<void> DeliveryCaller(delivery::MailClient& http, uint64_t seed,
                                     InProcessPoint& point) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, kMessages - 1);
  while (!point.stopping()) {
    StatusOr<tuner::Permit> permit =
        co_await tuner::AsyncAcquire(point.limiter(), point.io().get_executor(),
                                     InProcessPoint::AcquireDeadline(), asio::use_awaitable);
    if (!permit.ok()) continue;  // The meter counted it; a cancel at the end stops the loop.
    std::string target = "/incoming/" + delivery::MessageId(pick(rng));
    StatusOr<delivery::HttpResponse> got =
        co_await http.Request(boost::beast::http::verb::get, std::move(target));
    if (!got.ok() || got->result_int() != 200) {
      permit->Dropped();
      continue;
    }
    co_await delivery::SleepUntil(std::chrono::steady_clock::now() + ClientWork(rng));
    permit->Success(got->body().size());
  }
}

// The delivery_auth plant. Thread-safety: RealPlant's (one RunPoint at a time).
class DeliveryPlant final : public RealPlant {
 public:
  std::string_view name() const override { return "delivery_auth"; }
  int demand() const override { return kCallers; }

  StatusOr<PointResult> RunPoint(const PointSpec& spec) override {
    StatusOr<std::unique_ptr<InProcessPoint>> point = InProcessPoint::Create(spec);
    if (!point.ok()) return point.status();
    delivery::MailServerOptions options;
    options.messages = kMessages;
    options.seed = spec.seed;
    options.time_scale = kTimeScale;
    StatusOr<std::unique_ptr<delivery::MailServer>> mail = delivery::MailServer::Start(options);
    if (!mail.ok()) return mail.status();
    (*mail)->Reset();  // Fills the mailbox.
    InProcessPoint& p = **point;
    delivery::MailClient http(p.io().get_executor(), "127.0.0.1", (*mail)->port());
    for (int i = 0; i < kCallers; ++i) {
      asio::co_spawn(p.io(), DeliveryCaller(http, spec.seed * 1'000 + i, p), asio::detached);
    }
    return p.Run(spec);
  }
};

}  // namespace

std::unique_ptr<RealPlant> MakeDeliveryPlant() { return std::make_unique<DeliveryPlant>(); }

}  // namespace blobtune::plantbench
