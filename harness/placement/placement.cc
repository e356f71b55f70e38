#include "harness/placement/placement.h"

#include "common/atomic_file.h"
#include "netem/config/fault_config.h"
#include "netem/config/backend_choice.h"

namespace rpclab::harness {

void Link::apply(const CellConfig& cell, const CellFiles& files) {
  if (!backend_) return;
  backend_->apply(cell.faults);
  write_file_atomically(files.path("link-before.txt"), backend_->state());
  before_ = backend_->read_counters();
}

nlohmann::json Link::measured(const CellConfig& cell, const CellFiles& files) {
  nlohmann::json f = {{"backend", netem::backend_name(choice_.kind)},
                      {"backend_reason", choice_.reason},
                      {"spec", nlohmann::json(cell.faults)},
                      {"loss_pct", cell.faults.loss_pct},
                      {"dup_pct", cell.faults.dup_pct},
                      {"measured_loss_pct", nullptr},
                      {"measured_dup_pct", nullptr}};
  if (!backend_) return f;
  netem::LinkCounters after = backend_->read_counters();
  write_file_atomically(files.path("link-after.txt"), backend_->state());
  netem::MeasuredFaults m = netem::measure(before_, after, cell.faults.direction);
  f["measured_loss_pct"] = m.loss_pct;
  f["measured_dup_pct"] = m.dup_pct;
  f["packets_offered"] = m.offered;
  f["counters_before"] = before_.to_json();
  f["counters_after"] = after.to_json();
  f["seed"] = cell.faults.seed ? nlohmann::json(*cell.faults.seed) : nlohmann::json(nullptr);
  f["seed_applied"] = backend_->seed_applied();
  return f;
}

netem::FaultBackend* Link::events_backend() const { return dynamic_cast<netem::FaultBackend*>(backend_.get()); }

}  // namespace rpclab::harness
