// blobtune::svg: every document is well-formed XML whatever the text and data, text is escaped,
// and degenerate series (empty, one point, non-finite, non-positive on a log axis) draw sanely.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "blobtune/svg/chart.h"
#include "xml_check.h"

namespace blobtune::svg {
namespace {

using ::blobtune::testing::WellFormedXml;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

Chart TwoPanels() {
  Chart chart{.title = "title", .x_label = "seconds", .legend = {"read", "write"}};
  Panel a{.title = "limit", .x_min = 0, .x_max = 10};
  a.series.push_back({.colour = 0, .id = "limit", .points = {{0, 1}, {5, 8}, {10, 4}}});
  a.series.push_back({.colour = 1, .dash = "6,4", .points = {{0, 2}, {10, 2}}});
  Panel b{.title = "latency", .x_min = 0, .x_max = 10, .y_grid = true};
  b.series.push_back({.colour = 0, .markers = true, .points = {{1, 0.5}, {2, 0.7}}});
  chart.panels = {a, b};
  return chart;
}

TEST(SvgChartTest, DocumentIsWellFormedWithEveryPanelSeriesAndLabel) {
  const std::string svg = ChartSvg(TwoPanels());
  EXPECT_EQ(WellFormedXml(svg), "");
  EXPECT_EQ(svg.rfind("<svg xmlns='http://www.w3.org/2000/svg'", 0), 0u);
  EXPECT_EQ(Count(svg, "<polyline"), 3u);
  EXPECT_EQ(Count(svg, "<circle"), 2u);  // Markers.
  EXPECT_NE(svg.find(">limit</text>"), std::string::npos);
  EXPECT_NE(svg.find(">latency</text>"), std::string::npos);
  EXPECT_NE(svg.find(">seconds</text>"), std::string::npos);
  EXPECT_NE(svg.find(">read</text>"), std::string::npos);
  EXPECT_NE(svg.find(">write</text>"), std::string::npos);
  EXPECT_NE(svg.find("data-series='limit'"), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray='6,4'"), std::string::npos);
}

TEST(SvgChartTest, EscapesEveryText) {
  const std::string evil = "<script>alert('x')</script> & \"q\"";
  Chart chart{.title = evil, .x_label = evil, .legend = {evil}};
  Panel panel{.title = evil, .x_ticks = {{0.5, evil}}};
  panel.series.push_back({.dash = "1' onload='x", .id = evil, .points = {{0, 0}, {1, 1}}});
  chart.panels = {panel};
  const std::string svg = ChartSvg(chart);
  EXPECT_EQ(WellFormedXml(svg), "");
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("' onload"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"),
            std::string::npos);
}

TEST(SvgChartTest, EscapeXmlReplacesMarkupAndControlCharacters) {
  EXPECT_EQ(EscapeXml("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
  EXPECT_EQ(EscapeXml(std::string("x\x01y\tz\n", 6)), "x?y\tz\n");
  EXPECT_EQ(EscapeXml("plain"), "plain");
}

TEST(SvgChartTest, EmptySeriesAndNoPanelsStillMakeADocument) {
  Chart chart;
  EXPECT_EQ(WellFormedXml(ChartSvg(chart)), "");
  chart.panels.push_back(Panel{.title = "nothing yet"});
  chart.panels[0].series.push_back(Series{.id = "limit"});
  const std::string svg = ChartSvg(chart);
  EXPECT_EQ(WellFormedXml(svg), "");
  EXPECT_EQ(Count(svg, "<polyline"), 0u);
  EXPECT_NE(svg.find(">nothing yet</text>"), std::string::npos);
}

TEST(SvgChartTest, SinglePointIsDrawnAsADot) {
  Chart chart;
  chart.panels.push_back(Panel{.x_min = 0, .x_max = 2});
  chart.panels[0].series.push_back(Series{.points = {{1, 3}}});
  const std::string svg = ChartSvg(chart);
  EXPECT_EQ(WellFormedXml(svg), "");
  EXPECT_EQ(Count(svg, "<polyline"), 1u);
  EXPECT_EQ(Count(svg, "<circle"), 1u);
}

TEST(SvgChartTest, NonFinitePointsBreakTheLine) {
  Chart chart;
  chart.panels.push_back(Panel{.x_min = 0, .x_max = 4});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  chart.panels[0].series.push_back(
      Series{.id = "s", .points = {{0, 1}, {1, 2}, {1.5, nan}, {inf, 2}, {2, 3}, {3, 2}, {4, 1}}});
  const std::string svg = ChartSvg(chart);
  EXPECT_EQ(WellFormedXml(svg), "");
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
  EXPECT_EQ(Count(svg, "<polyline"), 2u) << svg;
  EXPECT_EQ(Count(svg, "data-series='s'"), 2u);
  const size_t second = svg.find("points='", svg.find("points='") + 1);
  const std::string list = svg.substr(second + 8, svg.find('\'', second + 8) - second - 8);
  EXPECT_EQ(Count(list, ","), 3u);
}

TEST(SvgChartTest, LinearTicksAreRoundAndCountsGetWholeNumbers) {
  Chart chart;
  Panel counts{.x_min = 0, .x_max = 1, .y_integer = true};
  counts.series.push_back(Series{.points = {{0, 1}, {1, 3}}});
  Panel rates{.x_min = 0, .x_max = 1};
  rates.series.push_back(Series{.points = {{0, 0.1}, {1, 37}}});
  chart.panels = {counts};
  std::string svg = ChartSvg(chart);
  for (const char* tick : {">0</text>", ">1</text>", ">2</text>", ">3</text>", ">4</text>"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
  EXPECT_EQ(svg.find(".5</text>"), std::string::npos);
  chart.panels = {rates};
  svg = ChartSvg(chart);
  for (const char* tick : {">0</text>", ">10</text>", ">20</text>", ">30</text>", ">40</text>"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
  EXPECT_DOUBLE_EQ(NiceStep(37, false), 10);
  EXPECT_DOUBLE_EQ(NiceStep(3, false), 1);
  EXPECT_DOUBLE_EQ(NiceStep(0.9, false), 0.2);
  EXPECT_DOUBLE_EQ(NiceStep(0.9, true), 1);
  EXPECT_DOUBLE_EQ(NiceStep(12, true), 5);
}

TEST(SvgChartTest, LogAxesDropNonPositiveValuesAndTickPowersOfTen) {
  Chart chart;
  Panel panel{.x_min = 1, .x_max = 1000, .log_x = true, .log_y = true};
  panel.series.push_back(Series{.points = {{0, 5}, {1, 0.5}, {10, 50}, {1000, 0}, {100, 400}}});
  chart.panels = {panel};
  const std::string svg = ChartSvg(chart);
  EXPECT_EQ(WellFormedXml(svg), "");
  const size_t points = svg.find("points='");
  ASSERT_NE(points, std::string::npos);
  const std::string list = svg.substr(points + 8, svg.find('\'', points + 8) - points - 8);
  EXPECT_EQ(Count(list, ","), 3u);  // x = 0 and y = 0 cannot be placed on a log axis.
  for (const char* tick : {">0.1</text>", ">1</text>", ">10</text>", ">100</text>"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
}

TEST(SvgChartTest, ValuesBeyondTheAxisAreClippedToTheFrame) {
  Chart chart{.panel_height = 100};
  Panel panel{.x_min = 0, .x_max = 1, .y_max = 10};
  panel.series.push_back(Series{.points = {{0, 1000}, {1, -5}}});
  chart.panels = {panel};
  const std::string svg = ChartSvg(chart);
  // The frame spans y = 40 (top) to 140 (bottom).
  EXPECT_NE(svg.find("points='70.0,40.0 880.0,140.0'"), std::string::npos) << svg;
}

TEST(SvgChartTest, NiceMaxRoundsUpToOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_DOUBLE_EQ(NiceMax(0), 1);
  EXPECT_DOUBLE_EQ(NiceMax(-3), 1);
  EXPECT_DOUBLE_EQ(NiceMax(1), 1);
  EXPECT_DOUBLE_EQ(NiceMax(1.2), 2);
  EXPECT_DOUBLE_EQ(NiceMax(3), 5);
  EXPECT_DOUBLE_EQ(NiceMax(7), 10);
  EXPECT_DOUBLE_EQ(NiceMax(0.03), 0.05);
  EXPECT_DOUBLE_EQ(NiceMax(std::nan("")), 1);
}

TEST(SvgChartTest, PaletteWrapsAndBlackIsBlack) {
  EXPECT_EQ(Colour(0), Colour(10));
  EXPECT_NE(Colour(0), Colour(1));
  EXPECT_EQ(Colour(kBlack), "#000");
}

}  // namespace
}  // namespace blobtune::svg
