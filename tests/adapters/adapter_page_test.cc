// docs/adapters.md says, in one place ("What the harness reads"), every
// field rpclab reads from an adapter's files. The lists come from the
// readers' own types: the call record header's (CallRecordHeader), the
// stats file's (ServerStats), the lines journal's (journal_lines_keys()).
// A field added to a reader and not named on the page fails this test.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "client/call_record_header.h"
#include "server/journal_lines_keys.h"
#include "server/server_stats.h"

namespace rpclab {
namespace {

struct FieldsOf {
  std::string file;
  std::vector<std::string> keys;
};

std::vector<FieldsOf> fields_read() {
  FieldsOf header{"the call record's header", {}}, stats{"the stats file", {}}, journal{"the lines journal", {}};
  // Each type's mapping, written from a default value, names every field it reads.
  const nlohmann::json header_fields = CallRecordHeader{}, stats_fields = ServerStats{};
  for (const auto& [key, value] : header_fields.items()) header.keys.push_back(key);
  for (const auto& [key, value] : stats_fields.items()) stats.keys.push_back(key);
  for (std::string_view key : journal_lines_keys()) journal.keys.emplace_back(key);
  return {header, stats, journal};
}

// The page's section that holds them.
std::string section(const std::string& page, const std::string& title) {
  size_t at = page.find("\n" + title + "\n");
  if (at == std::string::npos) return "";
  size_t end = page.find("\n## ", at + 1);
  return page.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// Each field read that the section does not name as `field`: "field (file)".
std::vector<std::string> unnamed(const std::string& page) {
  std::string reads = section(page, "## What the harness reads");
  std::vector<std::string> out;
  for (const FieldsOf& f : fields_read())
    for (const std::string& key : f.keys)
      if (reads.find("`" + key + "`") == std::string::npos) out.push_back(key + " (" + f.file + ")");
  return out;
}

std::string the_page() {
  std::ifstream in(RPCLAB_SOURCE_DIR "/docs/adapters.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(AdapterPage, NamesEveryFieldTheHarnessReads) {
  std::string page = the_page();
  ASSERT_FALSE(section(page, "## What the harness reads").empty()) << "docs/adapters.md has no 'What the harness reads'";
  size_t fields = 0;
  for (const FieldsOf& f : fields_read()) fields += f.keys.size();
  EXPECT_GE(fields, 30u);  // the three readers' lists, not an empty one
  for (const std::string& missing : unnamed(page))
    ADD_FAILURE() << "docs/adapters.md, What the harness reads, does not name `" << missing
                  << "`: say what an adapter writes there";
}

// The test above can fail: a page without one field read is caught, and
// a field only named elsewhere on the page does not count.
TEST(AdapterPage, APageMissingAFieldIsCaught) {
  std::string page = the_page();
  std::string reads = section(page, "## What the harness reads");
  std::string without = reads;
  for (size_t at; (at = without.find("`rate_per_s`")) != std::string::npos;) without.replace(at, 12, "rate");
  std::string changed = page;
  changed.replace(changed.find(reads), reads.size(), without);
  EXPECT_EQ(unnamed(changed), std::vector<std::string>{"rate_per_s (the call record's header)"});
  EXPECT_FALSE(unnamed("# no section\n`rate_per_s`\n").empty());
}

}  // namespace
}  // namespace rpclab
