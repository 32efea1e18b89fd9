// The real parts every delivery test runs the paths against: a store with the delivery's
// namespaces (no sync: the tests check contents, not durability) and a limiter at a fixed limit.
#ifndef BLOBTUNE_TESTS_DELIVERY_DELIVERY_PARTS_H_
#define BLOBTUNE_TESTS_DELIVERY_DELIVERY_PARTS_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "blobtune/store/blob_store.h"
#include "blobtune/store/lmdb_blob_store.h"
#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/limiter.h"
#include "delivery_run.h"

namespace blobtune::delivery {

inline std::unique_ptr<store::BlobStore> OpenDeliveryStore(const std::string& directory) {
  store::LmdbStoreOptions options;
  options.directory = directory;
  options.namespaces = {kIncoming, kPayload, kDocuments};
  options.durability = store::Durability::kNoSync;
  auto opened = store::OpenLmdbBlobStore(options);
  EXPECT_TRUE(opened.ok()) << opened.status();
  return std::move(opened).value();
}

inline std::unique_ptr<tuner::Limiter> FixedLimiter(int limit) {
  auto algorithm =
      tuner::MakeAlgorithm({.name = "fixed", .params = {{"limit", static_cast<double>(limit)}}});
  return tuner::Limiter::Create({.algorithm = std::move(algorithm).value()}).value();
}

}  // namespace blobtune::delivery

#endif  // BLOBTUNE_TESTS_DELIVERY_DELIVERY_PARTS_H_
