// kernel_check.hpp: a student's kernel run once more on Oclgrind's simulator, which sees the data
// races and out-of-bounds accesses that a run on PoCL or a GPU may hide.
#pragma once

#include "lab/options.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace lab {

struct KernelCheck {
  enum class State {
    not_run,    // no student's kernel, or the lab itself runs on Oclgrind
    clean,      // Oclgrind ran the command and found nothing
    failed,     // Oclgrind found a problem, or the results were wrong there
    unchecked,  // Oclgrind is not installed, could not run this command, or was turned off
  };
  State state = State::not_run;
  std::size_t problems = 0;  // reports in Oclgrind's log
  std::string sentence;      // failed: what was found first, with the kernel line; unchecked: why
  std::string log;           // Oclgrind's full report, kept when it found something
  // failed with no report, by results that were wrong on the simulator: a row that fails on its
  // own says more than this does
  bool wrong_results = false;
};

// The verdict of the check this process made (Cli::parse makes it), or not_run.
const KernelCheck& kernel_check();

// Runs the lab's own command line again under Oclgrind (its data-race and API checks on, and its
// bounds checks, which are always on), at the same arguments with one launch, and records the
// verdict. Not its uninitialised-value checks: Oclgrind 21.10's plugin reports buffers filled by
// clEnqueueFillBuffer, USE_HOST_PTR inputs and one kernel's output read by the next as
// uninitialised, and stops with an internal error on some vector code, so a right kernel would
// fail (or go unchecked); the lab's sentinel shows an output nothing wrote instead. Called
// once the command line has parsed, when it names a student's kernel (--kernel-file,
// --kernel-dir). Not when the lab already runs on Oclgrind, when LAB_OCLGRIND_CHECK is "off"
// (the check then counts as unchecked) or "child" (this is the check's own run). `lab` is the
// lab's name as messages give it.
void check_kernel_under_oclgrind(const std::string& lab, int argc, char** argv,
                                 const Options& options);

// The first problem of an Oclgrind report (its log's lines) as one sentence: the kind, the
// work-items and the kernel lines involved (`file` names the kernel's file), and what usually
// causes it. The report's most telling problem comes first: a data race, then an access out of
// bounds, a barrier not every work-item reached, an uninitialised value. "" when there is none.
std::string oclgrind_sentence(const std::vector<std::string>& lines, const std::string& file,
                              std::size_t* problems = nullptr);

}  // namespace lab
