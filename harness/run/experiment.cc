#include "harness/run/experiment.h"

#include <algorithm>
#include <iterator>

#include "transport/adapter_table.h"

namespace rpclab::harness {

std::string render_report(const std::vector<ReportTable>& tables, const std::vector<CellRecord>& records,
                          const ReportOptions& options) {
  std::vector<const ReportTable*> chosen;
  if (!options.tables.empty()) {
    for (const std::string& id : options.tables)
      for (const ReportTable& t : tables)
        if (t.id == id) chosen.push_back(&t);
  } else {
    for (const ReportTable& t : tables)
      if ((options.brief ? t.on_terminal : t.in_file) && (options.headline || !t.headline)) chosen.push_back(&t);
  }
  std::string out;
  for (const ReportTable* t : chosen) {
    std::string part = t->render(records, options);
    if (!part.empty()) out += (out.empty() ? "" : "\n") + part;
  }
  return out;
}

std::string Experiment::report(const std::vector<CellRecord>& records, const ReportOptions& options) const {
  return render_report(tables, records, options);
}

std::string Experiment::headline(const std::vector<CellRecord>& records, const ReportOptions& options) const {
  std::vector<ReportTable> chosen;
  std::copy_if(tables.begin(), tables.end(), std::back_inserter(chosen), [](const ReportTable& t) { return t.headline; });
  ReportOptions all = options;
  all.brief = false;
  all.tables.clear();
  return render_report(chosen, records, all);
}

std::vector<std::string> Experiment::table_ids() const {
  std::vector<std::string> ids;
  for (const ReportTable& t : tables) ids.push_back(t.id);
  return ids;
}

void add_adapters_left_out(Plan& plan, bool preset_transports) {
  if (!preset_transports) return;
  std::vector<std::string> left_out = adapters_left_out();
  if (left_out.empty()) return;
  plan.notes.insert(plan.notes.end(), left_out.begin(), left_out.end());
  plan.metadata.adapters_skipped = left_out;
}

}  // namespace rpclab::harness
