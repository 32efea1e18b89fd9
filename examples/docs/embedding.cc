// README.md, "Embedding": a limiter in front of the accesses to a resource. Here the resource is
// a map in memory; the program stores three messages and prints the limit.
//
//   build/bin/blobtune-doc-embedding
#include <cstddef>
#include <cstdio>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// example: embedding
#include "blobtune/tuner/algorithm_registry.h"
#include "blobtune/tuner/limiter.h"

using namespace blobtune;
using namespace blobtune::tuner;

Status WriteBlob(std::string_view id, std::span<const std::byte> blob);  // your access

// With no algorithm given, blobtune's default runs (docs/TUNING.md says which and why). Any
// other is one registry spec away: .algorithm = MakeAlgorithmFromText("vegas").value().
auto limiter = Limiter::Create({}).value();

Status StoreMessage(std::string_view id, std::span<const std::byte> blob) {
  StatusOr<Permit> permit = limiter->Acquire(std::chrono::milliseconds(200));
  if (!permit.ok()) return permit.status();  // DEADLINE_EXCEEDED, CANCELLED, RESOURCE_EXHAUSTED
  Status s = WriteBlob(id, blob);            // your access to the resource
  if (s.ok()) permit->Success(blob.size()); else permit->Dropped();
  return s;
}
// example end

namespace {
std::mutex written_mu;
std::map<std::string, std::vector<std::byte>, std::less<>> written;
}  // namespace

Status WriteBlob(std::string_view id, std::span<const std::byte> blob) {
  std::lock_guard lock(written_mu);
  written[std::string(id)].assign(blob.begin(), blob.end());
  return Status::Ok();
}

int main() {
  const std::vector<std::byte> message(1000, std::byte{'m'});
  for (const char* id : {"message-1", "message-2", "message-3"}) {
    if (Status s = StoreMessage(id, message); !s.ok()) {
      std::fprintf(stderr, "%s: %s\n", id, s.ToString().c_str());
      return 1;
    }
  }
  std::printf("stored %zu messages; limit %d (%s)\n", written.size(), limiter->limit(),
              std::string(limiter->algorithm_name()).c_str());
  return 0;
}
