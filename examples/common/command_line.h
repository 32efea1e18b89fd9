// CommandLine: the one way the example programs read their flags, on Boost.program_options, so
// that every program speaks the same dialect by construction: --help and --version (exit 0);
// "PROGRAM: MESSAGE (see --help)" on stderr and exit status 2 for an unknown flag, a bad value or
// a stray argument that is no flag (none of the programs takes one), with the message naming the
// flag or argument as the user typed it; sizes with K/M/G suffixes (ByteSize);
// defaults in --help as a person writes them (0.1, 4M); comma lists read alike (SplitList).
// A program declares its flags as one table, where a number's range (range.h) is written once,
// for --help and for the check:
//
//   examples::CommandLine cli("blobtune-load", "blobtune-load: HTTP load against the server.");
//   cli.Add({
//       {"seconds", &seconds, "S", "measured duration", Range::LeftOpen(0, 86400)},
//       {"size", &size, "BYTES", "PUT body, with an optional K/M/G suffix"},
//       {"json", &json, "", "also print the figures as JSON"},
//   });
//   if (int code = cli.Parse(argc, argv); code >= 0) return code;
//
// Thread-safety: none needed; a program makes one in main and writes to stdout/stderr from it.
#ifndef BLOBTUNE_EXAMPLES_COMMON_COMMAND_LINE_H_
#define BLOBTUNE_EXAMPLES_COMMON_COMMAND_LINE_H_

#include <boost/program_options.hpp>
#include <cctype>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "blobtune/base/version.h"
#include "common/parse_number.h"
#include "common/range.h"

namespace blobtune::examples {

namespace po = boost::program_options;

// A size flag's value in bytes, typed with an optional K, M or G suffix (ParseSize).
struct ByteSize {
  size_t bytes = 0;
};

// How Boost.program_options reads a ByteSize (found by argument-dependent lookup). A bad one is
// reported as "the argument ('4Q') for option '--size' is invalid".
inline void validate(boost::any& out, const std::vector<std::string>& values, ByteSize*, int) {
  po::validators::check_first_occurrence(out);
  const std::string& text = po::validators::get_single_string(values);
  std::optional<size_t> bytes = ParseSize(text);
  if (!bytes) throw po::invalid_option_value(text);
  out = ByteSize{*bytes};
}

// A value as a person writes it: 0.1 (not 0.10000000000000001), 2 (not 2.0), 4M, closed.
template <typename T>
std::string FlagText(const T& value) {
  if constexpr (std::is_same_v<T, ByteSize>) {
    return SizeText(value.bytes);
  } else if constexpr (std::is_same_v<T, bool>) {
    return value ? "true" : "false";
  } else if constexpr (std::is_floating_point_v<T>) {
    return NumberText(value);
  } else {
    std::ostringstream out;
    out << value;
    return out.str();
  }
}

inline constexpr int kBadFlags = 2;  // The exit status of an unknown flag or a bad value.

// "PROGRAM: MESSAGE (see --help)" on stderr; returns kBadFlags for main to exit with. For the
// checks a program makes after its CommandLine is gone (a --plot directory it cannot create).
inline int UsageError(std::string_view program, std::string_view message) {
  std::cerr << program << ": " << message << " (see --help)\n";
  return kBadFlags;
}

// A comma-separated flag value as its items, empty ones dropped: "1,2,,auto" -> 1, 2, auto.
inline std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// A number or a size: what a Range can bound.
template <typename T>
concept RangedValue =
    std::is_same_v<T, ByteSize> || (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);

template <typename T>
inline constexpr bool kIsOptional = false;
template <typename T>
inline constexpr bool kIsOptional<std::optional<T>> = true;

// Where a flag with a range keeps its value: a number or a size, or an optional one, whose
// range is checked only when it was given.
template <typename T>
concept RangedTarget = RangedValue<T> || (kIsOptional<T> && RangedValue<typename T::value_type>);

// How a list flag (a vector of strings) takes its items: one after each flag, the flag repeated
// (--partition a=0.5 --partition b=0.5), or also several after one (--workload a.json b.json).
enum class ListItems { kOnePerFlag, kManyPerFlag };

class CommandLine;

// One row of a program's flag table (CommandLine::Add): the flag's name without "--", where its
// value goes, the value's name in --help, what the flag sets, and for a number or a size the
// values it takes (stated at the end of the help: "measured duration (in (0, 86400])"). What
// the target's type makes of the flag:
//   bool                      a switch (--json)
//   std::vector<std::string>  a list, ListItems::kOnePerFlag unless the row says otherwise
//   std::optional<T>          one value, set only when given; --help shows no default
//   anything else             one value; what the target holds now is the default --help shows
class Flag {
 public:
  template <typename T>
  Flag(const char* name, T* target, const char* value_name, std::string help)
      : name_(name), help_(std::move(help)) {
    if constexpr (std::is_same_v<T, bool>) {
      make_ = [target] { return po::bool_switch(target); };
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      make_ = [target, value_name] {
        return ListValue(target, value_name, ListItems::kOnePerFlag);
      };
    } else if constexpr (kIsOptional<T>) {
      using Value = typename T::value_type;
      make_ = [target, value_name] {
        return po::value<Value>()->value_name(value_name)->notifier([target](const Value& value) {
          *target = value;
        });
      };
    } else {
      make_ = [target, value_name] {
        return po::value(target)->default_value(*target, FlagText(*target))->value_name(value_name);
      };
    }
  }

  Flag(const char* name, std::vector<std::string>* target, const char* value_name, std::string help,
       ListItems items)
      : name_(name),
        help_(std::move(help)),
        make_([target, value_name, items] { return ListValue(target, value_name, items); }) {}

  template <RangedTarget T>
  Flag(const char* name, T* target, const char* value_name, std::string help, Range range)
      : Flag(name, target, value_name, std::move(help)) {
    constexpr bool kSizes =
        std::is_same_v<T, ByteSize> || std::is_same_v<T, std::optional<ByteSize>>;
    help_ += " (" + range.Rule(kSizes) + ")";
    refusal_ = [target, range] { return Refusal(*target, range); };
  }

 private:
  friend class CommandLine;

  static po::value_semantic* ListValue(std::vector<std::string>* target, const char* value_name,
                                       ListItems items) {
    po::typed_value<std::vector<std::string>>* value =
        po::value(target)->composing()->value_name(value_name);
    return items == ListItems::kManyPerFlag ? value->multitoken() : value;
  }

  // "must be RULE, got VALUE" for a value outside `range`; empty for one inside.
  template <RangedValue T>
  static std::string Refusal(const T& value, const Range& range) {
    constexpr bool kSize = std::is_same_v<T, ByteSize>;
    double number;
    if constexpr (kSize) {
      number = static_cast<double>(value.bytes);
    } else {
      number = static_cast<double>(value);
    }
    if (range.Contains(number)) return "";
    return "must be " + range.Rule(kSize) + ", got " + FlagText(value);
  }
  template <RangedValue T>
  static std::string Refusal(const std::optional<T>& value, const Range& range) {
    return value ? Refusal(*value, range) : "";
  }

  std::string name_;
  std::string help_;                           // With the range, if any, at its end.
  std::function<po::value_semantic*()> make_;  // Called once, by CommandLine::Add.
  // With a range: why the value given is refused, empty if it is not.
  std::function<std::string()> refusal_;
};

class CommandLine {
 public:

  // `program` begins every message. --help prints `about` (usage and what the program does),
  // the flags, then `epilogue` (notes, exit statuses; empty or ending in a newline).
  CommandLine(std::string program, const std::string& about, std::string epilogue = "")
      : program_(std::move(program)),
        epilogue_(std::move(epilogue)),
        options_(about + "\nOptions", kLineLength, kLineLength / 2) {
    options_.add_options()("help,h", "print this text and exit")("version",
                                                                 "print the version and exit");
  }
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;
  CommandLine(CommandLine&&) = delete;
  CommandLine& operator=(CommandLine&&) = delete;

  // Declares a table of flags, in --help's order. Parse() checks each range, in the table's
  // order, before it answers --help or --version: "PROGRAM --messages 5 --version" exits 0
  // when 5 is a value --messages takes.
  void Add(std::initializer_list<Flag> flags) {
    for (const Flag& flag : flags) {
      options_.add_options()(flag.name_.c_str(), flag.make_(), flag.help_.c_str());
      if (flag.refusal_) ranged_.push_back(flag);
    }
  }

  // Reads the command line: the one place a program hands argv on. Returns 0 after --help or
  // --version, kBadFlags after a message for an unknown flag or a bad value, -1 to go on.
  int Parse(int argc, char** argv) {
    try {
      po::parsed_options parsed = po::parse_command_line(argc, argv, options_);
      // A word that is no flag's value would be dropped silently: "--seconds 5 10", a flag's
      // value split by a space, a "-" lost in a copy. No program here takes one.
      for (const po::option& given : parsed.options) {
        if (given.position_key >= 0 || given.string_key.empty()) {
          const std::string word = given.original_tokens.empty()
                                       ? (given.value.empty() ? "" : given.value.front())
                                       : given.original_tokens.front();
          return UsageError("unexpected argument '" + word +
                            "': every argument is a flag (--name or --name=value)");
        }
      }
      // Boost reads "-1" into an unsigned flag as its largest value; refuse it instead.
      for (const po::option& given : parsed.options) {
        for (const std::string& value : given.value) {
          const bool negative = value.size() > 1 && value[0] == '-' &&
                                (std::isdigit(static_cast<unsigned char>(value[1])) != 0);
          if (negative && TakesUnsigned(given.string_key)) {
            return BadValue("--" + given.string_key, "must not be negative", value);
          }
        }
      }
      po::store(parsed, values_);
      po::notify(values_);
    } catch (const po::error& e) {
      return UsageError(e.what());
    }
    for (const Flag& flag : ranged_) {
      if (std::string refusal = flag.refusal_(); !refusal.empty()) {
        return UsageError("--" + flag.name_ + ": " + refusal);
      }
    }
    if (values_.count("help") != 0) {
      std::cout << options_ << "\n" << epilogue_;
      return 0;
    }
    if (values_.count("version") != 0) {
      std::cout << program_ << " " << blobtune::kVersion << "\n";
      return 0;
    }
    return -1;
  }

  // Whether the command line gave `name` (a default does not count).
  bool Given(const std::string& name) const {
    auto it = values_.find(name);
    return it != values_.end() && !it->second.defaulted();
  }

  // "PROGRAM: MESSAGE (see --help)" on stderr; returns kBadFlags.
  int UsageError(std::string_view message) const {
    return examples::UsageError(program_, message);
  }

  // "PROGRAM: FLAG: RULE, got VALUE (see --help)"; returns kBadFlags.
  template <typename T>
  int BadValue(std::string_view flag, std::string_view rule, const T& got) const {
    return UsageError(std::string(flag) + ": " + std::string(rule) + ", got " + FlagText(got));
  }

  // A field of an options struct whose Validate() speaks of fields, the flag that sets it and
  // that flag's value as typed.
  struct FieldFlag {
    std::string_view field;
    std::string_view flag;
    std::string value;
  };

  // A Validate() message that begins with a field ("read_threads must be 1..256") said with the
  // flag instead ("--read-threads: must be 1..256, got 0"); returns kBadFlags.
  int ValidationError(std::string_view message, std::initializer_list<FieldFlag> fields) const {
    for (const FieldFlag& f : fields) {
      if (!message.starts_with(f.field)) continue;
      std::string_view rest = message.substr(f.field.size());
      if (rest.starts_with(": ")) return UsageError(std::string(f.flag) + std::string(rest));
      if (rest.starts_with(" ")) {
        return UsageError(std::string(f.flag) + ":" + std::string(rest) + ", got " + f.value);
      }
    }
    return UsageError(message);
  }

 private:
  static constexpr unsigned kLineLength = 100;

  // Whether the flag `name` stores into an unsigned integer.
  bool TakesUnsigned(const std::string& name) const {
    const po::option_description* flag = options_.find_nothrow(name, /*approx=*/false);
    const auto* typed =
        flag != nullptr ? dynamic_cast<const po::typed_value_base*>(flag->semantic().get())
                        : nullptr;
    if (typed == nullptr) return false;
    const std::type_info& type = typed->value_type();
    return type == typeid(unsigned char) || type == typeid(unsigned short) ||
           type == typeid(unsigned) || type == typeid(unsigned long) ||
           type == typeid(unsigned long long);
  }

  const std::string program_;
  const std::string epilogue_;
  po::options_description options_;
  po::variables_map values_;
  std::vector<Flag> ranged_;  // The table's flags that have a Range, in its order.
};

}  // namespace blobtune::examples

#endif  // BLOBTUNE_EXAMPLES_COMMON_COMMAND_LINE_H_
