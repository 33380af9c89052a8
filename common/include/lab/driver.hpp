// driver.hpp: what a variant lab needs around its own loop over variants. VariantDriver chooses
// the rows (--variant) and gives each its tuning (the defaults, the recorded settings, the tuning
// cache, the command line, or with --tune a search that tries each candidate through the lab's
// run of the row), and skips a row the sizes cannot fit when several run; the lab builds,
// launches and checks each row itself. prepare_kernel turns a row's table cells into a built
// kernel checked against the device.
#pragma once

#include "lab/cli.hpp"
#include "lab/device.hpp"
#include "lab/ndrange.hpp"
#include "lab/program.hpp"
#include "lab/progress.hpp"
#include "lab/report.hpp"
#include "lab/timing.hpp"
#include "lab/tuner.hpp"
#include "lab/variants.hpp"

#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace lab {

// A variant's kernel, built and checked against the device before any launch.
struct PreparedKernel {
  Program program;
  cl::Kernel kernel;
  NDRangePlan range;
  std::string tuning;  // "TS=16", the variant's tunables
};

// What prepare_kernel needs from a row, with its functions already applied.
struct KernelPlan {
  std::string family;
  std::string kernel_file;
  KernelSignature signature;
  Defines defines;
  NDRangePlan range;
  std::uint64_t declared_local_bytes = 0;  // the row's count of the kernel's __local arrays
  LaunchLimits limits;
  std::string tuning;
  bool main_file = true;  // false: a kernel the lab runs besides the chosen variant's own
};

// The shared launch path: refuses a work-group above the device's limit and declared __local
// arrays above its local memory before building (with the tunable to change), builds the kernel
// with the defines, checks its name and arguments, and checks the launch against the compiled
// kernel's limits (lab::check_ndrange).
PreparedKernel prepare_kernel(Env& env, const Options& options, std::ostream& out,
                              const KernelPlan& plan);

// prepare_kernel's checks before the build, for a lab that builds its kernel itself: a
// work-group above the device's limit, or declared __local arrays above its local memory, throw
// RuntimeError with the tunable to change.
void check_before_build(const Env& env, const KernelPlan& plan);

// A family's row as a KernelPlan: `fixed` are the family's own defines (the element type), and
// `signature` the arguments the family passes (its name is the row's kernel_name). Throws
// UsageError when the row's `fits` refuses the size. A kernel the lab runs besides the chosen
// variant's own (the transposes around coalescing's scan) passes main_file false: --kernel-file
// does not replace it.
template <typename Size, typename Extra>
KernelPlan plan_kernel(const Family<Size, Extra>& family, const Variant<Size, Extra>& variant,
                       const Size& size, const Tuning& tuning, Defines fixed,
                       KernelSignature signature, std::size_t element, bool main_file = true) {
  if (variant.fits) {
    const std::string why = variant.fits(size, tuning);
    if (!why.empty()) throw UsageError(why);
  }
  KernelPlan plan;
  plan.family = family.name;
  plan.kernel_file = variant.kernel_file;
  signature.name = variant.kernel_name;
  plan.signature = std::move(signature);
  plan.defines = std::move(fixed);
  for (auto& define : tunable_defines(family.tunables, variant.tunables, tuning)) {
    plan.defines.push_back(std::move(define));
  }
  if (variant.derived) {
    for (auto& define : variant.derived(size, tuning)) plan.defines.push_back(std::move(define));
  }
  plan.range = variant.plan(size, tuning);
  plan.limits.private_bytes = variant.private_bytes ? variant.private_bytes(tuning, element) : 0;
  plan.declared_local_bytes = variant.local_bytes ? variant.local_bytes(tuning, element) : 0;
  plan.limits.dynamic_local_bytes =
      variant.dynamic_local_bytes ? variant.dynamic_local_bytes(tuning, element) : 0;
  plan.limits.group_advice =
      limit_advice(family.tunables, variant.tunables, kGrowsGroup, "choose a smaller local size");
  plan.limits.local_advice =
      limit_advice(family.tunables, variant.tunables, kGrowsLocal, "choose smaller tiles");
  plan.limits.private_advice =
      limit_advice(family.tunables, variant.tunables, kGrowsPrivate | kGrowsGroup,
                   "choose a smaller local size");
  plan.tuning = tuning.text(variant.tunables);
  plan.limits.tuning = plan.tuning;
  plan.main_file = main_file;
  return plan;
}

// prepare_kernel from a family's row (plan_kernel's arguments).
template <typename Size, typename Extra>
PreparedKernel prepare_kernel(Env& env, const Options& options, std::ostream& out,
                              const Family<Size, Extra>& family,
                              const Variant<Size, Extra>& variant, const Size& size,
                              const Tuning& tuning, Defines fixed, KernelSignature signature,
                              std::size_t element, bool main_file = true) {
  return prepare_kernel(env, options, out,
                        plan_kernel(family, variant, size, tuning, std::move(fixed),
                                    std::move(signature), element, main_file));
}

// Where one run of a row prints, and with which options. A tuner's trial is quiet (its lines are
// discarded), makes 1 warm-up and 3 timed runs, and runs out of turns with any yardstick.
struct Stage {
  const Options& options;
  std::ostream& out;  // the lab's lines
  std::ostream& err;  // mismatch lines and guard-zone reports
  bool trial = false;
};

// A row's tuning, and where it came from ("default", "cache", "command line", "tuned"; the
// Result's `tuning`).
struct ChosenTuning {
  Tuning tuning;
  std::string source;
};

// The rows --variant chose, each with its tuning. The lab loops over rows() itself and, for each,
// asks choose() for the tuning to run it with.
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

  // The chosen rows, in the table's order: the lab loops over them itself.
  const std::vector<const Row*>& rows() const { return rows_; }

  // Calls `f(row, tuning)` for every tuning a row's launches may use (with --tune, every
  // candidate), so the lab can size its guard zones for the furthest launch.
  template <typename F>
  void each_launch(F f) const {
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      for (const Tuning& t : tunings_[i].launches) f(*rows_[i], t);
    }
  }

  // Where a chosen row's run prints, with the lab's options.
  Stage stage() const { return Stage{cli_.options(), cli_.out(), std::cerr, false}; }

  // While row `i` runs long, a line on stderr (lab/progress.hpp): "matmul: naive (2 of 8), run 3
  // of 10, 14 s". None under --tune, whose search prints each candidate on stderr itself.
  std::unique_ptr<Progress> progress(std::size_t i) const {
    if (tuner_.searching()) return nullptr;
    return std::make_unique<Progress>(cli_.name() + ": " + rows_[i]->name + " (" +
                                      std::to_string(i + 1) + " of " +
                                      std::to_string(rows_.size()) + ")");
  }

  // Row `i`'s tuning for `size`, and where it came from (the defaults, the recorded settings,
  // the cache, the command line). With --tune, each candidate is first tried through
  // `try_candidate(tuning, stage)`, the lab's own run of the row, quietly (1 warm-up, 3 timed
  // runs, out of turns with any yardstick), and the fastest that passes is chosen; `unit` names
  // its rate. A host row (no kernel file) gets an empty tuning. Empty when the row's `fits`
  // refuses the sizes while other rows run (a "(skipped ...)" line says why); a UsageError when
  // it is the only row.
  template <typename Try>
  std::optional<ChosenTuning> choose(std::size_t i, const std::string& unit, const Size& size,
                                     Try try_candidate) {
    const Row& row = *rows_[i];
    if (row.kernel_file.empty()) return ChosenTuning{};
    ChosenTuning chosen{tunings_[i].tuning, tunings_[i].source};
    if (tuner_.searching()) {
      chosen.tuning = tuner_.search(
          tunings_[i], unit,
          [&](const Tuning& candidate) { return trial(row, size, candidate, try_candidate); },
          std::cerr);
      chosen.source = "tuned";
    } else {
      notes() << tunings_[i].warnings;
    }
    const std::string why = row.fits ? row.fits(size, chosen.tuning) : "";
    if (why.empty()) return chosen;
    if (rows_.size() == 1) throw UsageError(why);
    cli_.out() << "  (skipped " << why << ")\n";
    if (refused_.empty()) refused_ = why;
    return std::nullopt;
  }

  // After the loop: when every chosen row was refused its sizes, the first refusal as a
  // UsageError (a run that measured nothing is a usage error, not an empty table).
  void check_any_ran(const std::vector<Result>& results) const {
    if (results.empty() && !refused_.empty()) throw UsageError(refused_);
  }

 private:
  static detail::TrialOutcome outcome(const Result& result) {
    return detail::TrialOutcome{result.passed, result.rate};
  }
  static detail::TrialOutcome outcome(const std::optional<Result>& result) {
    return result ? outcome(*result) : detail::TrialOutcome{};
  }

  // One candidate of --tune through the lab's run, quietly, with 1 warm-up and 3 timed runs, back
  // to back: the search ranks rates, not shares of a yardstick, so turns would only slow it.
  template <typename Try>
  detail::TrialOutcome trial(const Row& row, const Size& size, const Tuning& candidate,
                             Try& try_candidate) {
    const std::string why = row.fits ? row.fits(size, candidate) : "";
    if (!why.empty()) throw UsageError(why);
    Options quick = cli_.options();
    quick.warmup = 1;
    quick.reps = 3;
    quick.verbose = false;
    std::ostringstream discard;
    const OutOfTurns apart;
    return outcome(try_candidate(candidate, Stage{quick, discard, discard, true}));
  }

  const Cli& cli_;
  Tuner tuner_;
  std::vector<const Row*> rows_;
  std::vector<RowTuning> tunings_;  // per row, in the same order
  std::string refused_;             // the first row whose `fits` refused the sizes
};

}  // namespace lab
