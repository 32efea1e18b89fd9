// Random interleaving on by default for the benchmark programs here: every repetition of every
// benchmark runs in a shuffled order, so a machine that drifts (a neighbour on a shared host,
// a frequency change) hits a benchmark and its baseline alike, and the medians of one run can
// be compared with each other. An explicit --benchmark_enable_random_interleaving wins.
//
//   std::vector<char*> args = bench::InterleavedByDefault(argc, argv);
//   int count = static_cast<int>(args.size()) - 1;  // The last one is the null terminator.
//   benchmark::Initialize(&count, args.data());
#ifndef BLOBTUNE_TESTS_BENCH_INTERLEAVE_H_
#define BLOBTUNE_TESTS_BENCH_INTERLEAVE_H_

#include <string_view>
#include <vector>

namespace bench {

inline std::vector<char*> InterleavedByDefault(int argc, char** argv) {
  static char kFlag[] = "--benchmark_enable_random_interleaving=true";
  std::vector<char*> args(argv, argv + argc);
  bool explicit_choice = false;
  for (int i = 1; i < argc; ++i) {
    explicit_choice |=
        std::string_view(argv[i]).starts_with("--benchmark_enable_random_interleaving");
  }
  if (!explicit_choice) args.push_back(kFlag);
  args.push_back(nullptr);  // argv[argc] is null, as the C runtime gives it.
  return args;
}

}  // namespace bench

#endif  // BLOBTUNE_TESTS_BENCH_INTERLEAVE_H_
