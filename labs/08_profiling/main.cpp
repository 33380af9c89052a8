// profiling: where the time of one upload-compute-download goes, from the four timestamps OpenCL
// records for every command (queued, submitted, started, ended), against the host's wall clock.
#include "pipeline.hpp"

#include "lab/lab.hpp"

#include <iostream>

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "profiling", "The four timestamps of every command", [](lab::Cli& cli) {
        // 1. Options
        profiling::Settings s;
        cli.add_size("-n,--size", s.n, "Elements of a, b and c (default 2^22)");
        cli.add_size("--local", s.local, "Work-group size (default 256; 0: the runtime chooses)",
                     0);
        cli.add_flag("--blocking", s.blocking,
                     "Blocking writes and read: the host waits inside each enqueue call");
        cli.parse();
        const auto& opt = cli.options();

        // 2. Device: the queue (open_device's) records profiling information
        lab::Env env = lab::open_device(opt, cli.out());
        lab::check_memory(env, s.n * sizeof(float), 3, 4, "-n");
        const cl_ulong resolution = env.device.getInfo<CL_DEVICE_PROFILING_TIMER_RESOLUTION>();
        cli.out() << "Profiling timer resolution: " << resolution << " ns\n";

        // 3. Host data and reference
        const profiling::Inputs in = profiling::make_inputs(s.n, opt.seed);

        // 4-5. Buffers, program and kernel
        profiling::Pipeline pipeline(env, opt, s, cli.out());

        // 6. Run: warm-up pipelines, then timed ones; each is write a, write b, kernel, read c,
        //    then clFinish, with the host clock around the whole
        const profiling::Runs runs = profiling::run_pipelines(pipeline, in, opt);

        // 7. Verify: c of every timed run, and what the timestamps promise
        lab::Report report("profiling", lab::describe_device(env));
        profiling::print_last_run(runs.timed.back(), cli.out());
        profiling::report_runs(runs, s, resolution, report, cli.out(), std::cerr);

        // 8. Report
        report.details()["n"] = s.n;
        report.details()["timer_resolution_ns"] = resolution;
        report.details()["blocking"] = s.blocking;
        report.print(cli.format(), std::cout);
        return report.exit_code();
      });
}
