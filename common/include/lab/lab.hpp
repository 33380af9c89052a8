// lab.hpp: everything a lab's main.cpp uses, and the single error boundary lab::run_main.
#pragma once

#include "lab/bandwidth.hpp"
#include "lab/buffers.hpp"
#include "lab/cli.hpp"
#include "lab/data.hpp"
#include "lab/device.hpp"
#include "lab/driver.hpp"
#include "lab/error.hpp"
#include "lab/kernel_check.hpp"
#include "lab/ndrange.hpp"
#include "lab/parts.hpp"
#include "lab/peak.hpp"
#include "lab/program.hpp"
#include "lab/progress.hpp"
#include "lab/report.hpp"
#include "lab/shape.hpp"
#include "lab/timing.hpp"
#include "lab/trace.hpp"
#include "lab/tuner.hpp"
#include "lab/variants.hpp"
#include "lab/verify.hpp"

#include <functional>
#include <string>

namespace lab {

// Runs a lab's body and turns every way it can end into an exit code and at most one line on
// stderr: 0 passed (or --help, --list), 1 verification failed, 2 usage error, 3 OpenCL or
// run-time error, 77 skipped. The body parses the command line with cli.parse() after adding
// its own options, and returns its exit code (Report::exit_code()).
int run_main(int argc, char** argv, const std::string& name, const std::string& description,
             const std::function<int(Cli&)>& body, LabKind kind = LabKind::runs_kernels);

}  // namespace lab
