// LoadFlags: blobtune-load's per-load settings by the names its command line gives them (a flag
// without "--": "rate", "max-connections", "upload-ms"), so that a flag and a --class key
// (load_class.h) are one setting, read one way and refused in the same words.
//
//   Status set = SetLoadFlag("size", "16K", options);         // options.size = 16384
//   Status valid = options.Validate();                        // "rate must be in (0, 1000000]"
//   std::string said = InFlagWords(valid, options, "--");     // "--rate: must be in (0, 1000000],
//                                                             //  got 0"
//
// Thread-safety: pure functions.
#ifndef BLOBTUNE_EXAMPLES_LOAD_LOAD_FLAGS_H_
#define BLOBTUNE_EXAMPLES_LOAD_LOAD_FLAGS_H_

#include <optional>
#include <string>
#include <string_view>

#include "blobtune/base/status.h"
#include "load_generator.h"

namespace blobtune::load {

// Whether a --class may set a flag: each class's own, or one setting of the whole run (the
// server, the windows, the timeout, and the id prefix and seed that each class derives its own
// from).
enum class FlagScope { kPerClass, kShared };

// The scope of the per-load flag `name` ("rate"); nothing for a name that is not one.
std::optional<FlagScope> LoadFlagScope(std::string_view name);

// The flags a class may set, in --help's order: "mode, connections, rate, ...".
std::string PerClassFlagList();

// Sets the per-class flag `name` from its text as typed ("16K", "open", "0.5"). INVALID_ARGUMENT
// "NAME: RULE, got TEXT" for an unknown or shared name or a text that is not a value of the flag
// ("rate: must be a number, got fast"); ranges are LoadOptions::Validate()'s.
Status SetLoadFlag(std::string_view name, std::string_view text, LoadOptions& options);

// A LoadOptions::Validate() failure said with the flag instead of the field, after `prefix`,
// with the value the field holds in `options`: "rate must be in (0, 1000000]" becomes
// "--rate: must be in (0, 1000000], got 0" for the prefix "--".
std::string InFlagWords(const Status& invalid, const LoadOptions& options, std::string_view prefix);

}  // namespace blobtune::load

#endif  // BLOBTUNE_EXAMPLES_LOAD_LOAD_FLAGS_H_
