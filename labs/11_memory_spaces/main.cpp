// memory_spaces: __constant against __global, local tiles and the barrier they need, a row staged
// in local memory by async_work_group_copy or by hand, and private arrays that spill; every
// kernel checked against the host.
#include "spaces.hpp"

#include "lab/lab.hpp"

#include <iostream>

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "memory_spaces", "Constant, local and private memory, checked and timed",
      [](lab::Cli& cli) {
        // 1. Options
        spaces::Settings s;
        std::string tile = "16,16", private_sizes = "4,16,64,256";
        lab::Parts parts(cli, spaces::parts());
        cli.add_size("-n,--size", s.n, "constant, private: input elements (default 2^24)");
        cli.add_size("--local", s.local,
                     "constant, rows, private: work-group size (default 256; 0: the runtime "
                     "chooses)",
                     0);
        cli.add_size("-H,--height", s.height, "tiles: rows of the matrices (default 4096)");
        cli.add_size("-W,--width", s.width, "tiles: columns of the matrices (default 4096)");
        cli.add_text("--tile", tile,
                     "tiles: TILE_DIM_X,TILE_DIM_Y, the work-group's shape (default 16,16)");
        cli.add_flag("--no-barrier", s.no_barrier,
                     "tiles, rows: build the kernels without their barriers (-D BARRIER=0), a "
                     "data race");
        cli.add_size("--columns", s.columns,
                     "rows: columns of A and Y, one per work-item "
                     "(default 16384)");
        cli.add_size("--row-count", s.row_count, "rows: rows of B and Y (default 16)");
        cli.add_size("--row-length", s.row_length,
                     "rows: floats in a row of B, staged in local memory (default 512)");
        cli.add_text("--private-sizes", private_sizes,
                     "private: floats in each work-item's private array, a list (default "
                     "4,16,64,256)");
        cli.parse();
        parts.read_by("--size", {"constant", "private"})
            .read_by("--local", {"constant", "rows", "private"})
            .read_by("--height", {"tiles"})
            .read_by("--width", {"tiles"})
            .read_by("--tile", {"tiles"})
            .read_by("--no-barrier", {"tiles", "rows"})
            .read_by("--columns", {"rows"})
            .read_by("--row-count", {"rows"})
            .read_by("--row-length", {"rows"})
            .read_by("--private-sizes", {"private"})
            .check(cli);
        const auto& opt = cli.options();
        s.tile = lab::parse_size_list("--tile", tile);
        if (s.tile.size() != 2) {
          throw lab::UsageError("--tile takes two sizes, TILE_DIM_X,TILE_DIM_Y (e.g. 16,16)");
        }
        s.private_sizes = lab::parse_size_list("--private-sizes", private_sizes, 1, 4096);
        if (s.height * s.width >= (std::uint64_t{1} << 31) ||
            s.columns * std::max(s.row_count, s.row_length) >= (std::uint64_t{1} << 31)) {
          throw lab::UsageError(
              "the matrices of tiles and rows must have fewer than 2^31 elements (the kernels "
              "index them with int): choose smaller -H/-W or --columns/--row-count/--row-length");
        }

        // 2. Device
        lab::Env env = lab::open_device(opt, cli.out());
        if (parts.runs("tiles")) spaces::check_tile(env.device, s.tile);
        // Each part allocates its own buffers (and frees them before the next part starts).
        if (parts.runs("constant") || parts.runs("private")) {
          lab::check_memory(env, s.n * sizeof(float), 3, 4, "-n");
        }
        if (parts.runs("tiles")) {
          lab::check_memory(env, s.height * s.width * sizeof(float), 3, 4, "-H/-W");
        }
        if (parts.runs("rows")) {
          lab::check_memory(env, s.columns * std::max(s.row_count, s.row_length) * sizeof(float), 3,
                            4, "--columns, --row-count or --row-length");
        }

        // 3-7. Each demonstration: host data, buffers, kernels, runs, checks
        spaces::Context context{env, opt, s, cli.out(), std::cerr};
        lab::Report report("memory_spaces", lab::describe_device(env));
        const auto add = [&](std::vector<lab::Result> rows) {
          for (lab::Result& row : rows) report.add(std::move(row));
        };
        lab::CopyBaseline copy;
        if (parts.runs("constant") || parts.runs("private")) {
          copy = lab::measure_copy(env, opt, s.n, s.local, cli.out());
          report.details()["copy"] = copy.details;
        }
        // The parts held against the copy take turns with it, one copy after each run.
        if (parts.runs("constant")) {
          add(lab::in_turns_with(copy, [&] { return spaces::constant_table(context, copy); }));
        }
        if (parts.runs("tiles")) add(spaces::tiles(context));
        if (parts.runs("rows")) add(spaces::rows(context));
        if (parts.runs("private")) {
          add(lab::in_turns_with(copy, [&] { return spaces::private_arrays(context, copy); }));
        }

        // 8. Report
        report.details()["n"] = s.n;
        report.details()["barrier"] = !s.no_barrier;
        report.print(cli.format(), std::cout);
        return report.exit_code();
      });
}
