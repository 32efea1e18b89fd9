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
  tuner::LimiterOptions options;  // no algorithm: marginal
  options.algorithm = tuner::MakeAlgorithmFromText("marginal:threshold=0.05").value();
  // example end
  auto limiter = tuner::Limiter::Create(std::move(options)).value();
  std::printf("%s between %d and %d, now %d\n", std::string(limiter->algorithm_name()).c_str(),
              limiter->min_limit(), limiter->max_limit(), limiter->limit());
  return limiter->algorithm_name() == "marginal" ? 0 : 1;
}
