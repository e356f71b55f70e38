// Replays every saved fuzz input through its target: the seed corpora
// (corpus/<target>/) and the inputs that once crashed a target
// (regressions/<target>/, each fixed since). Runs in every build, so a
// regression shows in `make test` without clang or libFuzzer; under
// `make SANITIZE=address,undefined test` the replay runs with the sanitizers.
#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fuzz_targets.h"

namespace rpclab::fuzz {
namespace {

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> files;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') files.push_back(dir + "/" + e->d_name);
    ::closedir(d);
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void replay(const FuzzTarget& target, const std::string& kind, bool must_exist) {
  std::string dir = std::string(RPCLAB_FUZZ_DIR) + "/" + kind + "/" + target.name;
  std::vector<std::string> files = files_in(dir);
  if (must_exist) {
    EXPECT_FALSE(files.empty()) << "no seed inputs in " << dir;
  }
  for (const std::string& path : files) {
    std::string bytes = read_file(path);
    try {
      target.run(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    } catch (const std::exception& e) {
      ADD_FAILURE() << path << ": " << e.what();
    }
  }
}

class FuzzReplay : public testing::TestWithParam<FuzzTarget> {};

TEST_P(FuzzReplay, SeedCorpus) { replay(GetParam(), "corpus", true); }
TEST_P(FuzzReplay, Regressions) { replay(GetParam(), "regressions", false); }

INSTANTIATE_TEST_SUITE_P(Targets, FuzzReplay, testing::ValuesIn(kFuzzTargets),
                         [](const testing::TestParamInfo<FuzzTarget>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace rpclab::fuzz
