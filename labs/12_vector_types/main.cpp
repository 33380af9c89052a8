// vector_types: float, float2, float4, float8 and float16 copies timed against each other (and,
// on a CPU, against the host's memcpy), and the vector notation (literals, swizzles, .lo/.hi/
// .odd/.even, conversions, arithmetic) computed on the device and checked against the host.
#include "vector_types.hpp"

#include "lab/lab.hpp"

#include <iostream>

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "vector_types", "Vector widths and vector notation, checked and timed",
      [](lab::Cli& cli) {
        // 1. Options
        vector_types::Settings s;
        std::string widths = "1,2,4,8,16", operations;
        lab::Parts parts(cli, vector_types::parts());
        cli.add_size("-n,--size", s.n, "bandwidth: floats copied (default 2^24)");
        cli.add_text("--widths", widths,
                     "bandwidth: vector widths to copy with, a list of 1, 2, 4, 8, 16 (default "
                     "all five)");
        cli.add_choice("--stores", s.stores,
                       "bandwidth: plain stores, streaming (non-temporal) stores, both, or auto "
                       "(default: streaming on a CPU device, plain elsewhere)",
                       vector_types::store_names());
        std::string local = "auto";
        cli.add_text("--local", local,
                     "Work-group size, 0 to let the runtime choose, or auto (default: the "
                     "kernel's largest on a CPU device, 256 elsewhere)");
        cli.add_size("--items", s.items,
                     "operations: vectors each kernel processes (default 4099)");
        cli.add_text("--operations", operations,
                     "operations: kernels to run, a list of " + vector_types::operation_list(", ") +
                         " (default all)");
        cli.parse();
        parts.read_by("--size", {"bandwidth"})
            .read_by("--widths", {"bandwidth"})
            .read_by("--stores", {"bandwidth"})
            .read_by("--items", {"operations"})
            .read_by("--operations", {"operations"})
            .check(cli);
        const auto& opt = cli.options();
        if (local != "auto") s.local = lab::parse_size("--local", local, 0);
        s.widths = lab::parse_size_list("--widths", widths);
        vector_types::check_widths(s.widths);
        s.operations = vector_types::parse_operations(operations);

        // 2. Device
        lab::Env env = lab::open_device(opt, cli.out());
        if (parts.runs("bandwidth")) lab::check_memory(env, s.n * sizeof(float), 2, 4, "-n");
        // The widest operation reads and writes 16 floats per item.
        if (parts.runs("operations")) {
          lab::check_memory(env, s.items * 16 * sizeof(float), 2, 4, "--items");
        }

        // 3-7. Each demonstration: host data and reference, buffers, kernels, runs, checks
        vector_types::Context context{env, opt, s, cli.out(), std::cerr};
        lab::Report report("vector_types", lab::describe_device(env));
        if (parts.runs("bandwidth")) {
          vector_types::Bandwidth bandwidth = vector_types::copy_bandwidth(context);
          for (lab::Result& row : bandwidth.rows) report.add(std::move(row));
          report.details()["bandwidth"] = bandwidth.details;
        }
        if (parts.runs("operations")) {
          for (lab::Result& row : vector_types::operations(context)) report.add(std::move(row));
        }

        // 8. Report
        report.details()["n"] = s.n;
        report.details()["items"] = s.items;
        report.details()["local"] = s.local ? nlohmann::json(*s.local) : nlohmann::json("auto");
        report.print(cli.format(), std::cout);
        return report.exit_code();
      });
}
