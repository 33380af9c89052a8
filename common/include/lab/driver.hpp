// driver.hpp: the run path of a variant lab, written once. The lab gives its table, its sizes and
// one function that builds, launches and checks one row with one tuning; the driver chooses the
// rows (--variant), gives each its tuning (the defaults, the recorded settings, the tuning cache,
// the command line, or with --tune a search through the same function), skips a row the sizes
// cannot fit when several run, and collects the result rows in table order. prepare_kernel,
// which that function calls first, turns the row's table cells into a built kernel checked
// against the device.
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
      // On stderr while it lasts, when long (lab/progress.hpp): "matmul: naive (2 of 8), run 3
      // of 10, 14 s". Not under --tune, whose search prints each candidate on stderr itself.
      std::optional<Progress> progress;
      if (!tuner_.searching()) {
        progress.emplace(cli_.name() + ": " + row.name + " (" + std::to_string(i + 1) + " of " +
                         std::to_string(rows_.size()) + ")");
      }
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
  // One candidate of --tune through the lab's run, quietly, with 1 warm-up and 3 timed runs, back
  // to back: the search ranks rates, not shares of a yardstick, so turns would only slow it.
  template <typename Run>
  detail::TrialOutcome trial(const Row& row, const Size& size, const Tuning& candidate, Run& run) {
    const std::string why = row.fits ? row.fits(size, candidate) : "";
    if (!why.empty()) throw UsageError(why);
    Options quick = cli_.options();
    quick.warmup = 1;
    quick.reps = 3;
    quick.verbose = false;
    std::ostringstream discard;
    const OutOfTurns apart;
    const std::optional<Result> result(run(row, candidate, Stage{quick, discard, discard, true}));
    return result ? detail::TrialOutcome{result->passed, result->rate} : detail::TrialOutcome{};
  }

  const Cli& cli_;
  Tuner tuner_;
  std::vector<const Row*> rows_;
  std::vector<RowTuning> tunings_;  // per row, in the same order
};

}  // namespace lab
