// AlgorithmBase: what every limit algorithm of this folder shares, written once, so that an
// algorithm's header is its options and its law (fixed.h and aimd.h are the smallest):
//
//   struct AimdOptions {
//     LimitBounds<20, 20, 200> limits;  // initial_limit, min_limit, max_limit: their defaults
//     double backoff_ratio = 0.9;
//     Status Validate() const;
//   };
//   class AimdLimit final : public AlgorithmBase<AimdLimit, AimdOptions> { ... };
//
//   StatusOr<AimdLimit> aimd = AimdLimit::Create({.limits = {.max_limit = 64}});
//
// The base provides Create() (Validate(), then the algorithm's constructor: the base's, which
// the algorithm inherits with `using AlgorithmBase::AlgorithmBase;` and which stays protected,
// or its own, private, which befriends the base), name() (the algorithm's kName), limit()
// (`limit_`, which the law sets), min_limit() and max_limit() (from `limits`, or for options
// with one `limit` that never moves, that limit), Clone(), options(), copy and move.
//
// Thread-safety: none; driven by one thread at a time.
#ifndef BLOBTUNE_TUNER_ALGORITHMS_ALGORITHM_BASE_H_
#define BLOBTUNE_TUNER_ALGORITHMS_ALGORITHM_BASE_H_

#include <memory>
#include <string_view>

#include "blobtune/base/status.h"
#include "blobtune/base/status_or.h"
#include "blobtune/tuner/limit_algorithm.h"

namespace blobtune::tuner {

// The limits of an algorithm that moves its limit, with that algorithm's defaults (so that
// `.limits = {.max_limit = 64}` keeps the other two at the algorithm's own).
template <int kInitial, int kMin, int kMax>
struct LimitBounds {
  // The limit before any sample. REQUIRES: min_limit <= initial_limit <= max_limit.
  int initial_limit = kInitial;
  // Floor of the limit. REQUIRES: >= 1.
  int min_limit = kMin;
  // Ceiling of the limit. REQUIRES: <= 1000000.
  int max_limit = kMax;
};

template <typename Algorithm, typename AlgorithmOptions>
class AlgorithmBase : public LimitAlgorithm {
 public:
  using Options = AlgorithmOptions;

  // The algorithm with these options, or INVALID_ARGUMENT naming the option Validate() refused.
  static StatusOr<Algorithm> Create(const Options& options) {
    if (Status s = options.Validate(); !s.ok()) return s;
    return Algorithm(options);
  }

  AlgorithmBase(const AlgorithmBase&) = default;
  AlgorithmBase& operator=(const AlgorithmBase&) = default;
  AlgorithmBase(AlgorithmBase&&) = default;
  AlgorithmBase& operator=(AlgorithmBase&&) = default;
  ~AlgorithmBase() override = default;

  std::string_view name() const noexcept final { return Algorithm::kName; }
  int limit() const noexcept final { return limit_; }
  int min_limit() const noexcept final { return Limits(options_).min_limit; }
  int max_limit() const noexcept final { return Limits(options_).max_limit; }
  std::unique_ptr<LimitAlgorithm> Clone() const final {
    return std::make_unique<Algorithm>(static_cast<const Algorithm&>(*this));
  }

  const Options& options() const noexcept { return options_; }

 protected:
  // REQUIRES: options.Validate() is OK.
  explicit AlgorithmBase(const Options& options)
      : options_(options), limit_(Limits(options).initial_limit) {}

  Options options_;
  int limit_;  // The limit in force; the law keeps it within [min_limit(), max_limit()].

 private:
  // The options' `limits`, or for options with one `limit` that never moves, that limit thrice.
  static auto Limits(const Options& o) noexcept {
    if constexpr (requires { o.limits; }) {
      return o.limits;
    } else {
      return LimitBounds<1, 1, 1>{o.limit, o.limit, o.limit};
    }
  }
};

}  // namespace blobtune::tuner

#endif  // BLOBTUNE_TUNER_ALGORITHMS_ALGORITHM_BASE_H_
