// report.cpp: the events lab's report, one row per part (what it checked, what it measured and
// PASSED, FAILED or SKIPPED), in the shape every lab reports in.
#include "events.hpp"

#include <ostream>

namespace events {

void print_report(const std::vector<PartResult>& rows, const Setup& setup, lab::OutputFormat format,
                  std::ostream& out) {
  lab::Report report("events", lab::describe_device(*setup.env));
  report.set_row_name("part");
  report.set_context(
      std::to_string(setup.options->reps) + " round(s) per part, user events held " +
      std::to_string(setup.hold_ms) + " ms, " +
      (setup.hold_given
           ? std::string("--hold")
           : "4x the busy kernel's " + lab::format_seconds(setup.busy_s) + ", at least 30 ms"));
  nlohmann::json parts = nlohmann::json::object();
  for (const auto& r : rows) {
    lab::Result row;
    row.variant = r.part;
    row.size = lab::Size("n", std::int64_t(setup.n)).add("work", std::int64_t(setup.work));
    row.checks = r.checked;
    row.measured = r.measured;
    row.passed = r.status == Status::passed;
    if (r.status == Status::skipped) row.skip_reason = r.reason;
    row.failures = r.failures;
    row.notes = r.notes;
    row.checked = r.checked_elements;
    row.wrong = r.wrong_elements;
    report.add(std::move(row));
    parts[r.part] = r.details;
  }
  report.details() = {
      {"n", setup.n},
      {"work", setup.work},
      {"hold_ms", setup.hold_ms},
      {"hold_origin", setup.hold_given ? "command line" : "default"},
      {"busy_kernel_s", setup.busy_s},
      {"rounds", setup.options->reps},
      {"clock", "device profiling clock; timestamps in ns from the round's first QUEUED"},
      {"parts", parts}};
  report.print(format, out);
}

}  // namespace events
