// Attachment: the RAII link that lets a StoreMetrics read a BlobStore's Stats() at scrape time;
// destroying it unlinks them, so a scrape never touches a destroyed store. (A limiter needs none:
// it links itself to its observer for as long as it exists.)
//
//   auto store = store::OpenLmdbBlobStore(options).value();
//   metrics::Attachment link = store_metrics->Attach(*store);  // declared after the store
//   ...                                  // destroyed first: unlinked before the store goes
//
// Thread-safety: an Attachment is owned by one thread at a time; unlinking waits for a scrape
// that is reading the linked object to finish.
#ifndef BLOBTUNE_METRICS_ATTACHMENT_H_
#define BLOBTUNE_METRICS_ATTACHMENT_H_

#include <cstdint>
#include <utility>

namespace blobtune::metrics {

class Attachment {
 public:
  Attachment() noexcept = default;  // Links nothing.
  Attachment(Attachment&& other) noexcept
      : target_(std::exchange(other.target_, nullptr)),
        detach_(other.detach_),
        generation_(other.generation_) {}
  Attachment& operator=(Attachment&& other) noexcept {
    if (this != &other) {
      Reset();
      target_ = std::exchange(other.target_, nullptr);
      detach_ = other.detach_;
      generation_ = other.generation_;
    }
    return *this;
  }
  Attachment(const Attachment&) = delete;
  Attachment& operator=(const Attachment&) = delete;
  ~Attachment() { Reset(); }

  // Unlinks now (a later Attach of the same metrics object is not affected).
  void Reset() noexcept {
    if (target_ != nullptr) detach_(std::exchange(target_, nullptr), generation_);
  }
  bool linked() const noexcept { return target_ != nullptr; }

 private:
  friend class StoreMetrics;
  using DetachFn = void (*)(void* target, uint64_t generation) noexcept;
  Attachment(void* target, DetachFn detach, uint64_t generation) noexcept
      : target_(target), detach_(detach), generation_(generation) {}

  void* target_ = nullptr;
  DetachFn detach_ = nullptr;
  uint64_t generation_ = 0;
};

}  // namespace blobtune::metrics

#endif  // BLOBTUNE_METRICS_ATTACHMENT_H_
