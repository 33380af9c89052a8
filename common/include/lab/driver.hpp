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
      const TunableOptions& tunables, const Tuning& defaults, const std::string& dtype, double work,
      const std::function<std::string(const typename Family<Size, Extra>::Row&)>& cannot = {})
      : cli_(cli), tunings_(tunables, family.tunables, defaults, family.name, std::cerr) {
    for (const auto& row : family.variants) {
      if (choice != "all" && choice != row.name) continue;
      const std::string why = cannot ? cannot(row) : "";
      if (!why.empty() && choice != "all") throw UsageError(why);
      if (!why.empty()) {
        cli_.out() << "  (skipped " << why << ")\n";
        continue;
      }
      rows_.push_back(&row);
    }
    for (const Row* row : rows_) {
      launches_.push_back(row->kernel_file.empty()
                              ? std::vector<Tuning>{}
                              : tunings_.add(env, cli.options(), row->name, row->kernel_file,
                                             row->tunables, dtype, work));
    }
  }

  const std::vector<const Row*>& rows() const { return rows_; }

  // Calls `f(row, tuning)` for every tuning a row's launches may use (with --tune, every
  // candidate), so the lab can size its guard zones for the furthest launch.
  template <typename F>
  void each_launch(F f) const {
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      for (const Tuning& t : launches_[i]) f(*rows_[i], t);
    }
  }

  // Each chosen row through `run(row, tuning, stage)`, which builds, launches and checks it and
  // returns its Result (or an empty std::optional for a row it leaves out). A host row (no kernel
  // file) runs once with no tuning. A row whose `fits` refuses the sizes is skipped with a line
  // when several rows run, and refused (UsageError) when it is the only one or in a trial.
  template <typename Run>
  std::vector<Result> run(const std::string& unit, const Size& size, Run run) {
    std::vector<Result> results;
    std::size_t tuned = 0;  // the row's index in tunings_ (host rows have none)
    std::ostringstream discard;
    for (const Row* row : rows_) {
      if (row->kernel_file.empty()) {
        const std::optional<Result> result(
            run(*row, Tuning(), Stage{cli_.options(), cli_.out(), std::cerr}));
        if (result) results.push_back(*result);
        continue;
      }
      const std::optional<Result> result = tunings_.run(
          tuned++, unit, cli_.options(),
          [&](const Tuning& t, const Options& options, bool trial) -> std::optional<Result> {
            const std::string why = row->fits ? row->fits(size, t) : "";
            if (!why.empty() && (trial || rows_.size() == 1)) throw UsageError(why);
            if (!why.empty()) {
              cli_.out() << "  (skipped " << why << ")\n";
              return std::nullopt;
            }
            discard.str("");
            return std::optional<Result>(run(*row, t,
                                             trial ? Stage{options, discard, discard, true}
                                                   : Stage{options, cli_.out(), std::cerr, false}));
          });
      if (result) results.push_back(*result);
    }
    return results;
  }

 private:
  const Cli& cli_;
  LabTuning tunings_;
  std::vector<const Row*> rows_;
  std::vector<std::vector<Tuning>> launches_;  // per row, as each_launch gives them
};

}  // namespace lab
