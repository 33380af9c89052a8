// variants.hpp: a family's variants declared once, as a table. Each row names its kernel file and
// kernel, plans its NDRange, lists the tunables it uses (named after the kernel's macros, passed
// as -D), derives any other -D values, and says what the sizes and tunables demand of a device.
// The run path, the limit checks, --variant, --help and the tuner all read the same table.
#pragma once

#include "lab/cli.hpp"
#include "lab/device.hpp"
#include "lab/error.hpp"
#include "lab/ndrange.hpp"
#include "lab/program.hpp"
#include "lab/report.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace lab {

// What a tunable makes larger, so a limit's sentence can name the tunable to change.
enum Grows : unsigned {
  kGrowsNothing = 0,
  kGrowsGroup = 1,    // work-items per work-group
  kGrowsLocal = 2,    // __local memory
  kGrowsPrivate = 4,  // private arrays per work-item
};

// One tunable of a family.
struct Tunable {
  std::string name;     // the kernel's macro ("TS"), or the name of a launch size ("LOCAL_1D")
  std::string meaning;  // one line for --help and reports
  std::string option;   // the option that sets it ("--ts"); several may share one ("--local")
  // Its place in the option's comma-separated list ("--regtile TSM,TSN,..."), or -1 when the
  // option takes one value that sets every tunable sharing it.
  int position = -1;
  std::int64_t min = 1;  // what the command line accepts
  std::int64_t max = 65536;
  std::vector<std::int64_t> candidates;  // what a tuner tries; empty: a capacity, not a knob
  std::vector<std::string> labels;       // a choice: labels[value] on the command line
  bool define = true;                    // passed as -DNAME=value (else it only shapes the launch)
  bool power_of_two = false;             // only powers of two work (a tree over the work-group)
  unsigned grows = kGrowsNothing;        // Grows flags

  // A neighbour in the same table: this one's bounds and flags under another name, option,
  // meaning and candidates (tile.like("ROWS", "--rows-per-item", "...", {1, 2, 4})).
  Tunable like(std::string other_name, std::string other_option, std::string other_meaning,
               std::vector<std::int64_t> other_candidates) const {
    Tunable t = *this;
    t.name = std::move(other_name);
    t.option = std::move(other_option);
    t.meaning = std::move(other_meaning);
    t.candidates = std::move(other_candidates);
    return t;
  }

  // Makes it a choice between `names` (STREAM: {"off", "on"}): the values 0 to names.size() - 1,
  // each a candidate, given on the command line by name.
  Tunable& choices(std::vector<std::string> names) {
    min = 0;
    max = static_cast<std::int64_t>(names.size()) - 1;
    candidates.clear();
    for (std::int64_t value = 0; value <= max; ++value) candidates.push_back(value);
    labels = std::move(names);
    return *this;
  }
};

// Values of a family's tunables by name, in the table's order, and where each came from.
class Tuning {
 public:
  // Sets `name`; its origin becomes `origin` unless it already came from a stronger one (a value
  // given on the command line stays given when a candidate varies the others).
  void set(const std::string& name, std::int64_t value, Origin origin = Origin::default_value);
  // A copy with `values` set: defaults.with({{"TSM", 64}, {"TSN", 64}}).
  Tuning with(std::initializer_list<std::pair<std::string, std::int64_t>> values) const;
  // The value of `name`; throws std::logic_error when the family has no such tunable.
  std::int64_t operator[](const std::string& name) const;
  // The same as a whole number, for sizes and counts (the table's bounds keep tunables >= 0).
  std::uint64_t whole(const std::string& name) const {
    return static_cast<std::uint64_t>((*this)[name]);
  }
  bool given(const std::string& name) const { return origin(name) == Origin::command_line; }
  Origin origin(const std::string& name) const;
  bool has(const std::string& name) const;
  // "TSM=128 TSN=128" for `names`, in their order (every tunable, as set, when empty).
  std::string text(const std::vector<std::string>& names = {}) const;
  // (name, value) for `names`, in their order.
  std::vector<std::pair<std::string, std::int64_t>> values(
      const std::vector<std::string>& names) const;
  // A report row's tunables: `names` in their order, each with its value and origin.
  std::vector<TunableValue> row(const std::vector<std::string>& names) const;

 private:
  struct Entry {
    std::string name;
    std::int64_t value = 0;
    Origin origin = Origin::default_value;
  };
  std::vector<Entry> entries_;
};

// --kernel-file replaces one variant's kernel, so `--variant all` with it is a usage error.
void require_one_variant_for_kernel_file(const Options& options, const std::string& variant);

// The command-line options of a family's tunables, added to a Cli before parse(): one option per
// distinct Tunable::option, plus --tunable NAME=VALUE[,NAME=VALUE] for any of them by name.
class TuningOptions {
 public:
  TuningOptions(Cli& cli, const std::vector<Tunable>& tunables);
  // Parses what was given (call after Cli::parse()); throws UsageError naming the option for a
  // value outside a tunable's bounds, a list that is too long, or an unknown name, ending as
  // CLI11's errors do with where to read the options ("(run 'LAB --help' for the options)").
  void check();
  // `defaults` with the values the command line gave.
  Tuning apply(Tuning defaults) const;

  // Each variant's name and the tunables it uses.
  using VariantTunables = std::vector<std::pair<std::string, std::vector<std::string>>>;
  // For each option that sets only tunables none of the `chosen` variants uses, a sentence
  // naming the variants of `all` that do use them (the value is ignored: harmless, never silent).
  std::vector<std::string> unused(const VariantTunables& chosen, const VariantTunables& all) const;

  // --tune: search the chosen variants' tunables and store the best in the tuning cache.
  bool tune() const { return tune_; }
  // --tune-budget SECONDS (default 60): when the search stops.
  double tune_budget() const { return static_cast<double>(budget_); }
  // --no-tuned: ignore the tuning cache (the defaults, and what the command line gives).
  bool use_cache() const { return !no_tuned_; }

 private:
  bool tune_ = false;
  bool no_tuned_ = false;
  std::uint64_t budget_ = 60;
  std::vector<Tunable> tunables_;
  std::map<std::string, std::string> texts_;  // option -> text as given
  std::string by_name_;                       // --tunable
  std::vector<std::pair<std::string, std::int64_t>> given_;
  std::vector<std::string> given_by_;  // for each of given_: "--local 32", "--tunable LOCAL=64"
  std::string program_;                // the lab's name, for the --help hint
  void check_given();
};

// Bytes of work one run does, the rate's numerator: flops for GFLOP/s, bytes for GB/s.
struct Work {
  double flops = 0;
  double bytes = 0;  // compulsory global-memory traffic
};

// The NDRange a variant launches; an empty local lets the runtime choose.
struct NDRangePlan {
  std::vector<std::uint64_t> global;
  std::vector<std::uint64_t> local;
};

// What a row carries beyond the shared columns: nothing, unless a family needs more (reduction's
// partial sums and chain of additions).
struct NoExtra {};

// One row of a family's table. Size is the family's problem size (matmul's M, N, K; a length).
template <typename Size, typename Extra = NoExtra>
struct Variant {
  std::string name;
  std::string summary;      // one line for --help
  std::string kernel_file;  // "" for a variant that runs on the host
  std::string kernel_name;
  std::vector<std::string> tunables;  // the family's tunables this variant's kernel and launch use
  std::function<NDRangePlan(const Size&, const Tuning&)> plan;
  // -D values the host derives from the sizes (none when empty), e.g. EXACT when every size is a
  // multiple of its tile.
  std::function<Defines(const Size&, const Tuning&)> derived;
  // The extents of the problem the padded launch covers (the guard zones' length follows).
  std::function<std::vector<std::uint64_t>(const Size&, const Tuning&)> covers;
  // "" or why these sizes and tunables cannot work whatever the device (K above a capacity).
  std::function<std::string(const Size&, const Tuning&)> fits;
  // Bytes of private arrays per work-item for an element size (PoCL's
  // CL_KERNEL_PRIVATE_MEM_SIZE does not count them).
  std::function<std::uint64_t(const Tuning&, std::size_t element)> private_bytes;
  // Bytes of the __local arrays the kernel declares for an element size, checked before building
  // (some compilers take minutes over a kernel too large for the device, then refuse it); the
  // compiled kernel's CL_KERNEL_LOCAL_MEM_SIZE is checked after, and a unit test keeps the two
  // equal.
  std::function<std::uint64_t(const Tuning&, std::size_t element)> local_bytes;
  // Bytes of the __local kernel arguments the host passes (none when empty).
  std::function<std::uint64_t(const Tuning&, std::size_t element)> dynamic_local_bytes;
  Extra extra;  // the family's own columns
};

// "" when `value` is a power of two; else "<why>, so NAME must be a power of two, and OPTION
// VALUE is not: choose BELOW or ABOVE (1, 2, 4, ... up to the device's limit)", for a row that
// halves or doubles its work-group (a tree) and says so in `why`.
std::string power_of_two_refusal(const std::string& why, const std::string& name,
                                 const std::string& option, std::uint64_t value);

// "--variant fastest: matmul has no such variant; choose sequential, naive, ... or all".
std::string unknown_variant(const std::string& family, const std::string& name,
                            const std::vector<std::string>& names);

// A family: its tunables, variants and work model.
template <typename Size, typename Extra = NoExtra>
struct Family {
  using Row = Variant<Size, Extra>;
  std::string name;
  std::vector<Tunable> tunables;
  std::vector<Variant<Size, Extra>> variants;
  std::function<Work(const Size&)> work;

  std::vector<std::string> names() const {
    std::vector<std::string> list;
    for (const auto& v : variants) list.push_back(v.name);
    return list;
  }
  // The kernel files `choice` (a row's name, or "all") builds: host rows have none, and with
  // `runs`, neither do rows it says are skipped (reduction's int-only rows under float).
  std::vector<std::string> kernel_files(const std::string& choice,
                                        const std::function<bool(const Row&)>& runs = {}) const {
    std::vector<std::string> files;
    for (const auto& v : variants) {
      if ((choice == "all" || choice == v.name) && !v.kernel_file.empty() && (!runs || runs(v))) {
        files.push_back(v.kernel_file);
      }
    }
    return files;
  }
  // The row named `name`; throws UsageError listing the table's names.
  const Variant<Size, Extra>& variant(const std::string& name) const {
    for (const auto& v : variants) {
      if (v.name == name) return v;
    }
    throw UsageError(unknown_variant(this->name, name, names()));
  }
};

// The kernel options against the variants `choice` runs, before anything runs: --kernel-file
// replaces one variant's kernel, and --kernel-dir must hold every kernel file they build.
template <typename Size, typename Extra>
void check_kernel_options(
    const Options& options, const Family<Size, Extra>& family, const std::string& choice,
    const std::function<bool(const typename Family<Size, Extra>::Row&)>& runs = {}) {
  require_one_variant_for_kernel_file(options, choice);
  require_kernel_files(options, family.kernel_files(choice, runs), "--variant");
}

// The tunables the command line sets against the variants `choice` runs: one that none of them
// uses is ignored, and a one-line note on `err` ("LAB: note: ...") says so.
template <typename Size, typename Extra>
void check_tunables_used(const TuningOptions& tunables, const Family<Size, Extra>& family,
                         const std::string& choice, std::ostream& err) {
  TuningOptions::VariantTunables chosen, all;
  for (const auto& v : family.variants) {
    all.emplace_back(v.name, v.tunables);
    if (choice == "all" || choice == v.name) chosen.emplace_back(v.name, v.tunables);
  }
  for (const auto& note : tunables.unused(chosen, all)) {
    err << family.name << ": note: " << note << "\n";
  }
}

// --variant's help: "naive (one element per work-item), ..., or all".
std::string variant_help(const std::vector<std::pair<std::string, std::string>>& rows);

template <typename Size, typename Extra>
std::string variant_help(const Family<Size, Extra>& family) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& v : family.variants) rows.emplace_back(v.name, v.summary);
  return variant_help(rows);
}

// Adds --variant: the family's names or all, with variant_help and `more` after it.
template <typename Size, typename Extra>
void add_variant_option(Cli& cli, const Family<Size, Extra>& family, std::string& value,
                        const std::string& more = "") {
  std::vector<std::string> choices = family.names();
  choices.push_back("all");
  cli.add_choice("--variant", value, variant_help(family) + more, choices);
}

// The -D defines of the tunables in `names` that are kernel macros, each with its option.
Defines tunable_defines(const std::vector<Tunable>& tunables, const std::vector<std::string>& names,
                        const Tuning& tuning);

// "choose a smaller TS (--ts)" for the tunables in `names` that grow `what`, or `fallback`.
std::string limit_advice(const std::vector<Tunable>& tunables,
                         const std::vector<std::string>& names, unsigned what,
                         const std::string& fallback);

}  // namespace lab
