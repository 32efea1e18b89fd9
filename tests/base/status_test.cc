#include "blobtune/base/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

#include "blobtune/base/status_or.h"

namespace blobtune {
namespace {

TEST(StatusTest, DefaultIsOkWithEmptyMessage) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, FactoriesCarryTheirCanonicalCodeAndMessage) {
  struct Case {
    Status status;
    StatusCode code;
    const char* name;
  };
  const Case cases[] = {
      {Status::InvalidArgument("m"), StatusCode::kInvalidArgument, "INVALID_ARGUMENT"},
      {Status::NotFound("m"), StatusCode::kNotFound, "NOT_FOUND"},
      {Status::AlreadyExists("m"), StatusCode::kAlreadyExists, "ALREADY_EXISTS"},
      {Status::ResourceExhausted("m"), StatusCode::kResourceExhausted, "RESOURCE_EXHAUSTED"},
      {Status::DeadlineExceeded("m"), StatusCode::kDeadlineExceeded, "DEADLINE_EXCEEDED"},
      {Status::Cancelled("m"), StatusCode::kCancelled, "CANCELLED"},
      {Status::Unavailable("m"), StatusCode::kUnavailable, "UNAVAILABLE"},
      {Status::DataLoss("m"), StatusCode::kDataLoss, "DATA_LOSS"},
      {Status::Internal("m"), StatusCode::kInternal, "INTERNAL"},
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(c.status.ok()) << c.name;
    EXPECT_EQ(c.status.code(), c.code) << c.name;
    EXPECT_EQ(c.status.message(), "m") << c.name;
    EXPECT_EQ(c.status.ToString(), std::string(c.name) + ": m");
    EXPECT_EQ(StatusCodeName(c.code), c.name);
  }
}

TEST(StatusTest, CopiesCompareEqualAndOutliveTheOriginal) {
  auto original = std::make_unique<Status>(Status::NotFound("blob 'a' not found"));
  Status copy = *original;
  original.reset();
  EXPECT_EQ(copy, Status::NotFound("blob 'a' not found"));
  EXPECT_FALSE(copy == Status::NotFound("blob 'b' not found"));
  EXPECT_FALSE(copy == Status::DataLoss("blob 'a' not found"));
}

TEST(StatusTest, WithContextPrefixesTheMessageAndKeepsTheCode) {
  Status s = Status::DataLoss("checksum mismatch").WithContext("get incoming/42");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), "get incoming/42: checksum mismatch");
  EXPECT_TRUE(Status().WithContext("anything").ok());
}

TEST(StatusTest, OnlyLoadRelatedFailuresAreOverload) {
  EXPECT_TRUE(IsOverload(Status::DeadlineExceeded("slow")));
  EXPECT_TRUE(IsOverload(Status::Unavailable("busy")));
  EXPECT_TRUE(IsOverload(Status::Overloaded("write queue is full")));
  EXPECT_FALSE(IsOverload(Status::ResourceExhausted("blob is over max_blob_size_bytes")));
  EXPECT_FALSE(IsOverload(Status::NotFound("missing")));
  EXPECT_FALSE(IsOverload(Status::InvalidArgument("bad id")));
  EXPECT_FALSE(IsOverload(Status::DataLoss("corrupt")));
  EXPECT_FALSE(IsOverload(Status::Cancelled("shutting down")));
  EXPECT_FALSE(IsOverload(Status()));
}

TEST(StatusTest, OverloadedIsResourceExhaustedMarkedAndKeepsItsMarkThroughContext) {
  Status s = Status::Overloaded("no permit free");
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(s.ToString(), "RESOURCE_EXHAUSTED: no permit free");
  EXPECT_NE(s, Status::ResourceExhausted("no permit free"));
  Status with_context = s.WithContext("PUT /blobs/a");
  EXPECT_EQ(with_context.message(), "PUT /blobs/a: no permit free");
  EXPECT_TRUE(IsOverload(with_context));
  EXPECT_FALSE(IsOverload(Status::ResourceExhausted("map full").WithContext("put")));
}

TEST(StatusTest, StreamsAsToString) {
  std::ostringstream os;
  os << Status::Unavailable("server busy");
  EXPECT_EQ(os.str(), "UNAVAILABLE: server busy");
}

TEST(StatusOrTest, HoldsAValue) {
  StatusOr<std::string> v = std::string("blob");
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v.status().ok());
  EXPECT_EQ(*v, "blob");
  EXPECT_EQ(v->size(), 4u);
  std::string moved = *std::move(v);
  EXPECT_EQ(moved, "blob");
}

TEST(StatusOrTest, HoldsAnError) {
  StatusOr<int> v = Status::NotFound("no such blob");
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(v.status(), Status::NotFound("no such blob"));
  EXPECT_EQ(v.value_or(7), 7);
}

TEST(StatusOrTest, AnOkStatusWithoutValueBecomesAnInternalError) {
  StatusOr<int> v = Status();
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kInternal);
}

TEST(StatusOrTest, SupportsMoveOnlyValues) {
  StatusOr<std::unique_ptr<int>> v = std::make_unique<int>(5);
  ASSERT_TRUE(v.ok());
  std::unique_ptr<int> p = *std::move(v);
  EXPECT_EQ(*p, 5);
}

TEST(StatusOrDeathTest, ReadingTheValueOfAnErrorAborts) {
  StatusOr<int> v = Status::Internal("boom");
  EXPECT_DEATH({ [[maybe_unused]] int x = *v; }, "");
}

}  // namespace
}  // namespace blobtune
