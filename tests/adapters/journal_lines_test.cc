// The lines journal (docs/adapters.md, "The lines journal"): read into the
// binary journal's records and ledger; a line a SIGKILL tore is skipped,
// once per server life; anything else that does not read is refused with
// its line number.
#include <gtest/gtest.h>

#include "server/journal_lines.h"
#include "server/journal_reader.h"

namespace rpclab {
namespace {

const std::string kHead = R"({"format":"rpclab-journal-lines","version":1,"transport":"demo"})" "\n";

std::string refusal(const std::string& text) {
  try {
    ledger_from_journal(text);
    return "";
  } catch (const JournalError& e) {
    return e.what();
  }
}

TEST(JournalLines, RepeatsAreExecutionsAndMismatchesAreLevys) {
  std::string text = kHead + R"({"start":1,"pid":7})" "\n"
                     R"({"exec":[1,0,0,0,1],"realtime_ns":5})" "\n"
                     R"({"exec":[1,1,0,1,1]})" "\n"
                     R"({"exec":[1,1,1,2,2],"request_id":9,"attempt":1,"connection":3,"peer":"10.0.0.2:4000"})" "\n"
                     R"({"exec":[2,5,1,0,1]})" "\n";
  JournalLines lines = parse_journal_lines(text);
  EXPECT_EQ(lines.transport, "demo");
  EXPECT_EQ(lines.starts, 1u);
  EXPECT_EQ(lines.holes, 0u);
  ASSERT_EQ(lines.records.size(), 4u);
  const journal::Record& r = lines.records[2];
  EXPECT_EQ(r.request_id, 9u);
  EXPECT_EQ(r.attempt, 1u);
  EXPECT_EQ(r.connection, 3u);
  EXPECT_EQ(r.peer_ipv4, (10u << 24) | 2u);
  EXPECT_EQ(r.peer_port, 4000u);
  EXPECT_EQ(r.known, journal::kKnowsRequestId | journal::kKnowsAttempt | journal::kKnowsConnection | journal::kKnowsPeer);
  EXPECT_EQ(r.seal, journal::seal_of(r));
  EXPECT_EQ(lines.records[0].realtime_ns, 5);
  EXPECT_EQ(lines.records[0].known, 0u);

  Ledger ledger = ledger_from_journal(text);
  EXPECT_EQ(ledger.count(1, 1), 2u);
  EXPECT_EQ(ledger.count(1, 0), 1u);
  EXPECT_EQ(ledger.total_executions(1), 3u);
  EXPECT_EQ(ledger.mismatches(1), 1u);
  EXPECT_EQ(ledger.mismatches(2), 1u);
}

TEST(JournalLines, ATornLastLineIsACallCutShortNotDamage) {
  std::string whole = kHead + R"({"start":1,"pid":7})" "\n" R"({"exec":[1,0,0,0,1]})" "\n";
  for (std::string tail : {R"({"exec":[1,1,0,)", R"({"exec":[1,1,0,1,1]})"}) {  // cut mid-line, or just its newline
    JournalLines lines = parse_journal_lines(whole + tail);
    EXPECT_EQ(lines.records.size(), 1u) << tail;
    EXPECT_EQ(lines.holes, 1u) << tail;
  }
  // A restart ended the torn line with a newline of its own, then started.
  std::string restarted = whole + R"({"exec":[1,1,0,)" "\n" R"({"start":2,"pid":8})" "\n" R"({"exec":[1,1,0,1,1]})" "\n";
  JournalLines lines = parse_journal_lines(restarted);
  EXPECT_EQ(lines.starts, 2u);
  EXPECT_EQ(lines.holes, 1u);
  ASSERT_EQ(lines.records.size(), 2u);
  EXPECT_EQ(lines.records[1].start, 2u);
  EXPECT_EQ(ledger_from_journal(restarted).count(1, 1), 1u);
  // Each life may end torn: one hole each.
  JournalLines two = parse_journal_lines(whole + "{\"exec\":[1\n" R"({"start":2})" "\n" "{\"e");
  EXPECT_EQ(two.holes, 2u);
  EXPECT_EQ(two.records.size(), 1u);
}

TEST(JournalLines, DamageIsRefusedWithItsLineNumber) {
  std::string start = kHead + R"({"start":1,"pid":7})" "\n";
  EXPECT_NE(refusal(start + "garbage\n" R"({"exec":[1,0,0,0,1]})" "\n").find("line 3: not a JSON object"),
            std::string::npos);
  EXPECT_NE(refusal(start + R"({"exec":[1,0,0,0,2]})" "\n").find("says execution 2 of client 1 seq 0, but it is "
                                                                  "execution 1"), std::string::npos);
  EXPECT_NE(refusal(start + R"({"exec":[1,0,7,0,1]})" "\n").find("line 3: unknown status 7"), std::string::npos);
  EXPECT_NE(refusal(start + R"({"exec":[1,0,0,0]})" "\n").find("line 3: expected [client_id"), std::string::npos);
  EXPECT_NE(refusal(start + R"({"exec":[1,0,0,0,1],"colour":"red"})" "\n").find("line 3: unknown key 'colour'"),
            std::string::npos);
  EXPECT_NE(refusal(start + R"({"start":3})" "\n").find("line 3: server start 3 after start 1"), std::string::npos);
  EXPECT_NE(refusal(kHead + R"({"exec":[1,0,0,0,1]})" "\n").find("line 2: a call before any server start"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"format":"rpclab-journal-lines","version":2,"transport":"x"})" "\n").find("unsupported version"),
            std::string::npos);
  // Two torn lines in one life: a kill tears at most the last.
  std::string twice = start + "{\"exec\":[1\n" "{\"exec\":[2\n" R"({"start":2})" "\n";
  EXPECT_NE(refusal(twice).find("line 3: not a JSON object, and not the last line of a server's life"),
            std::string::npos) << refusal(twice);
}

}  // namespace
}  // namespace rpclab
