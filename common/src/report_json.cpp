// report_json.cpp: --json, the report in the result schema's shape (docs/result.schema.json):
// one object per row, the lab's details, and the grading section (wrong elements, kernel files
// with their SHA-256, and what Oclgrind found).
#include "report_internal.hpp"

#include "lab/kernel_check.hpp"
#include "lab/program.hpp"

namespace lab {
namespace {

// The time statistics as the schema names them.
nlohmann::json stats_json(const Stats& stats) {
  return {{"min", stats.min},
          {"median", stats.median},
          {"max", stats.max},
          {"mean", stats.mean},
          {"runs", stats.count}};
}

const char* check_state_name(KernelCheck::State state) {
  switch (state) {
    case KernelCheck::State::clean:
      return "clean";
    case KernelCheck::State::failed:
      return "failed";
    case KernelCheck::State::unchecked:
      return "unchecked";
    default:
      return "not_run";
  }
}

}  // namespace

nlohmann::json Report::grading() const {
  std::size_t checked = 0, wrong = 0, out_of_bounds = 0;
  nlohmann::json first = nlohmann::json::array();
  for (const auto& r : results_) {
    checked += r.checked;
    wrong += r.wrong;
    out_of_bounds += r.out_of_bounds;
    for (const auto& m : r.mismatches) {
      nlohmann::json entry = {
          {"variant", r.variant}, {"index", m.index}, {"got", m.got}, {"expected", m.want}};
      if (m.allowed >= 0) entry["allowed"] = m.allowed;
      if (first.size() < kMaxMismatchLines) first.push_back(entry);
    }
  }
  nlohmann::json files = nlohmann::json::array();
  for (const auto& file : built_kernel_files()) {
    files.push_back({{"path", file.path}, {"sha256", file.sha256}, {"suite", !file.student}});
  }
  const KernelCheck& check = kernel_check();
  nlohmann::json oclgrind = {{"state", check_state_name(check.state)}};
  if (check.state == KernelCheck::State::failed) oclgrind["problems"] = check.problems;
  if (!check.sentence.empty()) oclgrind["sentence"] = check.sentence;
  if (!check.log.empty()) oclgrind["log"] = check.log;
  return {{"passed", all_passed()},    {"checked_elements", checked},
          {"wrong_elements", wrong},   {"out_of_bounds_writes", out_of_bounds},
          {"first_mismatches", first}, {"kernel_files", files},
          {"oclgrind", oclgrind}};
}

nlohmann::json Report::json() const {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : results_) {
    nlohmann::json row = {{"variant", r.variant},
                          {"size", r.size.json()},
                          {"size_label", r.size.text()},
                          {"status", r.status()},
                          {"notes", r.notes}};
    if (r.time) {
      row["time_s"] = stats_json(*r.time);
      row["time_s"]["warmups"] = r.warmup;
      if (r.warmup > 0) row["time_s"]["first_warmup"] = r.first_warmup;
      row["time_s"]["clock"] = r.clock.empty() ? "event" : r.clock;
    }
    if (r.end_to_end) row["end_to_end_s"] = stats_json(*r.end_to_end);
    if (!r.unit.empty()) row["rate"] = {{"value", r.rate}, {"unit", r.unit}};
    if (r.elements_per_s) row["elements_per_s"] = *r.elements_per_s * 1e9;
    if (r.reference) {
      row["reference"] = {{"name", r.reference->name},
                          {"value", r.reference->value},
                          {"unit", r.reference->unit},
                          {"share", *r.percent() / 100.0}};
      if (r.reference->rounds > 0) {
        row["reference"]["rounds"] = r.reference->rounds;
        row["reference"]["share_min"] = r.reference->share_min;
        row["reference"]["share_max"] = r.reference->share_max;
      }
    }
    if (r.speedup) row["speedup"] = *r.speedup;
    if (r.max_abs_error) row["max_abs_error"] = *r.max_abs_error;
    if (!r.tunables.empty()) {
      row["tunables"] = nlohmann::json::object();
      for (const auto& t : r.tunables) {
        row["tunables"][t.name] = {{"value", t.value}, {"origin", origin_name(t.origin)}};
      }
      if (!r.tuning.empty()) row["tuning"] = r.tuning;
    }
    if (!r.checks.empty()) row["checks"] = r.checks;
    if (!r.measured.empty()) row["measured"] = r.measured;
    if (!r.failures.empty()) row["failures"] = r.failures;
    if (!r.skip_reason.empty()) row["skip_reason"] = r.skip_reason;
    rows.push_back(row);
  }
  return {{"schema_version", kResultSchemaVersion},
          {"lab", lab_},
          {"device", device_},
          {"results", rows},
          {"details", details_},
          {"grading", grading()},
          {"passed", all_passed()}};
}

}  // namespace lab
