// How a dependability cell is named in every view: its row (the transport
// and the settings that make it, row_variant), what its calls went through
// (condition_words), both (cell_name); whether it had faults or timed
// events; and the price of its zero (told_failed_share). The tables
// (dependability_report.h), the plots and the verdict (verdict.h) use them.
#pragma once

#include <string>

#include "harness/record/cell_record.h"

namespace rpclab::harness {

// "sunrpc-udp retry 20 ms", "grpc": the transport and the settings that make
// a row, without the load and fault axes that make the columns.
std::string row_variant(const CellRecord& record, bool with_clients = true);

bool has_faults(const CellRecord& record);  // steady faults or timed events
bool has_events(const CellRecord& record);  // timed events (the failures table's cells)

// "96%": the share of a cell's calls that ran although the client was told
// they failed (ClassCounts::ran_but_told_failed), the price of its zero;
// "" when none did.
std::string told_failed_share(const CellRecord& record);

// "dup 5% both", "load 4", "server-crash", "no faults": what a cell's
// calls went through, for a sentence that names the cell.
std::string condition_words(const CellRecord& record);

// "sunrpc-udp retry 20 ms +drc under dup 5% both": a cell named by its row
// and its condition.
std::string cell_name(const CellRecord& record);

}  // namespace rpclab::harness
