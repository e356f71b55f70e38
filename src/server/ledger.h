// The server's execution ledger: how many times each (client, seq) ran.
//
// About one byte per call: counts live in 4096-entry chunks allocated on
// first touch, so a client's sequence 0..N-1 costs N bytes. Counts above 254
// spill into an exact side table. The total size is capped, so garbage that
// decodes as NEXT with random ids cannot exhaust memory; past the cap, calls
// still run but are counted as unrecorded.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

namespace rpclab {

class ByteReader;

class LedgerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Ledger {
 public:
  static constexpr uint32_t kChunkCalls = 4096;
  static constexpr size_t kDefaultMaxBytes = size_t{256} << 20;
  using Chunk = std::array<uint8_t, kChunkCalls>;

  struct ClientEntry {
    uint64_t mismatches = 0;  // Levy's check failures, kept by ServerCore
    std::map<uint32_t, std::unique_ptr<Chunk>> chunks;  // chunk index -> counts
  };

  explicit Ledger(size_t max_bytes = kDefaultMaxBytes) : max_bytes_(max_bytes) {}
  Ledger(Ledger&&) = default;
  Ledger& operator=(Ledger&&) = default;

  // Counts one execution. Returns the count including this one, or 0 when the
  // ledger is full and the execution could not be recorded.
  uint32_t record(uint32_t client, uint32_t seq);
  uint32_t count(uint32_t client, uint32_t seq) const;
  void add_mismatch(uint32_t client);
  // Executions that ran without a place in the ledger (its cap, or the
  // journal's: ServerCore keeps the two in step).
  void add_unrecorded(uint64_t n = 1) { unrecorded_ += n; }

  uint64_t mismatches(uint32_t client) const;
  uint64_t total_executions(uint32_t client) const;
  uint64_t unrecorded() const { return unrecorded_; }
  const std::map<uint32_t, ClientEntry>& clients() const { return clients_; }

  // Binary file format (docs/results-format.md); written to a temporary file
  // and renamed, so a reader never sees half a ledger.
  std::string serialize() const;
  static Ledger parse(std::string_view bytes);  // throws LedgerError
  void write_file(const std::string& path) const;
  static Ledger read_file(const std::string& path);

 private:
  ClientEntry* client_entry(uint32_t client);
  void parse_client(ByteReader& in);  // throws LedgerError, TruncatedInput
  void parse_spill(ByteReader& in);
  size_t spilled_cells() const;
  const uint8_t* find_cell(uint32_t client, uint32_t seq) const;  // nullptr if never touched
  Chunk* chunk_for(ClientEntry& entry, uint32_t seq);

  size_t max_bytes_;
  size_t used_bytes_ = 0;
  uint64_t unrecorded_ = 0;
  std::map<uint32_t, ClientEntry> clients_;
  // Exact counts for (client, seq) pairs that ran 255 times or more.
  std::unordered_map<uint64_t, uint32_t> overflow_;
};

}  // namespace rpclab
