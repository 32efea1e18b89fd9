// Conditional requests: the ETag of a checksum and what If-Match and If-None-Match make of it.
#include "preconditions.h"

#include <gtest/gtest.h>

namespace blobtune::server {
namespace {

constexpr PreconditionOutcome kProceed = PreconditionOutcome::kProceed;
constexpr PreconditionOutcome kNotModified = PreconditionOutcome::kNotModified;
constexpr PreconditionOutcome kFailed = PreconditionOutcome::kFailed;

PreconditionOutcome IfMatch(std::string header, std::optional<std::string> etag) {
  return EvaluatePreconditions({.if_match = std::move(header)}, false, etag);
}
PreconditionOutcome IfNoneMatch(std::string header, bool safe, std::optional<std::string> etag) {
  return EvaluatePreconditions({.if_none_match = std::move(header)}, safe, etag);
}

TEST(ETagTest, IsTheChecksumInHexQuoted) {
  EXPECT_EQ(ETagOf(0x1a2b3c4d), "\"1a2b3c4d\"");
  EXPECT_EQ(ETagOf(7), "\"00000007\"");
}

TEST(PreconditionsTest, WithoutHeadersTheRequestGoesOn) {
  EXPECT_EQ(EvaluatePreconditions({}, true, "\"00000001\""), kProceed);
  EXPECT_EQ(EvaluatePreconditions({}, false, std::nullopt), kProceed);
  EXPECT_FALSE(Preconditions{}.any());
}

TEST(PreconditionsTest, IfMatchNeedsTheSameStrongTag) {
  const std::string etag = "\"0000abcd\"";
  EXPECT_EQ(IfMatch("\"0000abcd\"", etag), kProceed);
  EXPECT_EQ(IfMatch("\"00000001\", \"0000abcd\"", etag), kProceed);
  EXPECT_EQ(IfMatch("\"00000001\"", etag), kFailed);
  EXPECT_EQ(IfMatch("W/\"0000abcd\"", etag), kFailed) << "weak tags never match strongly";
  EXPECT_EQ(IfMatch("*", etag), kProceed);
  EXPECT_EQ(IfMatch("*", std::nullopt), kFailed) << "no blob: nothing matches";
  EXPECT_EQ(IfMatch("\"0000abcd\"", std::nullopt), kFailed);
  EXPECT_EQ(IfMatch("0000abcd", etag), kFailed) << "unquoted: not an entity tag";
}

TEST(PreconditionsTest, IfNoneMatchGives304ToReadsAnd412ToWrites) {
  const std::string etag = "\"0000abcd\"";
  EXPECT_EQ(IfNoneMatch("\"0000abcd\"", true, etag), kNotModified);
  EXPECT_EQ(IfNoneMatch("W/\"0000abcd\"", true, etag), kNotModified) << "weak comparison";
  EXPECT_EQ(IfNoneMatch("\"00000001\"", true, etag), kProceed);
  EXPECT_EQ(IfNoneMatch("*", true, etag), kNotModified);
  EXPECT_EQ(IfNoneMatch("*", false, etag), kFailed) << "create-only PUT of an existing blob";
  EXPECT_EQ(IfNoneMatch("*", false, std::nullopt), kProceed);
}

TEST(PreconditionsTest, IfMatchIsEvaluatedFirst) {
  const std::string etag = "\"0000abcd\"";
  EXPECT_EQ(EvaluatePreconditions({.if_match = "\"00000001\"", .if_none_match = "\"00000002\""},
                                  true, etag),
            kFailed);
  EXPECT_EQ(EvaluatePreconditions({.if_match = "\"0000abcd\"", .if_none_match = "\"0000abcd\""},
                                  true, etag),
            kNotModified);
}

}  // namespace
}  // namespace blobtune::server
