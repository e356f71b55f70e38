#include "server/ledger.h"

#include <algorithm>

#include "common/atomic_file.h"
#include "common/byte_codec.h"

namespace rpclab {
namespace {

constexpr std::string_view kMagic = "RPCLEDG1";
constexpr uint8_t kSpill = 255;  // byte value meaning "see the overflow table"
constexpr size_t kClientCost = 128;  // rough bytes per client entry, for the cap

uint64_t pair_key(uint32_t client, uint32_t seq) { return (uint64_t{client} << 32) | seq; }

}  // namespace

Ledger::ClientEntry* Ledger::client_entry(uint32_t client) {
  auto it = clients_.find(client);
  if (it != clients_.end()) return &it->second;
  if (used_bytes_ + kClientCost > max_bytes_) return nullptr;
  used_bytes_ += kClientCost;
  return &clients_[client];
}

Ledger::Chunk* Ledger::chunk_for(ClientEntry& entry, uint32_t seq) {
  auto& slot = entry.chunks[seq / kChunkCalls];
  if (!slot) {
    if (used_bytes_ + sizeof(Chunk) > max_bytes_) {
      entry.chunks.erase(seq / kChunkCalls);
      return nullptr;
    }
    used_bytes_ += sizeof(Chunk);
    slot = std::make_unique<Chunk>();
    slot->fill(0);
  }
  return slot.get();
}

uint32_t Ledger::record(uint32_t client, uint32_t seq) {
  ClientEntry* entry = client_entry(client);
  Chunk* chunk = entry ? chunk_for(*entry, seq) : nullptr;
  if (!chunk) {
    ++unrecorded_;
    return 0;
  }
  uint8_t& cell = (*chunk)[seq % kChunkCalls];
  if (cell < kSpill - 1) return ++cell;
  if (cell == kSpill - 1) {
    cell = kSpill;
    overflow_[pair_key(client, seq)] = kSpill;
    return kSpill;
  }
  return ++overflow_[pair_key(client, seq)];
}

const uint8_t* Ledger::find_cell(uint32_t client, uint32_t seq) const {
  auto it = clients_.find(client);
  if (it == clients_.end()) return nullptr;
  auto chunk = it->second.chunks.find(seq / kChunkCalls);
  return chunk == it->second.chunks.end() ? nullptr : &(*chunk->second)[seq % kChunkCalls];
}

uint32_t Ledger::count(uint32_t client, uint32_t seq) const {
  const uint8_t* cell = find_cell(client, seq);
  if (!cell) return 0;
  if (*cell != kSpill) return *cell;
  auto spill = overflow_.find(pair_key(client, seq));
  return spill == overflow_.end() ? kSpill : spill->second;
}

void Ledger::add_mismatch(uint32_t client) {
  if (ClientEntry* entry = client_entry(client)) ++entry->mismatches;
}

uint64_t Ledger::mismatches(uint32_t client) const {
  auto it = clients_.find(client);
  return it == clients_.end() ? 0 : it->second.mismatches;
}

uint64_t Ledger::total_executions(uint32_t client) const {
  auto it = clients_.find(client);
  if (it == clients_.end()) return 0;
  uint64_t total = 0;
  for (const auto& [index, chunk] : it->second.chunks)
    for (uint32_t i = 0; i < kChunkCalls; ++i)
      total += (*chunk)[i] == kSpill ? count(client, index * kChunkCalls + i) : (*chunk)[i];
  return total;
}

// Layout (all integers little-endian):
//   "RPCLEDG1" u64 unrecorded u32 client_count
//   per client: u32 id, u64 mismatches, u32 chunk_count,
//               per chunk: u32 chunk_index, 4096 count bytes
//   u32 overflow_count, per entry: u32 client, u32 seq, u32 count
std::string Ledger::serialize() const {
  ByteWriter out;
  out.bytes(kMagic);
  out.u64(unrecorded_);
  out.u32(static_cast<uint32_t>(clients_.size()));
  for (const auto& [id, entry] : clients_) {
    out.u32(id);
    out.u64(entry.mismatches);
    out.u32(static_cast<uint32_t>(entry.chunks.size()));
    for (const auto& [index, chunk] : entry.chunks) {
      out.u32(index);
      out.bytes({reinterpret_cast<const char*>(chunk->data()), chunk->size()});
    }
  }
  out.u32(static_cast<uint32_t>(overflow_.size()));
  for (const auto& [key, n] : overflow_) {
    out.u32(static_cast<uint32_t>(key >> 32));
    out.u32(static_cast<uint32_t>(key));
    out.u32(n);
  }
  return out.take();
}

// A damaged file must fail loudly rather than merge into plausible counts,
// so parse checks what serialize guarantees: each client and chunk once, and
// the 255 cells and the side table pointing at each other one to one.
Ledger Ledger::parse(std::string_view bytes) {
  ByteReader in(bytes);
  try {
    if (in.bytes(kMagic.size()) != kMagic) throw LedgerError("not an rpclab ledger (bad magic)");
    Ledger ledger(SIZE_MAX);
    ledger.unrecorded_ = in.u64();
    uint32_t clients = in.u32();
    for (uint32_t c = 0; c < clients; ++c) ledger.parse_client(in);
    uint32_t spills = in.u32();
    for (uint32_t s = 0; s < spills; ++s) ledger.parse_spill(in);
    if (ledger.spilled_cells() != ledger.overflow_.size())
      throw LedgerError("a count of 255 or more has no entry in the overflow table");
    if (!in.at_end()) throw LedgerError("trailing bytes after the ledger");
    return ledger;
  } catch (const TruncatedInput&) {
    throw LedgerError("ledger is truncated");
  }
}

void Ledger::parse_client(ByteReader& in) {
  uint32_t id = in.u32();
  auto [it, added] = clients_.try_emplace(id);
  if (!added) throw LedgerError("client " + std::to_string(id) + " appears twice");
  ClientEntry& entry = it->second;
  entry.mismatches = in.u64();
  uint32_t chunks = in.u32();
  for (uint32_t k = 0; k < chunks; ++k) {
    uint32_t index = in.u32();
    if (index > UINT32_MAX / kChunkCalls)
      throw LedgerError("client " + std::to_string(id) + ": chunk " + std::to_string(index) + " is out of range");
    std::string_view counts = in.bytes(kChunkCalls);
    auto& slot = entry.chunks[index];
    if (slot) throw LedgerError("client " + std::to_string(id) + ": chunk " + std::to_string(index) + " appears twice");
    slot = std::make_unique<Chunk>();
    std::copy(counts.begin(), counts.end(), slot->begin());
  }
}

void Ledger::parse_spill(ByteReader& in) {
  uint32_t client = in.u32(), seq = in.u32(), n = in.u32();
  std::string where = "overflow entry for client " + std::to_string(client) + " seq " + std::to_string(seq);
  const uint8_t* cell = find_cell(client, seq);
  if (!cell || *cell != kSpill)
    throw LedgerError(where + ": that count is not marked as overflowing");
  if (n < kSpill) throw LedgerError(where + ": " + std::to_string(n) + " is below 255");
  if (!overflow_.emplace(pair_key(client, seq), n).second) throw LedgerError(where + " appears twice");
}

size_t Ledger::spilled_cells() const {
  size_t cells = 0;
  for (const auto& [id, entry] : clients_)
    for (const auto& [index, chunk] : entry.chunks) cells += std::count(chunk->begin(), chunk->end(), kSpill);
  return cells;
}

void Ledger::write_file(const std::string& path) const { write_file_atomically(path, serialize()); }

Ledger Ledger::read_file(const std::string& path) {
  try {
    return parse(read_whole_file(path));
  } catch (const LedgerError& e) {
    throw LedgerError(path + ": " + e.what());
  }
}

}  // namespace rpclab
