// Real processes for end-to-end tests: run one to completion and keep what
// it printed, or keep one running in the background (a server, rpcbind, a
// namespace holder) and stop it by signal. Children die with the test
// process (PR_SET_PDEATHSIG), so a crashed test leaves nothing behind.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace rpclab::test {

// RPCLAB_BIN_DIR/name: a program of the build under test.
std::string bin(const std::string& name);

struct ProcessResult {
  int exit_code = -1;  // 128 + signal when killed by one
  std::string out;
  std::string err;
  bool timed_out = false;
};

// Runs argv (argv[0] found on PATH if it has no '/'), feeding it no input;
// killed with SIGKILL once `timeout` passes.
ProcessResult run_program(const std::vector<std::string>& argv,
                          std::chrono::milliseconds timeout = std::chrono::seconds(60));

// A background process whose stdout and stderr go to `log_path`. SIGKILLed
// and reaped when the object goes away if it is still running.
class Child {
 public:
  Child(const std::vector<std::string>& argv, const std::string& log_path);
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  // The exit code (128 + signal) once it has ended; nullopt while it runs.
  std::optional<int> exit_code();
  // Sends `sig`, waits up to `grace`, then SIGKILL. Returns the exit code.
  int stop(int sig, std::chrono::milliseconds grace = std::chrono::seconds(10));

 private:
  pid_t pid_ = -1;
  std::optional<int> code_;
};

// "exit 3" or "killed by signal 11", for messages.
std::string describe_exit(int code);

}  // namespace rpclab::test
