// AlgorithmState's text (round trip, every refusal names its line), the default SaveState and
// RestoreState of the algorithms, and Limiter::SaveAlgorithmState under concurrent traffic.
#include "blobtune/tuner/algorithm_state.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "blobtune/base/version.h"
#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/algorithms/fixed.h"
#include "blobtune/tuner/limiter.h"
#include "blobtune/tuner/limiter_observer.h"

namespace blobtune::tuner {
namespace {

TEST(AlgorithmStateTest, TextReadsBackExactly) {
  const AlgorithmState state{.version = "0.1.0",
                             .algorithm = "marginal",
                             .values = {{"limit", 87.25}, {"hold_s", 0.1 + 0.2}, {"noise", 3e-9}}};
  const StatusOr<AlgorithmState> read = AlgorithmState::FromText(state.ToText());
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->version, "0.1.0");
  EXPECT_EQ(read->algorithm, "marginal");
  EXPECT_EQ(read->values, state.values);
  EXPECT_EQ(read->Find("hold_s"), 0.1 + 0.2);
  EXPECT_FALSE(read->Find("nothing").has_value());
}

TEST(AlgorithmStateTest, RefusalsNameTheLine) {
  const auto error = [](std::string_view text) {
    StatusOr<AlgorithmState> read = AlgorithmState::FromText(text);
    EXPECT_FALSE(read.ok()) << text;
    return read.ok() ? std::string() : std::string(read.status().message());
  };
  EXPECT_NE(error("").find("empty"), std::string::npos);
  EXPECT_NE(error("limit 3\n").find("line 1"), std::string::npos);
  const std::string head = "blobtune-algorithm-state 1\nversion 1\nalgorithm a\n";
  EXPECT_NE(error(head + "limit\n").find("line 4: expected 'key value'"), std::string::npos);
  EXPECT_NE(error(head + "Limit 3\n").find("line 4"), std::string::npos);
  EXPECT_NE(error(head + "limit nan\n").find("not a finite number"), std::string::npos);
  EXPECT_NE(error(head + "limit 3x\n").find("not a finite number"), std::string::npos);
  EXPECT_NE(error(head + "limit 3\nlimit 4\n").find("line 5: limit given twice"),
            std::string::npos);
  EXPECT_NE(error("blobtune-algorithm-state 1\nversion 1\n").find("no algorithm"),
            std::string::npos);
  EXPECT_NE(error("blobtune-algorithm-state 2\n").find("line 1"), std::string::npos);
}

TEST(AlgorithmStateTest, ByDefaultTheLimitIsSavedAndNothingRestores) {
  std::unique_ptr<LimitAlgorithm> aimd = MakeAlgorithmFromText("aimd").value();
  const AlgorithmState saved = aimd->SaveState();
  EXPECT_EQ(saved.version, kVersion);
  EXPECT_EQ(saved.algorithm, "aimd");
  EXPECT_EQ(saved.Find("limit"), aimd->limit());
  const Status restored = aimd->RestoreState(saved);
  EXPECT_EQ(restored.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(restored.message().find("aimd cannot start from a saved state"),
            std::string_view::npos);
}

TEST(AlgorithmStateTest, FixedTakesItsOwnStateAndRefusesAnothers) {
  FixedLimit fixed = FixedLimit::Create({.limit = 7}).value();
  EXPECT_TRUE(fixed.RestoreState(fixed.SaveState()).ok());
  EXPECT_EQ(fixed.limit(), 7);
  AlgorithmState other = fixed.SaveState();
  other.algorithm = "marginal";
  EXPECT_EQ(fixed.RestoreState(other).code(), StatusCode::kInvalidArgument);
}

// Counts the samples the limiter publishes (the observer hears each) and those it applies (the
// wrapped algorithm's updates); saves and restores pass through to the wrapped algorithm.
class CountingObserver final : public LimiterObserver {
 public:
  void OnReleased(PartitionId, PermitOutcome, const Sample* sample) override {
    if (sample != nullptr) published.fetch_add(1);
  }
  std::atomic<int> published{0};
};

class CountingAlgorithm final : public LimitAlgorithm {
 public:
  CountingAlgorithm(std::unique_ptr<LimitAlgorithm> inner, std::atomic<int>* updates)
      : inner_(std::move(inner)), updates_(updates) {}
  std::string_view name() const noexcept override { return inner_->name(); }
  int limit() const noexcept override { return inner_->limit(); }
  int min_limit() const noexcept override { return inner_->min_limit(); }
  int max_limit() const noexcept override { return inner_->max_limit(); }
  int Update(const Sample& sample) override {
    updates_->fetch_add(1);
    return inner_->Update(sample);
  }
  std::unique_ptr<LimitAlgorithm> Clone() const override {
    return std::make_unique<CountingAlgorithm>(inner_->Clone(), updates_);
  }
  AlgorithmState SaveState() const override { return inner_->SaveState(); }
  Status RestoreState(const AlgorithmState& state) override { return inner_->RestoreState(state); }

 private:
  std::unique_ptr<LimitAlgorithm> inner_;
  std::atomic<int>* updates_;
};

TEST(LimiterSaveStateTest, SavesWhileOtherThreadsFeedTheAlgorithm) {
  std::atomic<int> applied{0};
  CountingObserver observer;
  auto limiter =
      Limiter::Create({.algorithm = std::make_unique<CountingAlgorithm>(
                           MakeAlgorithmFromText("marginal").value(), &applied),
                       .observer = &observer})
          .value();
  // Fewer accesses in all than the limiter's sample queue holds (1024), so that no sample is
  // dropped for a full queue however the threads are scheduled.
  constexpr int kWorkers = 3;
  constexpr int kAccessesPerWorker = 300;
  std::atomic<int> running{kWorkers};
  std::vector<std::thread> workers;
  for (int t = 0; t < kWorkers; ++t) {
    workers.emplace_back([&] {
      for (int done = 0; done < kAccessesPerWorker;) {
        if (std::optional<Permit> permit = limiter->TryAcquire()) {
          permit->Success();
          ++done;
        }
      }
      running.fetch_sub(1);
    });
  }
  int saves = 0;
  while (running.load() > 0 || saves < 10) {
    const AlgorithmState state = limiter->SaveAlgorithmState();
    ++saves;
    EXPECT_EQ(state.algorithm, "marginal");
    const std::optional<double> limit = state.Find("limit");
    ASSERT_TRUE(limit.has_value());
    EXPECT_GE(*limit, limiter->min_limit() - 0.5);
    EXPECT_LE(*limit, limiter->max_limit() + 0.5);
  }
  for (std::thread& worker : workers) worker.join();
  // Every sample published while a save held the algorithm was applied afterwards, none left
  // behind in the queue, and the limiter still serves.
  EXPECT_GT(observer.published.load(), 0);
  EXPECT_EQ(applied.load(), observer.published.load());
  EXPECT_EQ(limiter->lost_samples(), 0u);
  EXPECT_TRUE(limiter->TryAcquire().has_value());
}

}  // namespace
}  // namespace blobtune::tuner
