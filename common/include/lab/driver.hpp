// driver.hpp: the run path of a variant lab, written once. The lab gives its table, its sizes and
// one function that builds, launches and checks one row with one tuning; the driver chooses the
// rows (--variant), gives each its tuning (the defaults, the tuning cache, the command line, or
// with --tune a search through the same function), skips a row the sizes cannot fit when several
// run, and collects the result rows in table order.
#pragma once

#include "lab/cli.hpp"
#include "lab/device.hpp"
#include "lab/report.hpp"
#include "lab/tuner.hpp"
#include "lab/variants.hpp"

#include <functional>
#include <iostream>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace lab {

// Where one run of a row prints, and with which options. A tuner's trial is quiet (its lines are
// discarded) and makes 1 warm-up and 3 timed runs.
struct Stage {
  const Options& options;
  std::ostream& out;  // the lab's lines
  std::ostream& err;  // mismatch lines and guard-zone reports
  bool trial = false;
};

template <typename Size, typename Extra>
class VariantDriver {
 public:
  using Row = Variant<Size, Extra>;

  // The rows `choice` names (a row, or all), each with its tuning resolved. `work` is the
  // problem's size in the family's units (elements, M*N*K), for the cache's key. `cannot` says
  // why a row cannot run in this configuration at all ("" when it can, e.g. an int-only row
  // under float): chosen alone it is a UsageError, under all a "(skipped ...)" line.
  VariantDriver(
      const Cli& cli, const Env& env, const Family<Size, Extra>& family, const std::string& choice,
      const TuningOptions& tuning_options, const Tuning& defaults, const std::string& dtype,
      double work,
      const std::function<std::string(const typename Family<Size, Extra>::Row&)>& cannot = {})
      : cli_(cli), tuner_(tuning_options, family.tunables, defaults, family.name) {
    for (const auto& row : family.variants) {
      if (choice != "all" && choice != row.name) continue;
      const std::string why = cannot ? cannot(row) : "";
      if (!why.empty() && choice != "all") throw UsageError(why);
      if (!why.empty()) {
        cli_.out() << "  (skipped " << why << ")\n";
        continue;
      }
      rows_.push_back(&row);
      tunings_.push_back(row.kernel_file.empty()
                             ? RowTuning{}
                             : tuner_.resolve(env, cli.options(), row.name, row.kernel_file,
                                              row.tunables, dtype, work));
    }
  }

  const std::vector<const Row*>& rows() const { return rows_; }

  // Calls `f(row, tuning)` for every tuning a row's launches may use (with --tune, every
  // candidate), so the lab can size its guard zones for the furthest launch.
  template <typename F>
  void each_launch(F f) const {
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      for (const Tuning& t : tunings_[i].launches) f(*rows_[i], t);
    }
  }

  // Each chosen row through `run(row, tuning, stage)`, which builds, launches and checks it and
  // returns its Result (or an empty std::optional for a row it leaves out). A host row (no kernel
  // file) runs once with no tuning. With --tune, a row's candidates run first as quiet trials
  // (1 warm-up, 3 timed runs) and the best is kept. A row whose `fits` refuses the sizes is
  // skipped with a line when several rows run, and refused (UsageError) when it is the only one,
  // in a trial, or when every chosen row refuses (the first refusal says why).
  template <typename Run>
  std::vector<Result> run(const std::string& unit, const Size& size, Run run) {
    std::vector<Result> results;
    std::string refused;  // the first row's reason, when `fits` refuses it
    const Options& options = cli_.options();
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      const Row& row = *rows_[i];
      const Stage stage{options, cli_.out(), std::cerr, false};
      if (row.kernel_file.empty()) {
        const std::optional<Result> result(run(row, Tuning(), stage));
        if (result) results.push_back(*result);
        continue;
      }
      Tuning tuning = tunings_[i].tuning;
      std::string source = tunings_[i].source;
      if (tuner_.searching()) {
        tuning = tuner_.search(
            tunings_[i], unit,
            [&](const Tuning& candidate) { return trial(row, size, candidate, run); }, std::cerr);
        source = "tuned";
      } else {
        notes() << tunings_[i].warnings;
      }
      const std::string why = row.fits ? row.fits(size, tuning) : "";
      if (!why.empty() && rows_.size() == 1) throw UsageError(why);
      if (!why.empty()) {
        cli_.out() << "  (skipped " << why << ")\n";
        if (refused.empty()) refused = why;
        continue;
      }
      std::optional<Result> result(run(row, tuning, stage));
      if (!result) continue;
      result->tuning = source;
      results.push_back(*result);
    }
    if (results.empty() && !refused.empty()) throw UsageError(refused);
    return results;
  }

 private:
  // One candidate of --tune through the lab's run, quietly, with 1 warm-up and 3 timed runs.
  template <typename Run>
  detail::TrialOutcome trial(const Row& row, const Size& size, const Tuning& candidate, Run& run) {
    const std::string why = row.fits ? row.fits(size, candidate) : "";
    if (!why.empty()) throw UsageError(why);
    Options quick = cli_.options();
    quick.warmup = 1;
    quick.reps = 3;
    quick.verbose = false;
    std::ostringstream discard;
    const std::optional<Result> result(run(row, candidate, Stage{quick, discard, discard, true}));
    return result ? detail::TrialOutcome{result->passed, result->rate} : detail::TrialOutcome{};
  }

  const Cli& cli_;
  Tuner tuner_;
  std::vector<const Row*> rows_;
  std::vector<RowTuning> tunings_;  // per row, in the same order
};

}  // namespace lab
