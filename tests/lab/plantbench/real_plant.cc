#include "real_plant.h"

#include <functional>

#include "blobtune/tuner/algorithm_registry.h"
#include "plants.h"

namespace blobtune::plantbench {
namespace {

struct PlantEntry {
  const char* name;
  std::function<std::unique_ptr<RealPlant>()> make;
};

const std::vector<PlantEntry>& Plants() {
  static const std::vector<PlantEntry> plants = {
      {"lmdb_put_64k", [] { return MakeStorePutPlant("lmdb_put_64k", 64 * 1024); }},
      {"lmdb_put_1k", [] { return MakeStorePutPlant("lmdb_put_1k", 1024); }},
      {"wait_then_put_100k", MakeWaitThenPutPlant},
      {"cached_get_10k", MakeCachedGetPlant},
      {"server_mixed_16k", MakeServerPlant},
      {"delivery_auth", MakeDeliveryPlant},
      {"encrypt_put_64k", MakeEncryptPutPlant},
      {"locked_write_64k", MakeLockedWritePlant},
#if BLOBTUNE_HAVE_RADOS
      {"rados_put_64k", [] { return MakeRadosPutPlant("rados_put_64k", 64 * 1024); }},
#endif
  };
  return plants;
}

}  // namespace

std::vector<std::string> PlantNames() {
  std::vector<std::string> names;
  for (const PlantEntry& entry : Plants()) names.emplace_back(entry.name);
  return names;
}

StatusOr<std::unique_ptr<RealPlant>> MakePlant(std::string_view name) {
  std::string valid;
  for (const PlantEntry& entry : Plants()) {
    if (name == entry.name) return entry.make();
    valid += (valid.empty() ? "" : ", ") + std::string(entry.name);
  }
  return Status::NotFound("no plant \"" + std::string(name) + "\"; valid: " + valid);
}

Status CheckAlgorithmSpec(const std::string& spec) {
  return tuner::MakeAlgorithmFromText(spec).status();
}

StatusOr<std::unique_ptr<tuner::Limiter>> MakePointLimiter(const std::string& spec,
                                                           tuner::LimiterObserver* observer) {
  StatusOr<std::unique_ptr<tuner::LimitAlgorithm>> algorithm = tuner::MakeAlgorithmFromText(spec);
  if (!algorithm.ok()) return algorithm.status();
  tuner::LimiterOptions options;
  options.algorithm = *std::move(algorithm);
  options.observer = observer;
  return tuner::Limiter::Create(std::move(options));
}

}  // namespace blobtune::plantbench
