#include "distribution.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "json_fields.h"

namespace blobtune::workbench {

Distribution Distribution::Constant(double value) {
  Distribution d;
  d.a_ = value;
  return d;
}

Distribution Distribution::Exponential(double mean) {
  Distribution d;
  d.kind_ = Kind::kExponential;
  d.a_ = mean;
  return d;
}

Distribution Distribution::Lognormal(double mean, double cv) {
  // For ln X ~ N(mu, sigma^2): cv^2 = exp(sigma^2) - 1 and mean = exp(mu + sigma^2 / 2).
  Distribution d;
  d.kind_ = Kind::kLognormal;
  double sigma2 = std::log1p(cv * cv);
  d.a_ = std::log(mean) - sigma2 / 2.0;
  d.b_ = std::sqrt(sigma2);
  return d;
}

Distribution Distribution::Pareto(double mean, double alpha, double cap) {
  // Mean of a Pareto(x_min, alpha) is alpha x_min / (alpha - 1).
  Distribution d;
  d.kind_ = Kind::kPareto;
  d.a_ = mean * (alpha - 1.0) / alpha;
  d.b_ = alpha;
  d.c_ = cap;
  return d;
}

Distribution Distribution::Uniform(double min, double max) {
  Distribution d;
  d.kind_ = Kind::kUniform;
  d.a_ = min;
  d.b_ = max;
  return d;
}

Distribution Distribution::LogUniform(double min, double max) {
  Distribution d = Uniform(min, max);
  d.kind_ = Kind::kLogUniform;
  return d;
}

Distribution Distribution::Mix(std::vector<std::pair<double, Distribution>> parts) {
  Distribution d;
  d.kind_ = Kind::kMix;
  double total = 0.0;
  for (const auto& part : parts) total += part.first;
  double sum = 0.0;
  for (auto& [weight, part] : parts) {
    sum += weight / total;
    d.cumulative_.push_back(sum);
    d.parts_.push_back(std::move(part));
  }
  d.cumulative_.back() = 1.0;
  return d;
}

double Distribution::Sample(Rng& rng) const {
  switch (kind_) {
    case Kind::kConstant:
      return a_;
    case Kind::kExponential:
      return rng.Exponential(a_);
    case Kind::kLognormal:
      return std::exp(a_ + b_ * rng.StandardNormal());
    case Kind::kPareto: {
      double value = a_ / std::pow(1.0 - rng.Uniform(), 1.0 / b_);
      return c_ > 0.0 ? std::min(value, c_) : value;
    }
    case Kind::kUniform:
      return a_ + (b_ - a_) * rng.Uniform();
    case Kind::kLogUniform:
      return a_ * std::exp(std::log(b_ / a_) * rng.Uniform());
    case Kind::kMix: {
      double u = rng.Uniform();
      size_t i = static_cast<size_t>(
          std::upper_bound(cumulative_.begin(), cumulative_.end(), u) - cumulative_.begin());
      return parts_[std::min(i, parts_.size() - 1)].Sample(rng);
    }
  }
  return a_;
}

double Distribution::Mean() const {
  switch (kind_) {
    case Kind::kConstant:
    case Kind::kExponential:
      return a_;
    case Kind::kLognormal:
      return std::exp(a_ + b_ * b_ / 2.0);
    case Kind::kPareto: {
      double uncapped = b_ * a_ / (b_ - 1.0);
      if (c_ <= 0.0 || c_ <= a_) return c_ > 0.0 ? c_ : uncapped;
      // E[min(X, c)] = E[X] - E[(X - c)+] and E[(X - c)+] = c (x_min / c)^alpha / (alpha - 1).
      return uncapped - c_ * std::pow(a_ / c_, b_) / (b_ - 1.0);
    }
    case Kind::kUniform:
      return (a_ + b_) / 2.0;
    case Kind::kLogUniform:
      return a_ == b_ ? a_ : (b_ - a_) / std::log(b_ / a_);
    case Kind::kMix: {
      double mean = 0.0, previous = 0.0;
      for (size_t i = 0; i < parts_.size(); ++i) {
        mean += (cumulative_[i] - previous) * parts_[i].Mean();
        previous = cumulative_[i];
      }
      return mean;
    }
  }
  return a_;
}

nlohmann::json Distribution::ToJson() const {
  switch (kind_) {
    case Kind::kConstant:
      return a_;
    case Kind::kExponential:
      return {{"type", "exponential"}, {"mean", a_}};
    case Kind::kLognormal:
      return {{"type", "lognormal"}, {"mean", Mean()}, {"cv", std::sqrt(std::expm1(b_ * b_))}};
    case Kind::kPareto: {
      nlohmann::json j = {{"type", "pareto"}, {"mean", b_ * a_ / (b_ - 1.0)}, {"alpha", b_}};
      if (c_ > 0.0) j["max"] = c_;
      return j;
    }
    case Kind::kUniform:
    case Kind::kLogUniform:
      return {{"type", kind_ == Kind::kUniform ? "uniform" : "loguniform"}, {"min", a_}, {"max", b_}};
    case Kind::kMix: {
      nlohmann::json parts = nlohmann::json::array();
      double previous = 0.0;
      for (size_t i = 0; i < parts_.size(); ++i) {
        parts.push_back({{"weight", cumulative_[i] - previous}, {"of", parts_[i].ToJson()}});
        previous = cumulative_[i];
      }
      return {{"type", "mix"}, {"parts", parts}};
    }
  }
  return a_;
}

StatusOr<Distribution> ParseDistribution(const nlohmann::json& json, const std::string& path) {
  if (json.is_number()) {
    double value = json.get<double>();
    if (!std::isfinite(value) || value < 0.0) {
      return Status::InvalidArgument(path + ": must be a number >= 0, " + Describe(json));
    }
    return Distribution::Constant(value);
  }
  FieldReader r(json, path);
  std::string type = r.String("type");
  if (!r.ok()) return r.status();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Distribution result;
  if (type == "constant") {
    result = Distribution::Constant(r.Number("value", std::nullopt, 0.0));
  } else if (type == "exponential") {
    result = Distribution::Exponential(r.Number("mean", std::nullopt, 0.0));
  } else if (type == "lognormal") {
    double mean = r.Number("mean", std::nullopt, 1e-12);
    result = Distribution::Lognormal(mean, r.Number("cv", std::nullopt, 1e-6, 100.0));
  } else if (type == "pareto") {
    double mean = r.Number("mean", std::nullopt, 1e-12);
    double alpha = r.Number("alpha", std::nullopt, 1.01, 100.0);
    result = Distribution::Pareto(mean, alpha, r.Number("max", 0.0, 0.0));
  } else if (type == "uniform" || type == "loguniform") {
    double min = r.Number("min", std::nullopt, type == "uniform" ? 0.0 : 1e-12);
    double max = r.Number("max", std::nullopt, min, kInf);
    result = type == "uniform" ? Distribution::Uniform(min, max)
                               : Distribution::LogUniform(min, max);
  } else if (type == "mix") {
    const nlohmann::json* parts = r.Get("parts");
    if (parts == nullptr || !parts->is_array() || parts->empty()) {
      r.Fail("parts", "must be a non-empty array of {\"weight\": w, \"of\": distribution}");
    } else {
      std::vector<std::pair<double, Distribution>> list;
      for (size_t i = 0; i < parts->size() && r.ok(); ++i) {
        FieldReader part(parts->at(i), r.PathOf("parts") + "[" + std::to_string(i) + "]");
        double weight = part.Number("weight", std::nullopt, 1e-12);
        const nlohmann::json* of = part.Get("of");
        if (of == nullptr) part.Fail("of", "is required");
        part.RejectUnknownFields();
        if (!part.ok()) {
          r.Fail(part.status());
          break;
        }
        StatusOr<Distribution> inner = ParseDistribution(*of, part.PathOf("of"));
        if (!inner.ok()) {
          r.Fail(inner.status());
          break;
        }
        list.emplace_back(weight, *std::move(inner));
      }
      if (r.ok()) result = Distribution::Mix(std::move(list));
    }
  } else {
    r.Fail("type", "must be one of constant, exponential, lognormal, pareto, uniform, "
                   "loguniform, mix, got \"" + type + "\"");
  }
  r.RejectUnknownFields();
  if (!r.ok()) return r.status();
  return result;
}

}  // namespace blobtune::workbench
