#include "process_stats.h"

#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace blobtune::metrics::internal {
namespace {

// The fields of /proc/self/stat after the command name (which is in parentheses and may hold
// spaces): field 3 of proc(5), the state, is [0].
std::optional<std::vector<std::string>> StatFields() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(line.substr(close + 1));
  return std::vector<std::string>(std::istream_iterator<std::string>(rest),
                                  std::istream_iterator<std::string>());
}

// The "btime" line of /proc/stat: when the machine booted, in seconds since the epoch.
std::optional<double> BootTimeSeconds() {
  std::ifstream in("/proc/stat");
  std::string key;
  double value = 0;
  while (in >> key) {
    if (key == "btime" && in >> value) return value;
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return std::nullopt;
}

std::optional<uint64_t> Number(const std::string& text) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

uint64_t OpenFds() {
  std::error_code ec;
  uint64_t n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec)) {
    ++n;
  }
  return n;
}

}  // namespace

std::optional<ProcessStats> ReadProcessStats() {
  // proc(5) numbers the fields from 1; fields[0] is field 3.
  constexpr size_t kUtime = 14 - 3, kStime = 15 - 3, kStartTime = 22 - 3, kVsize = 23 - 3,
                   kRss = 24 - 3;
  std::optional<std::vector<std::string>> fields = StatFields();
  std::optional<double> boot = BootTimeSeconds();
  const long ticks = sysconf(_SC_CLK_TCK);
  const long page = sysconf(_SC_PAGESIZE);
  if (!fields || fields->size() <= kRss || !boot || ticks <= 0 || page <= 0) return std::nullopt;
  const std::vector<std::string>& f = *fields;
  const std::optional<uint64_t> utime = Number(f[kUtime]), stime = Number(f[kStime]),
                                start = Number(f[kStartTime]), vsize = Number(f[kVsize]),
                                rss = Number(f[kRss]);
  if (!utime || !stime || !start || !vsize || !rss) return std::nullopt;
  ProcessStats s;
  s.cpu_seconds = static_cast<double>(*utime + *stime) / static_cast<double>(ticks);
  s.start_time_seconds = *boot + static_cast<double>(*start) / static_cast<double>(ticks);
  s.virtual_memory_bytes = *vsize;
  s.resident_memory_bytes = *rss * static_cast<uint64_t>(page);
  s.open_fds = OpenFds();
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) s.max_fds = limit.rlim_cur;
  return s;
}

}  // namespace blobtune::metrics::internal
