// Uses the installed tuner component alone, as a program that only limits its own concurrency
// would: a limiter with the default algorithm, one permit taken and reported.
#include <chrono>
#include <cstdio>
#include <string>

#include "blobtune/base/status.h"
#include "blobtune/base/version.h"
#include "blobtune/tuner/limiter.h"

int main() {
  auto limiter = blobtune::tuner::Limiter::Create({});
  if (!limiter.ok()) {
    std::fprintf(stderr, "consumer: create limiter: %s\n", limiter.status().ToString().c_str());
    return 1;
  }
  auto permit = (*limiter)->Acquire(std::chrono::seconds(5));
  if (!permit.ok()) {
    std::fprintf(stderr, "consumer: acquire: %s\n", permit.status().ToString().c_str());
    return 1;
  }
  permit->Success(1000);
  std::printf("consumer (tuner): blobtune %s: one permit through %s (limit %d)\n",
              std::string(blobtune::kVersion).c_str(),
              std::string((*limiter)->algorithm_name()).c_str(), (*limiter)->limit());
  return 0;
}
