#include "load_class.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "blobtune/base/text.h"
#include "load_flags.h"

namespace blobtune::load {
namespace {

constexpr std::string_view kSpaces = " \t";

// The words of `text`, between spaces.
std::vector<std::string_view> Words(std::string_view text) {
  std::vector<std::string_view> words;
  for (size_t start = text.find_first_not_of(kSpaces); start != std::string_view::npos;
       start = text.find_first_not_of(kSpaces, start)) {
    const size_t end = std::min(text.find_first_of(kSpaces, start), text.size());
    words.push_back(text.substr(start, end - start));
    start = end;
  }
  return words;
}

bool IsClassName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

// The seed of the run's class `index`: --seed advanced by SplitMix64's golden-ratio step once
// per class, so that no two classes of a run draw the same sequence.
uint64_t ClassSeed(uint64_t seed, size_t index) {
  return seed + 0x9E3779B97F4A7C15ULL * (index + 1);
}

// The class that `spec` names over `base`, the run's class `index`.
StatusOr<LoadClass> ParseLoadClass(std::string_view spec, const LoadOptions& base, size_t index) {
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos) {
    return Status::InvalidArgument("must be 'NAME: KEY=VALUE ...', got '" + std::string(spec) +
                                   "'");
  }
  LoadClass load_class{.name = std::string(Trim(spec.substr(0, colon))), .options = base};
  if (!IsClassName(load_class.name)) {
    return Status::InvalidArgument("a class name must be letters, digits, '_' or '-', got '" +
                                   load_class.name + "'");
  }
  auto refuse = [&](const std::string& message) {
    return Status::InvalidArgument(load_class.name + ": " + message);
  };
  LoadOptions& options = load_class.options;
  std::set<std::string> given;
  for (std::string_view word : Words(spec.substr(colon + 1))) {
    const size_t equals = word.find('=');
    if (equals == std::string_view::npos) {
      return refuse("'" + std::string(word) + "' is not KEY=VALUE");
    }
    const std::string key(word.substr(0, equals));
    const std::optional<FlagScope> scope = LoadFlagScope(key);
    if (!scope) {
      return refuse("unknown key '" + key + "' (a class sets " + PerClassFlagList() + ")");
    }
    if (*scope == FlagScope::kShared) {
      return refuse(key + " is shared by every class: set it with --" + key);
    }
    if (!given.insert(key).second) return refuse(key + " is given twice");
    if (Status set = SetLoadFlag(key, word.substr(equals + 1), options); !set.ok()) {
      return set.WithContext(load_class.name);
    }
  }
  options.id_prefix = base.id_prefix + "-" + load_class.name;
  options.seed = ClassSeed(base.seed, index);
  if (Status valid = options.Validate(); !valid.ok()) {
    return refuse(InFlagWords(valid, options, ""));
  }
  return load_class;
}

}  // namespace

StatusOr<std::vector<LoadClass>> ParseLoadClasses(const std::vector<std::string>& specs,
                                                  const LoadOptions& base) {
  std::vector<LoadClass> classes;
  for (size_t i = 0; i < specs.size(); ++i) {
    StatusOr<LoadClass> parsed = ParseLoadClass(specs[i], base, i);
    if (!parsed.ok()) return parsed.status();
    for (const LoadClass& earlier : classes) {
      if (earlier.name == parsed->name) {
        return Status::InvalidArgument("two classes are named '" + parsed->name + "'");
      }
    }
    classes.push_back(*std::move(parsed));
  }
  return classes;
}

}  // namespace blobtune::load
