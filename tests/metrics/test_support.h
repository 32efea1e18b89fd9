// Helpers shared by the metrics tests: a temp directory, running promtool on a text, a limit
// algorithm whose limit and estimates the test sets, and percent-encoding for query strings.
#ifndef BLOBTUNE_TESTS_METRICS_TEST_SUPPORT_H_
#define BLOBTUNE_TESTS_METRICS_TEST_SUPPORT_H_

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <atomic>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "blobtune/tuner/limit_algorithm.h"
#include "common/temp_dir.h"

namespace blobtune::metrics::testing {

// One fresh directory per test; see tests/common/temp_dir.h.
class TempDir : public ::blobtune::testing::TempDir {
 public:
  TempDir() : ::blobtune::testing::TempDir("blobtune-metrics") {}
};

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together.
};

// Runs `command` with /bin/sh, feeding it `input` on stdin (from a file in `dir`).
inline CommandResult RunCommand(const std::string& command, std::string_view input,
                                const TempDir& dir) {
  const std::string in = dir.Sub("stdin.txt");
  std::ofstream(in) << input;
  CommandResult r;
  FILE* p = popen((command + " < '" + in + "' 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// `promtool check metrics` on an exposition text.
inline CommandResult PromtoolCheckMetrics(std::string_view exposition) {
  TempDir dir;
  return RunCommand(std::string(BLOBTUNE_PROMTOOL) + " check metrics", exposition, dir);
}

// A LimitAlgorithm whose limit the test sets through a shared atomic; it reports estimates.
class SteeredAlgorithm final : public tuner::LimitAlgorithm {
 public:
  explicit SteeredAlgorithm(std::shared_ptr<std::atomic<int>> target)
      : target_(std::move(target)) {}
  std::string_view name() const noexcept override { return "steered"; }
  int limit() const noexcept override { return limit_; }
  int min_limit() const noexcept override { return 1; }
  int max_limit() const noexcept override { return 64; }
  int Update(const tuner::Sample&) override {
    limit_ = target_->load();
    return limit_;
  }
  tuner::AlgorithmEstimates estimates() const override {
    tuner::AlgorithmEstimates e;
    e.baseline_latency = std::chrono::milliseconds(2);
    e.max_throughput = 1234.5;
    e.state = "steady";
    return e;
  }
  std::unique_ptr<tuner::LimitAlgorithm> Clone() const override {
    return std::make_unique<SteeredAlgorithm>(*this);
  }

 private:
  std::shared_ptr<std::atomic<int>> target_;
  int limit_ = target_->load();
};

// Percent-encodes a query parameter value (RFC 3986: all but unreserved characters).
inline std::string UrlEncode(std::string_view in) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : in) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

}  // namespace blobtune::metrics::testing

#endif  // BLOBTUNE_TESTS_METRICS_TEST_SUPPORT_H_
