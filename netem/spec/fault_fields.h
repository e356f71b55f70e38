// The steady fault fields, one row each: the key a profile uses, the key
// JSON uses, the member of FaultSpec it fills, its unit and range, its words
// in a summary, and which backends can apply it. The profile reader, JSON,
// validation, the summary and choose_backend all read this table, so a new
// steady field is one row here, its FaultSpec member, and its piece of the
// command that applies it (netem/faults/netem_qdisc.cc, nft_rules.cc).
//
// A row needs nothing but FaultSpec's members (what applies a field reads
// the member itself), so the table sits just above the values, and below
// the backends, which ask it what they cannot apply.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "netem/spec/fault_spec.h"
#include "netem/spec/backend_kind.h"

namespace rpclab::netem {

// How a value is read, checked and shown.
enum class FieldUnit {
  kPercent,       // 0..max, "5" or "5%" in a profile, "5%" in a summary
  kMilliseconds,  // 0..max (or 0..another field), "40ms" in a summary
  kTcRate,        // tc's rate syntax: "100mbit"
  kDirection,     // to-server | to-client | both
  kSeed,          // a whole number from 0 to 2^64-1
};

using FieldMember = std::variant<double FaultSpec::*, std::optional<double> FaultSpec::*, std::string FaultSpec::*,
                                 Direction FaultSpec::*, std::optional<uint64_t> FaultSpec::*>;

struct FaultField {
  const char* profile_key;   // in a profile, and the field's name in messages: "loss"
  const char* json_key;      // in cell and result records: "loss_pct"
  FieldMember member;
  FieldUnit unit;
  double max;                // numbers: 0..max
  const char* max_key;       // or 0..this field's value (profile key): jitter_ms <= delay_ms
  const char* summary_word;  // "loss" -> "loss 5%"; nullptr: a setting, not an impairment
  const char* needs;         // acts only when this field (profile key) acts: corr needs loss
  const char* what;          // its words in "cannot apply ..." messages
  unsigned backends;         // backend_bit()s of the backends that can apply it

  // Set, and what it needs set too: it changes what the link does.
  bool acts(const FaultSpec& s) const;
  std::optional<double> number(const FaultSpec& s) const;  // numbers only; nullopt when unset
  void set_from_text(FaultSpec& s, const std::string& value) const;       // a profile value; SpecError
  void set_from_json(FaultSpec& s, const nlohmann::json& value) const;    // SpecError, json exceptions
  nlohmann::json to_json(const FaultSpec& s) const;
  void check(const FaultSpec& s) const;                                   // its range; SpecError
  std::string summary(const FaultSpec& s) const;                          // "loss 5%"; "" unless it acts
};

const std::vector<FaultField>& fault_fields();
const FaultField* find_field_by_profile_key(const std::string& key);
const FaultField* find_field_by_json_key(const std::string& key);
std::string field_profile_keys();  // "loss, loss_corr, ..." for messages

// What the table says of a whole spec.
bool is_empty(const FaultSpec& s);         // no impairment and no event at all
bool has_link_faults(const FaultSpec& s);  // steady faults or link events: needs a fault backend
// The words ("delay", "reset") of what `s` asks that `kind` cannot apply;
// empty when it can apply all of it.
std::vector<std::string> unsupported_by(const FaultSpec& s, BackendKind kind);

}  // namespace rpclab::netem
