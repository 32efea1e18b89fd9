#include "limiter_state_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "blobtune/base/version.h"

namespace blobtune::server {
namespace {

Status IoError(std::string_view what, const std::string& path) {
  return Status::Internal(std::string(what) + " " + path + ": " + std::strerror(errno));
}

// Writes all of `text` to `fd`.
bool WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

std::string LimiterStatePath(std::string_view dir, std::string_view limiter_name) {
  return std::string(dir) + "/limiter-" + std::string(limiter_name) + ".state";
}

std::string RestoreLimiterState(std::string_view dir, std::string_view limiter_name,
                                tuner::LimitAlgorithm& algorithm) {
  const std::string path = LimiterStatePath(dir, limiter_name);
  std::ifstream file(path);
  if (!file) return "";
  std::ostringstream text;
  text << file.rdbuf();
  const std::string prefix =
      "the " + std::string(limiter_name) + " limiter does not start from " + path + ": ";
  StatusOr<tuner::AlgorithmState> state = tuner::AlgorithmState::FromText(text.str());
  if (!state.ok()) return prefix + std::string(state.status().message());
  if (state->version != kVersion) {
    return prefix + "it was saved by blobtune " + state->version + ", this is " +
           std::string(kVersion);
  }
  if (state->algorithm != algorithm.name()) {
    return prefix + "it was saved by " + state->algorithm + ", this limiter runs " +
           std::string(algorithm.name());
  }
  if (Status restored = algorithm.RestoreState(*state); !restored.ok()) {
    return prefix + std::string(restored.message());
  }
  return "the " + std::string(limiter_name) + " limiter starts from " + path + " at limit " +
         std::to_string(algorithm.limit());
}

Status SaveLimiterState(std::string_view dir, std::string_view limiter_name,
                        const tuner::AlgorithmState& state) {
  const std::string path = LimiterStatePath(dir, limiter_name);
  const std::string temporary = path + ".new";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return IoError("cannot create", temporary);
  const bool written = WriteAll(fd, state.ToText()) && ::fsync(fd) == 0;
  const int saved_errno = errno;
  ::close(fd);
  errno = saved_errno;
  if (!written) return IoError("cannot write", temporary);
  if (::rename(temporary.c_str(), path.c_str()) != 0) return IoError("cannot rename to", path);
  const std::string directory(dir);
  const int dir_fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return IoError("cannot open", directory);
  const bool synced = ::fsync(dir_fd) == 0;
  ::close(dir_fd);
  if (!synced) return IoError("cannot sync", directory);
  return Status::Ok();
}

}  // namespace blobtune::server
