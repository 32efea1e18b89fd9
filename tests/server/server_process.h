// ServerProcess: the real blobtune-server binary (BLOBTUNE_SERVER_BINARY) as a child process of
// a test, its stdout and stderr on one pipe; killed (SIGKILL) and reaped by the destructor if it is
// still running.
//
//   ServerProcess server({"--data-dir", dir, "--listen", "127.0.0.1:0"});
//   uint16_t port = server.ReadPort();   // 0 if it exited first: see output()
//   server.Signal(SIGTERM);
//   int code = server.WaitExit();
//
// Thread-safety: one thread at a time; Signal() may come from any thread.
#ifndef BLOBTUNE_TESTS_SERVER_SERVER_PROCESS_H_
#define BLOBTUNE_TESTS_SERVER_SERVER_PROCESS_H_

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace blobtune::server {

class ServerProcess {
 public:
  explicit ServerProcess(std::vector<std::string> args) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], STDOUT_FILENO);
      dup2(fds[1], STDERR_FILENO);
      close(fds[0]);
      close(fds[1]);
      std::vector<char*> argv;
      std::string binary = BLOBTUNE_SERVER_BINARY;
      argv.push_back(binary.data());
      for (std::string& arg : args) argv.push_back(arg.data());
      argv.push_back(nullptr);
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
    close(fds[1]);
    out_ = fds[0];
  }
  ~ServerProcess() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(out_);
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Reads the output up to the "listening on HOST:PORT" line; 0 if the child ended first.
  uint16_t ReadPort() {
    std::string line;
    char c;
    while (read(out_, &c, 1) == 1) {
      output_ += c;
      if (c != '\n') continue;
      const size_t at = output_.rfind("listening on 127.0.0.1:");
      if (at != std::string::npos) return static_cast<uint16_t>(std::stoi(output_.substr(at + 23)));
    }
    return 0;
  }
  // Waits for the exit; the rest of the output is appended to output().
  int WaitExit() {
    char buffer[256];
    ssize_t n;
    while ((n = read(out_, buffer, sizeof buffer)) > 0) output_.append(buffer, n);
    int status = 0;
    waitpid(pid_, &status, 0);
    reaped_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  void Signal(int signal) { kill(pid_, signal); }
  pid_t pid() const { return pid_; }
  const std::string& output() const { return output_; }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  bool reaped_ = false;
  std::string output_;
};

}  // namespace blobtune::server

#endif  // BLOBTUNE_TESTS_SERVER_SERVER_PROCESS_H_
