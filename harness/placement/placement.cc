#include "harness/placement/placement.h"

#include "common/atomic_file.h"
#include "netem/config/fault_config.h"
#include "netem/config/backend_choice.h"

namespace rpclab::harness {

void Link::apply(const netem::FaultSpec& faults, const CellFiles& files) {
  if (!backend_) return;
  backend_->apply(faults);
  write_file_atomically(files.path("link-before.txt"), backend_->state());
  before_ = backend_->read_counters();
}

TrialFaults Link::measured(const netem::FaultSpec& faults, const CellFiles& files) {
  TrialFaults f;
  f.backend = netem::backend_name(choice_.kind);
  f.backend_reason = choice_.reason;
  f.spec = faults;
  f.loss_pct = faults.loss_pct;
  f.dup_pct = faults.dup_pct;
  f.measured_loss_pct = f.measured_dup_pct = MaybeNull<double>::null();
  if (!backend_) return f;
  netem::LinkCounters after = backend_->read_counters();
  write_file_atomically(files.path("link-after.txt"), backend_->state());
  netem::MeasuredFaults m = netem::measure(before_, after, faults.direction);
  f.measured_loss_pct = m.loss_pct;
  f.measured_dup_pct = m.dup_pct;
  f.packets_offered = m.offered;
  f.counters_before = before_.to_json();
  f.counters_after = after.to_json();
  f.seed = MaybeNull<uint64_t>::of(faults.seed);
  f.seed_applied = backend_->seed_applied();
  return f;
}

netem::FaultBackend* Link::events_backend() const { return dynamic_cast<netem::FaultBackend*>(backend_.get()); }

}  // namespace rpclab::harness
