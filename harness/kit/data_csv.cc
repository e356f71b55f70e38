#include "harness/kit/data_csv.h"

#include <fstream>
#include <sstream>

namespace rpclab::harness {

Csv read_csv(const std::string& path) {
  Csv rows;
  std::ifstream in(path);
  std::vector<std::string> header;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream f(line);
    for (std::string field; std::getline(f, field, ',');) fields.push_back(field);
    if (header.empty()) {
      header = fields;
      continue;
    }
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
    rows.push_back(row);
  }
  return rows;
}

}  // namespace rpclab::harness
