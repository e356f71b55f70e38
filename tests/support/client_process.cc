#include "support/client_process.h"

#include <unistd.h>

#include <atomic>

namespace rpclab::test {

ClientRun run_client(const std::vector<std::string>& args, const TempDir& dir,
                     const std::vector<std::string>& wrapper) {
  static std::atomic<int> runs{0};  // tests run clients from several threads
  std::string record_path = dir.file("client-" + std::to_string(++runs) + ".record");
  std::vector<std::string> argv = wrapper;
  argv.push_back(bin("rpclab-client"));
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--record");
  argv.push_back(record_path);
  ClientRun run;
  run.process = run_program(argv);
  if (::access(record_path.c_str(), R_OK) == 0) run.record = CallRecord::read_file(record_path);
  return run;
}

}  // namespace rpclab::test
