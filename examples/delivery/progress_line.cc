#include "progress_line.h"

#include <cstdio>

namespace blobtune::delivery {

ProgressLine::ProgressLine(bool enabled, std::function<std::string()> text,
                           std::chrono::milliseconds interval)
    : enabled_(enabled), text_(std::move(text)), interval_(interval) {
  if (enabled_) ticker_ = std::thread([this] { Tick(); });
}

ProgressLine::~ProgressLine() { Stop(); }

void ProgressLine::Stop() {
  {
    MutexLock lock(mutex_);
    stopping_ = true;
  }
  wake_.NotifyAll();
  if (ticker_.joinable()) ticker_.join();
}

void ProgressLine::Above(const std::function<void()>& print) {
  MutexLock lock(mutex_);
  ClearLocked();
  print();
  std::fflush(stdout);
}

void ProgressLine::ClearLocked() {
  if (!enabled_ || width_ == 0) return;
  std::fprintf(stderr, "\r%*s\r", static_cast<int>(width_), "");
  std::fflush(stderr);
  width_ = 0;
}

void ProgressLine::Tick() {
  MutexLock lock(mutex_);
  while (!stopping_) {
    std::string line = text_();
    // Pads over the rest of a longer previous line.
    const size_t shown = line.size();
    if (line.size() < width_) line.append(width_ - line.size(), ' ');
    width_ = shown;
    std::fprintf(stderr, "\r%s", line.c_str());
    std::fflush(stderr);
    wake_.WaitFor(lock, interval_, [this]() BLOBTUNE_REQUIRES(mutex_) { return stopping_; });
  }
  ClearLocked();
}

}  // namespace blobtune::delivery
