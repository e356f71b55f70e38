// Every key the lines journal's reader (journal_lines.h) takes, in any
// line: docs/adapters.md ("What the harness reads") names each, and a test
// holds the page to this list, drawn from the reader's own tables.
#pragma once

#include <string_view>
#include <vector>

namespace rpclab {

std::vector<std::string_view> journal_lines_keys();

}  // namespace rpclab
