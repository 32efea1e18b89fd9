// Routing and validation of blobtune-server requests: which route a method and target get, and
// what a bad namespace, id or query parameter is told.
#include "request_target.h"

#include <gtest/gtest.h>

#include <string>

namespace blobtune::server {
namespace {

namespace http = boost::beast::http;

TEST(ParseRoute, BlobMethodsMapToTheirRoutes) {
  EXPECT_EQ(ParseRoute(http::verb::get, "/blobs/ns/id-1")->kind, RouteKind::kGetBlob);
  EXPECT_EQ(ParseRoute(http::verb::head, "/blobs/ns/id-1")->kind, RouteKind::kHeadBlob);
  EXPECT_EQ(ParseRoute(http::verb::put, "/blobs/ns/id-1")->kind, RouteKind::kPutBlob);
  EXPECT_EQ(ParseRoute(http::verb::delete_, "/blobs/ns/id-1")->kind, RouteKind::kDeleteBlob);
  StatusOr<Route> route = ParseRoute(http::verb::get, "/blobs/photos/cat_1.jpg~v2");
  ASSERT_TRUE(route.ok()) << route.status().ToString();
  EXPECT_EQ(route->ns, "photos");
  EXPECT_EQ(route->id, "cat_1.jpg~v2");
}

TEST(ParseRoute, OtherMethodsOnKnownPathsAreNotAllowedWithTheAllowList) {
  StatusOr<Route> route = ParseRoute(http::verb::post, "/blobs/ns/id");
  ASSERT_TRUE(route.ok());
  EXPECT_EQ(route->kind, RouteKind::kMethodNotAllowed);
  EXPECT_EQ(route->allow, "GET, HEAD, PUT, DELETE");
  EXPECT_EQ(ParseRoute(http::verb::put, "/metrics")->kind, RouteKind::kMethodNotAllowed);
  EXPECT_EQ(ParseRoute(http::verb::delete_, "/blobs/ns")->allow, "GET, HEAD");
  EXPECT_EQ(ParseRoute(http::verb::put, "/metrics")->allow, "GET, HEAD");
}

TEST(ParseRoute, MetricsAndHealth) {
  EXPECT_EQ(ParseRoute(http::verb::get, "/metrics")->kind, RouteKind::kMetrics);
  EXPECT_EQ(ParseRoute(http::verb::get, "/status")->kind, RouteKind::kStatus);
  EXPECT_EQ(ParseRoute(http::verb::post, "/status")->kind, RouteKind::kMethodNotAllowed);
  EXPECT_EQ(ParseRoute(http::verb::get, "/healthz")->kind, RouteKind::kHealth);
  EXPECT_EQ(ParseRoute(http::verb::head, "/healthz")->kind, RouteKind::kHealth);
  // HEAD wherever GET: the GET's route, answered without its body.
  EXPECT_EQ(ParseRoute(http::verb::head, "/metrics")->kind, RouteKind::kMetrics);
  EXPECT_EQ(ParseRoute(http::verb::head, "/status")->kind, RouteKind::kStatus);
  EXPECT_EQ(ParseRoute(http::verb::head, "/blobs/ns?limit=5")->kind, RouteKind::kList);
}

TEST(ParseRoute, UnknownPathIsNotFound) {
  EXPECT_EQ(ParseRoute(http::verb::get, "/").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ParseRoute(http::verb::get, "/blob/ns/id").status().code(), StatusCode::kNotFound);
}

TEST(ParseRoute, BadTargetsAreInvalidArgument) {
  for (const char* target : {"", "blobs/ns/id", "/blobs//id", "/blobs/ns/", "/blobs/ns/a/b",
                             "/blobs/n s/id", "/blobs/ns/id?x=1", "/blobs/ns/%zz", "/blobs/ns/%4",
                             "/blobs/ns/..", "/blobs/ns/.", "/blobs/ns/a%2Fb", "/blobs/ns/a%00"}) {
    StatusOr<Route> route = ParseRoute(http::verb::get, target);
    EXPECT_EQ(route.status().code(), StatusCode::kInvalidArgument) << "target '" << target << "'";
  }
}

TEST(ParseRoute, ErrorMessagesSayWhatIsWrong) {
  Status bad_byte = ParseRoute(http::verb::get, "/blobs/ns/a*b").status();
  EXPECT_NE(bad_byte.message().find("byte 0x2a ('*') at offset 1"), std::string::npos)
      << bad_byte.ToString();
  Status too_long = ParseRoute(http::verb::get, "/blobs/ns/" + std::string(256, 'a')).status();
  EXPECT_NE(too_long.message().find("256 bytes; at most 255"), std::string::npos)
      << too_long.ToString();
  Status ns = ParseRoute(http::verb::get, "/blobs/" + std::string(65, 'n') + "/id").status();
  EXPECT_NE(ns.message().find("namespace"), std::string::npos) << ns.ToString();
}

TEST(ParseRoute, PercentEncodedIdsAreDecoded) {
  StatusOr<Route> route = ParseRoute(http::verb::get, "/blobs/ns/%61b%2Dc");
  ASSERT_TRUE(route.ok()) << route.status().ToString();
  EXPECT_EQ(route->id, "ab-c");
}

TEST(ParseRoute, ListTakesPrefixLimitAndAfter) {
  StatusOr<Route> route = ParseRoute(http::verb::get, "/blobs/ns?prefix=img-&limit=7&after=img-3");
  ASSERT_TRUE(route.ok()) << route.status().ToString();
  EXPECT_EQ(route->kind, RouteKind::kList);
  EXPECT_EQ(route->prefix, "img-");
  EXPECT_EQ(route->limit, 7u);
  EXPECT_EQ(route->after, "img-3");
  EXPECT_EQ(ParseRoute(http::verb::get, "/blobs/ns")->limit, kDefaultListLimit);
  EXPECT_EQ(ParseRoute(http::verb::get, "/blobs/ns?prefix=")->prefix, "");
}

TEST(ParseRoute, ListRejectsBadParameters) {
  for (const char* target : {"/blobs/ns?limit=0", "/blobs/ns?limit=1001", "/blobs/ns?limit=x",
                             "/blobs/ns?limit=", "/blobs/ns?limt=5", "/blobs/ns?prefix=a/b",
                             "/blobs/ns?after=..", "/blobs/ns?prefix=%"}) {
    EXPECT_EQ(ParseRoute(http::verb::get, target).status().code(), StatusCode::kInvalidArgument)
        << target;
  }
}

TEST(ValidateId, AcceptsTheDocumentedAlphabetUpToTheLimit) {
  EXPECT_TRUE(ValidateId("AZaz09_.~-").ok());
  EXPECT_TRUE(ValidateId(std::string(kMaxIdBytes, 'x')).ok());
  EXPECT_FALSE(ValidateId("").ok());
  EXPECT_FALSE(ValidateId(std::string(kMaxIdBytes + 1, 'x')).ok());
  EXPECT_FALSE(ValidateId("\xff").ok());
}

TEST(ValidateNamespace, RejectsTilde) {
  EXPECT_TRUE(ValidateNamespace("photos_2024.v1-a").ok());
  EXPECT_FALSE(ValidateNamespace("a~b").ok());
}

TEST(PercentDecode, DecodesAndRejectsBadEscapes) {
  EXPECT_EQ(*PercentDecode("a%41%7e"), "aA~");
  EXPECT_FALSE(PercentDecode("%").ok());
  EXPECT_FALSE(PercentDecode("%4").ok());
  EXPECT_FALSE(PercentDecode("%g1").ok());
}

}  // namespace
}  // namespace blobtune::server
