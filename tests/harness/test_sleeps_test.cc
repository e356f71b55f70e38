// Tests wait on conditions with a deadline (support/wait.h), never on a
// bare sleep: on a loaded 2-core machine any guessed duration is wrong
// sooner or later. A sleep that is not a wait (a measuring interval, the
// pace of a client, a random kill moment) says so on its line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

namespace rpclab::test {
namespace {

TEST(TestRules, EverySleepInTestsIsTheWaitHelperOrSaysWhyItIsNotAWait) {
  const std::filesystem::path tests = RPCLAB_SOURCE_DIR "/tests";
  const std::regex sleep(R"(\bsleep_for\s*\(|\busleep\s*\(|\bnanosleep\s*\(|[^_a-z]sleep\s*\(\s*\d)");
  std::vector<std::string> bare;
  size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(tests)) {
    std::string ext = e.path().extension().string();
    if (ext != ".cc" && ext != ".h") continue;
    ++files;
    std::ifstream in(e.path());
    size_t n = 0;
    for (std::string line; std::getline(in, line);) {
      ++n;
      bool is_helper = e.path().filename() == "wait.h" && line.find("the polling interval") != std::string::npos;
      bool explained = line.find("// not a wait: ") != std::string::npos;
      if (std::regex_search(line, sleep) && !is_helper && !explained)
        bare.push_back(std::filesystem::relative(e.path(), tests).string() + ":" + std::to_string(n) + ": " + line);
    }
  }
  EXPECT_GT(files, 20u) << "the test sources were not found under " << tests;
  for (const std::string& b : bare)
    ADD_FAILURE() << b << "\n  wait on the condition with wait_until (support/wait.h), or say why it is not a wait";
}

}  // namespace
}  // namespace rpclab::test
