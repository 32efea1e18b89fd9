// docs/TUNING.md: any algorithm of the registry, by its spec.
//
//   build/bin/blobtune-doc-tuning
#include <cstdio>
#include <string>

#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/limiter.h"

using namespace blobtune;

int main() {
  // example: spec
  tuner::LimiterOptions options;  // with no algorithm: the default, knee
  options.algorithm = tuner::MakeAlgorithmFromText("gradient2:max_limit=256").value();
  // example end
  auto limiter = tuner::Limiter::Create(std::move(options)).value();
  std::printf("%s between %d and %d, now %d\n", std::string(limiter->algorithm_name()).c_str(),
              limiter->min_limit(), limiter->max_limit(), limiter->limit());
  return limiter->max_limit() == 256 ? 0 : 1;
}
