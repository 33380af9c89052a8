// buffer_flags: what COPY_HOST_PTR, USE_HOST_PTR, ALLOC_HOST_PTR, plain writes and map/unmap let
// the host see, shown with checks, and what each costs end to end on a matmul.
#include "flags.hpp"

#include "lab/lab.hpp"

#include <iostream>

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "buffer_flags", "What each buffer flag lets the host see, and what it costs",
      [](lab::Cli& cli) {
        // 1. Options
        flags::Settings s;
        std::string modes;
        cli.add_size("-n,--size", s.n,
                     "Matmul side N (default 256); the demonstrations use N*N elements");
        lab::Parts parts(cli, flags::parts(), "Which demonstration, or the timing");
        cli.add_text("--modes", modes,
                     "timing: the modes of A and B to compare, each MODE (both) or AMODE/BMODE, "
                     "e.g. copy,use,copy/use (default: copy,use,alloc,write,map)");
        cli.add_choice("--c-mode", s.c_mode, "timing: the mode of C (default use)",
                       flags::mode_names());
        cli.parse();
        parts.read_by("--modes", {"timing"}).read_by("--c-mode", {"timing"}).check(cli);
        for (std::string::size_type begin = 0; !modes.empty();) {
          const auto end = modes.find(',', begin);
          s.modes.push_back(modes.substr(begin, end - begin));
          flags::parse_pair(s.modes.back());  // a UsageError for a name that is not a mode
          if (end == std::string::npos) break;
          begin = end + 1;
        }
        if (s.modes.empty()) s.modes = flags::mode_names();
        if (s.n > (std::uint64_t{1} << 20)) {
          throw lab::UsageError("--size: N = " + std::to_string(s.n) +
                                " is too large: N*N elements must fit a buffer; use at most 2^20");
        }
        const auto& opt = cli.options();

        // 2. Device
        lab::Env env = lab::open_device(opt, cli.out());
        const std::uint64_t elements = s.n * s.n;
        lab::check_memory(env, elements * sizeof(cl_int), 3, 5, "-n");

        // 3-7. The demonstrations (host data, buffers, kernel, check, each in its function)
        lab::Report report("buffer_flags", lab::describe_device(env));
        if (parts.chosen() != "timing") {
          flags::Demos demos{
              env,      opt,       lab::build_program(env, opt, "buffer_flags.cl", {}, cli.out()),
              elements, cli.out(), std::cerr};
          const std::pair<const char*, lab::Result (*)(flags::Demos&)> demonstrations[] = {
              {"copy_snapshot", flags::copy_snapshot},
              {"use_visibility", flags::use_visibility},
              {"alloc_map", flags::alloc_map},
              {"nofetch_finish", flags::nofetch_finish}};
          for (const auto& [name, run] : demonstrations) {
            if (parts.runs(name)) report.add(run(demos));
          }
        }
        // The timed matmul per mode
        if (parts.runs("timing")) {
          for (lab::Result& row :
               flags::time_modes(env, opt, s, cli.out(), std::cerr, report.details()["timing"])) {
            report.add(row);
          }
        }

        // 8. Report
        report.details()["n"] = s.n;
        report.print(cli.format(), std::cout);
        return report.exit_code();
      });
}
