#include "json_fields.h"

#include <cmath>
#include <sstream>

namespace blobtune::workbench {

std::string Describe(const nlohmann::json& value) {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return "got " + text;
}

FieldReader::FieldReader(const nlohmann::json& object, std::string path)
    : object_(object), path_(std::move(path)) {
  if (!object_.is_object()) {
    status_ = Status::InvalidArgument((path_.empty() ? std::string("workload") : path_) +
                                      ": must be a JSON object, " + Describe(object_));
  }
}

std::string FieldReader::PathOf(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

void FieldReader::Fail(std::string_view key, std::string_view what) {
  if (status_.ok()) status_ = Status::InvalidArgument(PathOf(key) + ": " + std::string(what));
}

void FieldReader::Fail(const Status& status) {
  if (status_.ok() && !status.ok()) status_ = status;
}

bool FieldReader::Has(std::string_view key) const {
  return object_.is_object() && object_.contains(key);
}

const nlohmann::json* FieldReader::Get(std::string_view key) {
  if (!Has(key)) return nullptr;
  seen_.emplace(key);
  return &object_.find(key).value();
}

std::string FieldReader::String(std::string_view key, std::optional<std::string> fallback) {
  const nlohmann::json* value = Get(key);
  if (value == nullptr) {
    if (!fallback) Fail(key, "is required");
    return fallback.value_or("");
  }
  if (!value->is_string()) {
    Fail(key, "must be a string, " + Describe(*value));
    return "";
  }
  return value->get<std::string>();
}

double FieldReader::Number(std::string_view key, std::optional<double> fallback, double min,
                           double max) {
  const nlohmann::json* value = Get(key);
  if (value == nullptr) {
    if (!fallback) Fail(key, "is required");
    return fallback.value_or(0.0);
  }
  double number = value->is_number() ? value->get<double>() : std::nan("");
  if (!value->is_number() || !std::isfinite(number) || number < min || number > max) {
    std::ostringstream what;
    what << "must be a number";
    if (std::isfinite(min) && std::isfinite(max)) {
      what << " in [" << min << ", " << max << "]";
    } else if (std::isfinite(min)) {
      what << " >= " << min;
    } else if (std::isfinite(max)) {
      what << " <= " << max;
    }
    Fail(key, what.str() + ", " + Describe(*value));
    return fallback.value_or(std::isfinite(min) ? min : 0.0);
  }
  return number;
}

int64_t FieldReader::Int(std::string_view key, std::optional<int64_t> fallback, int64_t min,
                         int64_t max) {
  const nlohmann::json* value = Get(key);
  if (value == nullptr) {
    if (!fallback) Fail(key, "is required");
    return fallback.value_or(0);
  }
  bool integral = value->is_number_integer() ||
                  (value->is_number_float() && std::trunc(value->get<double>()) ==
                                                   value->get<double>() &&
                   std::abs(value->get<double>()) < 9e15);
  int64_t number = integral ? (value->is_number_integer() ? value->get<int64_t>()
                                                          : static_cast<int64_t>(value->get<double>()))
                            : 0;
  if (!integral || number < min || number > max) {
    std::ostringstream what;
    what << "must be an integer";
    if (min != std::numeric_limits<int64_t>::min() && max != std::numeric_limits<int64_t>::max()) {
      what << " in [" << min << ", " << max << "]";
    } else if (min != std::numeric_limits<int64_t>::min()) {
      what << " >= " << min;
    }
    Fail(key, what.str() + ", " + Describe(*value));
    return fallback.value_or(min);
  }
  return number;
}

bool FieldReader::Bool(std::string_view key, std::optional<bool> fallback) {
  const nlohmann::json* value = Get(key);
  if (value == nullptr) {
    if (!fallback) Fail(key, "is required");
    return fallback.value_or(false);
  }
  if (!value->is_boolean()) {
    Fail(key, "must be true or false, " + Describe(*value));
    return false;
  }
  return value->get<bool>();
}

void FieldReader::RejectUnknownFields() {
  if (!object_.is_object()) return;
  for (const auto& [key, value] : object_.items()) {
    if (!seen_.contains(key)) Fail(key, "is not a known field");
  }
}

}  // namespace blobtune::workbench
