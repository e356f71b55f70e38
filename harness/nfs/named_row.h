// The row of a table (nfs_servers(), nfs_clients()) named `name`; throws
// std::invalid_argument naming every row: "no NFS client 'x' (clients: a, b)".
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace rpclab::harness::nfs {

template <typename Row>
const Row& named_row(const std::vector<Row>& rows, const std::string& name, const std::string& what,
                     const std::string& plural) {
  std::string names;
  for (const Row& row : rows) {
    if (row.name == name) return row;
    names += (names.empty() ? "" : ", ") + row.name;
  }
  throw std::invalid_argument("no " + what + " '" + name + "' (" + plural + ": " + names + ")");
}

}  // namespace rpclab::harness::nfs
