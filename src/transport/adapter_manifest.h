// An adapter's manifest (adapters/<name>/manifest.json, docs/adapters.md):
// a row made from outside, its programs run by the harness in place of
// rpclab-server and rpclab-client. Read and checked here, field by field;
// the table (transport_table.cc) makes it a TransportRow.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ops/operation.h"
#include "transport/retry_policy.h"

namespace rpclab {

// A manifest that is not valid: the file and the field, and what is wrong.
class AdapterManifestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct AdapterManifest {
  static constexpr int kVersion = 1;

  std::string file;      // where it was read from, for messages
  std::string dir;       // the adapter's folder: {dir}
  std::string out;       // its build folder: {out}
  std::string name, summary, library;
  std::vector<std::string> build, server, client;  // argvs, {dir} and {out} already substituted
  bool datagram = false;
  OperationSet operations;
  std::vector<RetryPolicy> retry_policies;
  LibraryRetry library_retry = LibraryRetry::kNone;
  std::string library_retry_what;
  bool at_most_once = false;
  bool wire_xid = false;
  size_t max_payload = size_t{16} << 20;
  int default_timeout_ms = 0;
  bool server_stats = false;
  // Its client takes --start-gate DIR (common/start_gate.h); otherwise
  // parallel clients begin at a guessed instant, --start-at.
  bool start_gate = false;

  bool takes(RetryPolicy p) const;
  // The programs that must exist for the row to be offered.
  std::vector<std::string> programs() const { return {server.front(), client.front()}; }
};

// `text` read from `file`, the adapter in `dir`, built into `out`. Throws
// AdapterManifestError naming the file and the field.
AdapterManifest parse_adapter_manifest(std::string_view text, const std::string& file, const std::string& dir,
                                       const std::string& out);

// An adapter that is not a row here, and why (not built, its build failed).
struct SkippedAdapter {
  std::string name, reason;
  AdapterManifest manifest;
};

struct AdapterScan {
  std::vector<AdapterManifest> ready;  // built: their programs exist
  std::vector<SkippedAdapter> skipped;
};

// Every <folder>/*/manifest.json under each of `folders`, built into
// `out_root`/<name>; one not valid, or a second of a name, is skipped with
// the reason (adapter_scan.h, which finds them from several folders too).
AdapterScan scan_adapters(const std::vector<std::string>& folders, const std::string& out_root);

// The file a failed build leaves in the adapter's build folder, holding why.
inline constexpr std::string_view kBuildFailedFile = "build-failed";

}  // namespace rpclab
