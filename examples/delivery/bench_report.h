// The results of blobtune-delivery: the seed benchmark's table (time per delivery over the
// rounds, ratio of the mean to the legacy path's at the same point) or the same as JSON, for one
// point or a sweep of several.
//
// Thread-safety: writes to stdout; call from one thread.
#ifndef BLOBTUNE_EXAMPLES_DELIVERY_BENCH_REPORT_H_
#define BLOBTUNE_EXAMPLES_DELIVERY_BENCH_REPORT_H_

#include <optional>
#include <vector>

#include "bench_flags.h"
#include "bench_rounds.h"

namespace blobtune::delivery {

// The mean of `row` divided by the mean of the legacy row at its point, if there is one.
std::optional<double> RatioToLegacy(const std::vector<Row>& rows, const Row& row);

// The table, a row at a time as the configurations finish: the header, then each row (`row`
// is the last of `rows`, whose legacy row at its point, if any, came first), then the footer.
void PrintTableHeader();
void PrintTableRow(const std::vector<Row>& rows, const Row& row);
void PrintTableFooter(const BenchConfig& config);
void PrintJson(const std::vector<Row>& rows);

}  // namespace blobtune::delivery

#endif  // BLOBTUNE_EXAMPLES_DELIVERY_BENCH_REPORT_H_
