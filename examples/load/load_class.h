// LoadClass: one class of blobtune-load's load, read from a --class value "NAME: KEY=VALUE ...":
// the run's options with the per-class flags it names set (load_flags.h), its own ids
// (<id_prefix>-NAME-N) and its own seed, so that classes run side by side neither collide nor
// mirror each other.
//
//   StatusOr<std::vector<LoadClass>> classes = ParseLoadClasses(
//       {"interactive: mode=open rate=20 partition=interactive",
//        "bulk: connections=64 put-fraction=1 size=64K partition=bulk"},
//       base);
//   // (*classes)[1].options: base's with four flags set; ids "load-bulk-N".
//
// Thread-safety: pure functions.
#ifndef BLOBTUNE_EXAMPLES_LOAD_LOAD_CLASS_H_
#define BLOBTUNE_EXAMPLES_LOAD_LOAD_CLASS_H_

#include <string>
#include <vector>

#include "blobtune/base/status_or.h"
#include "load_generator.h"

namespace blobtune::load {

struct LoadClass {
  std::string name;  // Letters, digits, '_' and '-'; unique among a run's classes.
  LoadOptions options;
};

// One class per spec, in order, each over `base`. INVALID_ARGUMENT saying what is wrong: a spec
// without its colon, a bad or repeated class name, an unknown key, a key that every class shares
// (seconds=3), a key given twice, a bad value, or one that LoadOptions::Validate() refuses
// ("bulk: rate: must be in (0, 1000000], got 0", in the words of --rate 0).
StatusOr<std::vector<LoadClass>> ParseLoadClasses(const std::vector<std::string>& specs,
                                                  const LoadOptions& base);

}  // namespace blobtune::load

#endif  // BLOBTUNE_EXAMPLES_LOAD_LOAD_CLASS_H_
