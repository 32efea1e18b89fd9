// ChildProcess: runs one of the project's programs as a child process for a test, with its
// stderr (or stdout) on a pipe the test reads line by line, to learn, say, which port it bound.
// The destructor kills (SIGKILL) and reaps a child that is still running.
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
  // Which of the child's outputs the test reads; the other goes where the test's goes.
  enum class Read { kStderr, kStdout };

  // Starts argv[0] (a path) with the arguments. nullptr when the process cannot be started.
  static std::unique_ptr<ChildProcess> Start(const std::vector<std::string>& argv,
                                             Read read = Read::kStderr) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return nullptr;
    const int piped = read == Read::kStderr ? STDERR_FILENO : STDOUT_FILENO;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], piped);
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
    close(pipe_fd_);
  }

  // Reads the piped output until a line containing `needle` arrives (returned without its
  // newline), or the child closes it, or `timeout` passes (nullopt). Everything read is kept in
  // output().
  std::optional<std::string> WaitForLine(std::string_view needle,
                                         std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    size_t line_start = scanned_;
    for (;;) {
      for (size_t nl; (nl = output_.find('\n', scanned_)) != std::string::npos;) {
        std::string line = output_.substr(line_start, nl - line_start);
        scanned_ = line_start = nl + 1;
        if (line.find(needle) != std::string::npos) return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{pipe_fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buf[4096];
      const ssize_t n = read(pipe_fd_, buf, sizeof buf);
      if (n <= 0) return std::nullopt;  // The child closed it (exited).
      output_.append(buf, static_cast<size_t>(n));
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

  // Everything read from the piped output so far.
  const std::string& output() const { return output_; }

 private:
  ChildProcess(pid_t pid, int pipe_fd) : pid_(pid), pipe_fd_(pipe_fd) {}

  pid_t pid_;
  int pipe_fd_;
  std::string output_;
  size_t scanned_ = 0;
};

}  // namespace blobtune::testing

#endif  // BLOBTUNE_TESTS_COMMON_CHILD_PROCESS_H_
