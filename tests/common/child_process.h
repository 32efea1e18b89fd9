// ChildProcess: runs one of the project's programs as a child process for a test, with its
// stderr on a pipe the test reads line by line (to learn, say, which port it bound) and its
// stdout in a file. The destructor kills (SIGKILL) and reaps a child that is still running.
//
//   auto child = ChildProcess::Start({BLOBTUNE_WORKBENCH, "--metrics", "127.0.0.1:0", ...});
//   std::optional<std::string> line = child->WaitForLine("serving metrics at", 30s);
//   child->Signal(SIGTERM);
//   EXPECT_EQ(child->Wait(), 0);
//
// Thread-safety: none; one test thread drives a ChildProcess.
#ifndef BLOBTUNE_TESTS_COMMON_CHILD_PROCESS_H_
#define BLOBTUNE_TESTS_COMMON_CHILD_PROCESS_H_

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace blobtune::testing {

class ChildProcess {
 public:
  // Starts argv[0] (a path) with the arguments; stdout goes to `stdout_path` (default: discarded).
  // nullptr when the process cannot be started.
  static std::unique_ptr<ChildProcess> Start(const std::vector<std::string>& argv,
                                             const std::string& stdout_path = "/dev/null") {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return nullptr;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (rc != 0) {
      close(fds[0]);
      return nullptr;
    }
    return std::unique_ptr<ChildProcess>(new ChildProcess(pid, fds[0]));
  }

  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(stderr_fd_);
  }

  // Reads stderr until a line containing `needle` arrives (returned without its newline), or
  // the child closes stderr, or `timeout` passes (nullopt). Everything read is kept in stderr().
  std::optional<std::string> WaitForLine(std::string_view needle,
                                         std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    size_t line_start = scanned_;
    for (;;) {
      for (size_t nl; (nl = stderr_.find('\n', scanned_)) != std::string::npos;) {
        std::string line = stderr_.substr(line_start, nl - line_start);
        scanned_ = line_start = nl + 1;
        if (line.find(needle) != std::string::npos) return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{stderr_fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buf[4096];
      const ssize_t n = read(stderr_fd_, buf, sizeof buf);
      if (n <= 0) return std::nullopt;  // The child closed stderr (exited).
      stderr_.append(buf, static_cast<size_t>(n));
    }
  }

  void Signal(int sig) {
    if (pid_ > 0) kill(pid_, sig);
  }

  // Waits for the child to exit: its exit code, or 128 + the signal that ended it.
  int Wait() {
    int status = 0;
    if (pid_ <= 0 || waitpid(pid_, &status, 0) != pid_) return -1;
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  // Everything read from stderr so far.
  const std::string& stderr_text() const { return stderr_; }

 private:
  ChildProcess(pid_t pid, int stderr_fd) : pid_(pid), stderr_fd_(stderr_fd) {}

  pid_t pid_;
  int stderr_fd_;
  std::string stderr_;
  size_t scanned_ = 0;
};

}  // namespace blobtune::testing

#endif  // BLOBTUNE_TESTS_COMMON_CHILD_PROCESS_H_
