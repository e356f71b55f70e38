#include "harness/adapters/adapter_build.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "common/atomic_file.h"
#include "harness/placement/cell_processes.h"
#include "process/child_process.h"
#include "process/command_runner.h"
#include "transport/adapter_scan.h"

namespace rpclab::harness {
namespace {

constexpr auto kBuildLimit = std::chrono::minutes(10);

std::string built(const AdapterManifest& a) {
  for (const std::string& program : a.programs())
    if (::access(program.c_str(), X_OK) != 0) return "the build did not make " + program;
  return "";
}

std::string run_build(const AdapterManifest& a, const std::string& log_path, process::CommandLog& log) {
  if (a.build.empty()) return built(a);
  std::vector<std::string> argv = a.build;
  if (argv[0].find('/') == std::string::npos) argv[0] = process::tool_path(argv[0]);
  process::SpawnOptions spawn;
  spawn.stdout_path = spawn.stderr_path = log_path;
  try {
    process::ChildProcess build(argv, spawn, log);
    std::optional<int> status = build.wait_for(kBuildLimit);
    if (!status) return "the build took longer than 10 minutes";
    if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0)
      return "`" + a.build[0] + " ...` " + process::describe_wait_status(*status) + ": " + log_tail(log_path, 3);
  } catch (const std::exception& e) {
    return std::string("the build command cannot start: ") + e.what();
  }
  return built(a);
}

}  // namespace

std::string build_adapter(const AdapterManifest& a, process::CommandLog& log) {
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) return "cannot make its build folder " + a.out + ": " + ec.message();
  std::string failed = a.out + "/" + std::string(kBuildFailedFile);
  std::string why = run_build(a, a.out + "/build.log", log);
  if (why.empty()) {
    ::unlink(failed.c_str());
  } else {
    // The sources as the build left them: a change to them (the fix) is
    // what makes the next start try again.
    write_file_atomically(failed, build_failed_text(why, a.dir));
  }
  return why;
}

}  // namespace rpclab::harness
