#include "progress_line.h"

#include <cstdio>

namespace blobtune::delivery {

ProgressLine::ProgressLine(bool enabled, std::function<std::string()> text,
                           std::chrono::milliseconds interval)
    : text_(std::move(text)), interval_(interval) {
  if (enabled) ticker_ = std::thread([this] { Tick(); });
}

ProgressLine::~ProgressLine() { Stop(); }

void ProgressLine::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

void ProgressLine::Tick() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    std::string line = text_();
    // Pads over the rest of a longer previous line.
    const size_t shown = line.size();
    if (line.size() < width_) line.append(width_ - line.size(), ' ');
    width_ = shown;
    std::fprintf(stderr, "\r%s", line.c_str());
    std::fflush(stderr);
    lock.lock();
    wake_.wait_for(lock, interval_, [this] { return stopping_; });
  }
  std::fprintf(stderr, "\r%*s\r", static_cast<int>(width_), "");
  std::fflush(stderr);
}

}  // namespace blobtune::delivery
