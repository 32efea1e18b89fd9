// FieldReader: reads typed fields of one JSON object and names the field in every error.
//
// Parsing code reads every field it knows, then asks whether anything was wrong. The first error
// wins and carries the field's full path, so a bad workload file says exactly what to fix:
//
//   FieldReader r(json, "stages[1]");
//   stage.servers = r.Int("servers", /*fallback=*/1, /*min=*/1);
//   r.RejectUnknownFields();
//   if (!r.ok()) return r.status();  // "stages[1].servers: must be an integer >= 1, got 0"
//
// Thread-safety: none; one reader per parse.
#ifndef BLOBTUNE_TESTS_LAB_WORKBENCH_JSON_FIELDS_H_
#define BLOBTUNE_TESTS_LAB_WORKBENCH_JSON_FIELDS_H_

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "blobtune/base/status.h"

namespace blobtune::workbench {

class FieldReader {
 public:
  // `path` names the object in errors ("" for the top level).
  FieldReader(const nlohmann::json& object, std::string path);

  FieldReader(const FieldReader&) = delete;
  FieldReader& operator=(const FieldReader&) = delete;
  ~FieldReader() = default;

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  // The path of a field of this object, for messages and nested readers.
  std::string PathOf(std::string_view key) const;
  // Records an error about `key` unless an earlier one is recorded.
  void Fail(std::string_view key, std::string_view what);
  // Records an error that already carries its path (from a nested parse).
  void Fail(const Status& status);

  bool Has(std::string_view key) const;
  // The raw value of `key` (marked as known), or nullptr when absent.
  const nlohmann::json* Get(std::string_view key);

  // Each reads `key`; absent keys give `fallback` (or an error when it is std::nullopt).
  std::string String(std::string_view key, std::optional<std::string> fallback = std::nullopt);
  double Number(std::string_view key, std::optional<double> fallback = std::nullopt,
                double min = -std::numeric_limits<double>::infinity(),
                double max = std::numeric_limits<double>::infinity());
  int64_t Int(std::string_view key, std::optional<int64_t> fallback = std::nullopt,
              int64_t min = std::numeric_limits<int64_t>::min(),
              int64_t max = std::numeric_limits<int64_t>::max());
  bool Bool(std::string_view key, std::optional<bool> fallback = std::nullopt);

  // An error for each key of the object that no accessor asked for (catches typos).
  void RejectUnknownFields();

 private:
  const nlohmann::json& object_;
  std::string path_;
  std::set<std::string, std::less<>> seen_;
  Status status_;
};

// "got 3", "got \"x\"": a short rendering of a value for error messages.
std::string Describe(const nlohmann::json& value);

}  // namespace blobtune::workbench

#endif  // BLOBTUNE_TESTS_LAB_WORKBENCH_JSON_FIELDS_H_
