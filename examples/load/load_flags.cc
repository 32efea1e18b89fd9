#include "load_flags.h"

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "common/command_line.h"
#include "common/parse_number.h"

namespace blobtune::load {
namespace {

using examples::FlagText;

// One per-load flag: how its text sets LoadOptions, and how its value reads back for messages.
struct LoadFlag {
  std::string_view name;   // The flag without "--"; a --class key.
  std::string_view field;  // The LoadOptions field, as Validate() names it.
  // A class's own flags only; nullptr for a flag every class shares (FlagScope::kShared), which
  // only the command line reads.
  Status (*set)(std::string_view text, LoadOptions& options);
  std::string (*text)(const LoadOptions& options);
};

Status NotA(std::string_view what, std::string_view text) {
  return Status::InvalidArgument("must be " + std::string(what) + ", got " + std::string(text));
}

template <typename T>
Status ReadNumber(std::string_view text, T& out) {
  return examples::ParseNumber(text, out) ? Status::Ok() : NotA("a number", text);
}

// A duration typed as a count of its own unit (milliseconds, for the -ms flags).
template <typename Rep, typename Period>
Status ReadCount(std::string_view text, std::chrono::duration<Rep, Period>& out) {
  Rep count{};
  Status read = ReadNumber(text, count);
  if (read.ok()) out = std::chrono::duration<Rep, Period>(count);
  return read;
}

template <typename T>
Status ReadSize(std::string_view text, T& out) {
  std::optional<size_t> bytes = examples::ParseSize(text);
  if (!bytes) return NotA("bytes with an optional K, M or G suffix", text);
  out = *bytes;
  return Status::Ok();
}

Status ReadText(std::string_view text, std::string& out) {
  out = text;
  return Status::Ok();
}

Status ReadMode(std::string_view text, LoadMode& out) {
  if (text == "closed") {
    out = LoadMode::kClosed;
  } else if (text == "open") {
    out = LoadMode::kOpen;
  } else {
    return NotA("closed or open", text);
  }
  return Status::Ok();
}

std::string ModeText(LoadMode mode) { return mode == LoadMode::kOpen ? "open" : "closed"; }

// Short names, so that each flag's row reads on a line or three.
using Options = LoadOptions;
using Text = std::string_view;

// In --help's order.
constexpr LoadFlag kLoadFlags[] = {
    {"host", "host", nullptr, [](const Options& o) { return o.host; }},
    {"port", "port", nullptr, [](const Options& o) { return FlagText(o.port); }},
    {"mode", "mode", [](Text t, Options& o) { return ReadMode(t, o.mode); },
     [](const Options& o) { return ModeText(o.mode); }},
    {"connections", "connections", [](Text t, Options& o) { return ReadNumber(t, o.connections); },
     [](const Options& o) { return FlagText(o.connections); }},
    {"rate", "rate", [](Text t, Options& o) { return ReadNumber(t, o.rate); },
     [](const Options& o) { return FlagText(o.rate); }},
    {"max-connections", "max_connections",
     [](Text t, Options& o) { return ReadNumber(t, o.max_connections); },
     [](const Options& o) { return FlagText(o.max_connections); }},
    {"seconds", "seconds", nullptr, [](const Options& o) { return FlagText(o.seconds); }},
    {"warmup", "warmup_seconds", nullptr,
     [](const Options& o) { return FlagText(o.warmup_seconds); }},
    {"put-fraction", "put_fraction",
     [](Text t, Options& o) { return ReadNumber(t, o.put_fraction); },
     [](const Options& o) { return FlagText(o.put_fraction); }},
    {"size", "size", [](Text t, Options& o) { return ReadSize(t, o.size); },
     [](const Options& o) { return examples::SizeText(o.size); }},
    {"expect-continue", "expect_continue_bytes",
     [](Text t, Options& o) { return ReadSize(t, o.expect_continue_bytes); },
     [](const Options& o) { return examples::SizeText(o.expect_continue_bytes); }},
    {"upload-ms", "upload_time", [](Text t, Options& o) { return ReadCount(t, o.upload_time); },
     [](const Options& o) { return FlagText(o.upload_time.count()); }},
    {"namespace", "ns", [](Text t, Options& o) { return ReadText(t, o.ns); },
     [](const Options& o) { return o.ns; }},
    {"partition", "partition", [](Text t, Options& o) { return ReadText(t, o.partition); },
     [](const Options& o) { return o.partition; }},
    {"id-prefix", "id_prefix", nullptr, [](const Options& o) { return o.id_prefix; }},
    {"timeout-ms", "timeout", nullptr,
     [](const Options& o) { return FlagText(o.timeout.count()); }},
    {"seed", "seed", nullptr, [](const Options& o) { return FlagText(o.seed); }},
};

const LoadFlag* FindLoadFlag(std::string_view name) {
  for (const LoadFlag& flag : kLoadFlags) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

}  // namespace

std::optional<FlagScope> LoadFlagScope(std::string_view name) {
  const LoadFlag* flag = FindLoadFlag(name);
  if (flag == nullptr) return std::nullopt;
  return flag->set != nullptr ? FlagScope::kPerClass : FlagScope::kShared;
}

std::string PerClassFlagList() {
  std::string list;
  for (const LoadFlag& flag : kLoadFlags) {
    if (flag.set == nullptr) continue;  // Shared.
    if (!list.empty()) list += ", ";
    list += flag.name;
  }
  return list;
}

Status SetLoadFlag(std::string_view name, std::string_view text, LoadOptions& options) {
  const LoadFlag* flag = FindLoadFlag(name);
  if (flag == nullptr) {
    return Status::InvalidArgument("unknown flag '" + std::string(name) + "'");
  }
  if (flag->set == nullptr) {
    return Status::InvalidArgument(std::string(name) + " is shared by every class");
  }
  return flag->set(text, options).WithContext(name);
}

std::string InFlagWords(const Status& invalid, const LoadOptions& options,
                        std::string_view prefix) {
  const std::string_view message = invalid.message();
  for (const LoadFlag& flag : kLoadFlags) {
    if (!message.starts_with(flag.field)) continue;
    const std::string_view rule = message.substr(flag.field.size());
    if (!rule.starts_with(' ')) continue;
    return std::string(prefix) + std::string(flag.name) + ":" + std::string(rule) + ", got " +
           flag.text(options);
  }
  return std::string(prefix) + std::string(message);
}

}  // namespace blobtune::load
