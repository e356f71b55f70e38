// Bash completion (dist/rpclab.bash-completion) in a real bash against the
// built programs: what a person gets pressing Tab after each word.
#include <gtest/gtest.h>

#include <algorithm>

#include "ecosystem_util.h"

namespace rpclab::test {
namespace {

const std::string kCompletion = RPCLAB_SOURCE_DIR "/dist/rpclab.bash-completion";

// The words bash would offer for `words` (the last one being typed), with
// the completion file `file` loaded.
std::vector<std::string> complete(const std::vector<std::string>& words, const std::string& file = kCompletion) {
  std::string script = "source " + file + "\nCOMP_WORDS=(";
  for (const std::string& w : words) script += " '" + w + "'";
  script += " )\nCOMP_CWORD=" + std::to_string(words.size() - 1) +
            "\nCOMPREPLY=()\n_rpclab\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n";
  ProcessResult r = run_program({"bash", "--norc", "--noprofile", "-c", script});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return lines_of(r.out);
}

bool has(const std::vector<std::string>& words, const std::string& word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

std::string shown(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += w + " ";
  return s;
}

TEST(BashCompletion, OffersTheSubcommandsOfRpclab) {
  auto words = complete({bin("rpclab"), ""});
  for (const char* sub : {"dependability", "speed", "report", "compare", "doctor", "clean-net"})
    EXPECT_TRUE(has(words, sub)) << sub << " not in: " << shown(words);
  EXPECT_FALSE(has(words, "cell")) << "the hidden guest subcommand is not for people";
  EXPECT_EQ(complete({bin("rpclab"), "spe"}), std::vector<std::string>{"speed"});
}

TEST(BashCompletion, OffersEachSubcommandsOwnFlags) {
  auto dependability = complete({bin("rpclab"), "dependability", "--"});
  for (const char* flag : {"--preset", "--transports", "--profile", "--format", "--title", "--dry-run", "--version"})
    EXPECT_TRUE(has(dependability, flag)) << flag << " not in: " << shown(dependability);
  auto speed = complete({bin("rpclab"), "speed", "--"});
  EXPECT_TRUE(has(speed, "--sizes") && has(speed, "--no-calibrate") && has(speed, "--format")) << shown(speed);
  EXPECT_FALSE(has(speed, "--loads")) << "a dependability flag offered to speed";
  EXPECT_EQ(complete({bin("rpclab"), "dependability", "--dry-run", "--pre"}), std::vector<std::string>{"--preset"});
}

TEST(BashCompletion, OffersTheValuesAFlagAccepts) {
  auto presets = complete({bin("rpclab"), "dependability", "--preset", ""});
  for (const char* p : {"levy1989", "remedies", "quick"}) EXPECT_TRUE(has(presets, p)) << p << ": " << shown(presets);
  for (const std::string& p : presets) EXPECT_EQ(p.find_first_of(":{}=, "), std::string::npos) << p;
  EXPECT_EQ(complete({bin("rpclab"), "speed", "--format", ""}), (std::vector<std::string>{"text", "json"}));
  EXPECT_EQ(complete({bin("rpclab"), "speed", "--connect", ""}), (std::vector<std::string>{"persistent", "per-call"}));
  EXPECT_EQ(complete({bin("rpclab"), "speed", "--preset", "=", "q"}), std::vector<std::string>{"quick"});
  auto transports = complete({bin("rpclab-server"), "--transport", ""});
  for (const char* t : {"sunrpc-udp", "sunrpc-tcp", "grpc", "raw-tcp", "raw-udp"})
    EXPECT_TRUE(has(transports, t)) << t << " not in: " << shown(transports);
  // A comma-separated list: the item being typed, after those before it.
  EXPECT_EQ(complete({bin("rpclab"), "dependability", "--transports", "sunrpc-udp,gr"}),
            (std::vector<std::string>{"sunrpc-udp,grpc", "sunrpc-udp,grpc-callback-server", "sunrpc-udp,grpc-callback"}));
  auto profiles = complete({bin("rpclab"), "dependability", "--profile", "lossy"});
  EXPECT_TRUE(has(profiles, "lossy-lan") && has(profiles, "lossy-dup")) << shown(profiles);
  EXPECT_EQ(complete({bin("rpclab-client"), "--op", "e"}), std::vector<std::string>{"echo"});
}

}  // namespace
}  // namespace rpclab::test
