// ScriptedAlgorithm: a LimitAlgorithm for limiter tests whose limit the test sets, and which
// records every sample it is fed. It exercises the limiter's plumbing without any control law.
#ifndef BLOBTUNE_TESTS_TUNER_SCRIPTED_ALGORITHM_H_
#define BLOBTUNE_TESTS_TUNER_SCRIPTED_ALGORITHM_H_

#include <functional>
#include <memory>
#include <vector>

#include "blobtune/base/mutex.h"
#include "blobtune/tuner/limit_algorithm.h"
#include "blobtune/tuner/limiter.h"

namespace blobtune::tuner::testing {

// Shared between the test and the algorithm the limiter owns. Thread-safe, once `next_limit` is
// set (before the limiter runs).
struct Script {
  Mutex mu;
  std::vector<Sample> samples BLOBTUNE_GUARDED_BY(mu);
  // Maps (current limit, sample) to the next limit; default keeps the limit. Called under `mu`.
  std::function<int(int, const Sample&)> next_limit = [](int limit, const Sample&) {
    return limit;
  };

  std::vector<Sample> Samples() {
    MutexLock lock(mu);
    return samples;
  }
};

class ScriptedAlgorithm final : public LimitAlgorithm {
 public:
  ScriptedAlgorithm(int initial_limit, std::shared_ptr<Script> script)
      : limit_(initial_limit), script_(std::move(script)) {}

  std::string_view name() const noexcept override { return "scripted"; }
  int limit() const noexcept override { return limit_; }
  int min_limit() const noexcept override { return 1; }
  int max_limit() const noexcept override { return Limiter::kMaxLimit; }
  int Update(const Sample& sample) override {
    MutexLock lock(script_->mu);
    script_->samples.push_back(sample);
    limit_ = script_->next_limit(limit_, sample);
    return limit_;
  }
  std::unique_ptr<LimitAlgorithm> Clone() const override {
    return std::make_unique<ScriptedAlgorithm>(*this);
  }

 private:
  int limit_;
  std::shared_ptr<Script> script_;
};

}  // namespace blobtune::tuner::testing

#endif  // BLOBTUNE_TESTS_TUNER_SCRIPTED_ALGORITHM_H_
