// A CSV text read back as rows of cells, so a test checks results.csv as
// a spreadsheet would read it rather than by searching its text.
#pragma once

#include <string>
#include <vector>

namespace rpclab::test {

// A minimal RFC 4180 reader: quoted cells may hold commas, newlines and
// doubled quotes; a last line without its newline is a row too.
std::vector<std::vector<std::string>> csv_rows(const std::string& text);

}  // namespace rpclab::test
