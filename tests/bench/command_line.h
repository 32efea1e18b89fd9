// The benchmark programs' command line in the dialect of the blobtune programs
// (examples/common/command_line.h): --version prints "PROGRAM VERSION" and exits 0, --help is
// Google Benchmark's, and a flag that neither Google Benchmark nor the program knows prints
// "PROGRAM: unrecognised option '--bogus' (see --help)" and exits 2. Random interleaving is on
// by default (interleave.h).
//
//   int main(int argc, char** argv) {
//     if (int code = bench::Initialize("blobtune-store-bench", argc, argv); code >= 0) return code;
//     benchmark::RunSpecifiedBenchmarks();
//
// Thread-safety: call once, from main, before any benchmark runs.
#ifndef BLOBTUNE_TESTS_BENCH_COMMAND_LINE_H_
#define BLOBTUNE_TESTS_BENCH_COMMAND_LINE_H_

#include <benchmark/benchmark.h>

#include <iostream>
#include <string_view>
#include <vector>

#include "blobtune/base/version.h"
#include "interleave.h"

namespace bench {

// Returns 0 after --version, 2 after an unknown flag, -1 to go on.
inline int Initialize(std::string_view program, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--version") {
      std::cout << program << " " << blobtune::kVersion << "\n";
      return 0;
    }
  }
  // Google Benchmark keeps pointers into its argv: this one lives as long as the program.
  static std::vector<char*> args;
  args = InterleavedByDefault(argc, argv);
  int count = static_cast<int>(args.size()) - 1;  // The last one is the null terminator.
  benchmark::Initialize(&count, args.data());
  if (count > 1) {  // What Google Benchmark left is nobody's flag.
    std::cerr << program << ": unrecognised option '" << args[1] << "' (see --help)\n";
    return 2;
  }
  return -1;
}

}  // namespace bench

#endif  // BLOBTUNE_TESTS_BENCH_COMMAND_LINE_H_
