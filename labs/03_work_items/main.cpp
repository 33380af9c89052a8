// work_items: what get_global_id, get_local_id, get_group_id and friends return for every
// work-item of a 1-, 2- or 3-D NDRange, printed as grids and checked against the launch.
#include "records.hpp"

#include "lab/lab.hpp"

#include <iomanip>
#include <iostream>

namespace {

Dims parse_dims(const std::string& what, const std::string& text, std::uint64_t min) {
  const Dims dims = lab::parse_size_list(what, text, min);
  if (dims.size() > 3) {
    throw lab::UsageError(what + " has " + std::to_string(dims.size()) +
                          " sizes, but an NDRange has 1, 2 or 3 dimensions: give 1 to 3 sizes "
                          "such as 16,16");
  }
  return dims;
}

// The NDRange the command line asks for: sizes checked, the default local size chosen, the
// global size padded to whole work-groups with --pad.
struct Launch {
  Dims requested, global, local, offset;
  bool auto_local = false;  // --local auto: the runtime chooses
};

Launch read_launch(const std::string& global_text, const std::string& local_text,
                   const std::string& offset_text, bool pad) {
  Launch l;
  l.requested = parse_dims("--global", global_text, 1);
  l.auto_local = local_text == "auto";
  if (local_text.empty()) {
    for (const auto g : l.requested) l.local.push_back(g % 4 == 0 ? 4 : (g % 2 == 0 ? 2 : 1));
  } else if (!l.auto_local) {
    l.local = parse_dims("--local", local_text, 1);
  }
  l.offset =
      offset_text.empty() ? Dims(l.requested.size(), 0) : parse_dims("--offset", offset_text, 0);
  if (!l.auto_local && l.local.size() != l.requested.size()) {
    throw lab::UsageError("--local has " + std::to_string(l.local.size()) +
                          " sizes but --global has " + std::to_string(l.requested.size()) +
                          ": give one local size per dimension");
  }
  if (l.offset.size() != l.requested.size()) {
    throw lab::UsageError("--offset needs one value per dimension of --global (" +
                          std::to_string(l.requested.size()) + ")");
  }
  l.global = l.requested;
  if (pad && !l.auto_local) {
    for (std::size_t d = 0; d < l.global.size(); ++d) {
      l.global[d] = lab::round_up(l.global[d], l.local[d]);
    }
  }
  // Each dimension's ids are 32-bit here: global size plus offset stays below 2^32 (each is at
  // most 2^32 by then, so the sum cannot wrap).
  for (std::size_t d = 0; d < l.global.size(); ++d) {
    if (l.global[d] > 0xFFFFFFFFull || l.offset[d] > 0xFFFFFFFFull - l.global[d]) {
      throw lab::UsageError("global size plus offset must stay below 2^32 in every dimension");
    }
  }
  return l;
}

// The values every work-item shares, once, then a grid per id unless there are too many.
void show_ids(const Grid& grid, const lab::HostVector<cl_uint>& records, std::uint64_t items,
              bool no_grids, bool pad, std::ostream& out) {
  out << "get_work_dim() = " << records[kWorkDim] << "\n";
  for (int field = 3; field < kPerDimFields; ++field) {
    out << kFieldNames[field] << "(d) =";
    for (int d = 0; d < grid.dims; ++d) out << " " << records[3 * field + d];
    out << "\n";
  }
  const std::uint64_t columns = grid.dims == 1 ? grid.global[0] : grid.global[1];
  if (no_grids || columns > 64 || items > 4096) {
    out << "(grids not printed: "
        << (no_grids ? "--no-grids" : "more than 64 columns or 4096 work-items") << ")\n";
    return;
  }
  out << "Grids: rows are dimension 0, columns dimension 1"
      << (pad ? "; * marks padding work-items" : "") << "\n";
  print_grids(grid, records, out);
}

}  // namespace

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "work_items", "Work-item ids of a 1-, 2- or 3-D NDRange", [](lab::Cli& cli) {
        // 1. Options
        std::string global_text = "16,16", local_text, offset_text;
        bool pad = false, no_grids = false;
        cli.add_text("-g,--global", global_text, "Global size, 1 to 3 sizes: 16 or 16,16 or 8,8,4");
        cli.add_text("--local", local_text,
                     "Local size, one per dimension, or 'auto' (runtime); default: in each "
                     "dimension the largest of 4, 2, 1 that divides the global size");
        cli.add_text("--offset", offset_text, "Global offset, one per dimension (default 0)");
        cli.add_flag("--pad", pad, "Pad the global size up to whole work-groups");
        cli.add_flag("--no-grids", no_grids, "Check the ids without printing the grids");
        cli.parse();
        const auto& opt = cli.options();

        const Launch launch = read_launch(global_text, local_text, offset_text, pad);
        const Dims& requested = launch.requested;
        const Dims& global = launch.global;
        const Dims& local = launch.local;
        const Dims& offset = launch.offset;
        const bool auto_local = launch.auto_local;

        // 2. Device
        lab::Env env = lab::open_device(opt, cli.out());

        // 3. Program and kernel, arguments set one by one: clSetKernelArg, spelled out
        const lab::Program program =
            lab::build_program(env, opt, "work_items_record.cl", {}, cli.out());
        cl::Kernel kernel = lab::make_kernel(program, {"work_items_record",
                                                       {{"global", "uint*", "records"},
                                                        {"", "uint", "requested0"},
                                                        {"", "uint", "requested1"},
                                                        {"", "uint", "requested2"}}});
        lab::check_ndrange(kernel, env.device, global,
                           local);  // explains a local size that does not fit

        // Every work-item writes one record: more than 2^40 of them is past any device.
        std::uint64_t items = 1;
        for (const auto g : global) {
          if (items > (std::uint64_t{1} << 40) / g) {
            throw lab::UsageError(
                "--global asks for more than 2^40 work-items in all: choose "
                "smaller sizes");
          }
          items *= g;
        }
        const std::uint64_t bytes = items * kRecordSize * sizeof(cl_uint);
        lab::check_memory(env, bytes, 1, 2, "--global");
        // Guard zones around the records, and every field set to the sentinel first: a record
        // the kernel does not write, or one it writes in the wrong place, is found.
        lab::GuardedBuffer<cl_uint> records_buf(env, lab::BufferMode::write, CL_MEM_WRITE_ONLY,
                                                items * kRecordSize, 0);
        records_buf.reset(env.queue);
        kernel.setArg(0, records_buf.buffer());
        for (cl_uint d = 0; d < 3; ++d) {
          kernel.setArg(1 + d, static_cast<cl_uint>(d < requested.size() ? requested[d] : 1));
        }

        // 4. Run: clEnqueueNDRangeKernel with offset, global and local, spelled out
        cli.out() << "NDRange: global " << lab::format_dims(global)
                  << (pad && global != requested
                          ? " (padded from " + lab::format_dims(requested) + ")"
                          : "")
                  << ", local " << (auto_local ? "chosen by the runtime" : lab::format_dims(local))
                  << ", offset " << lab::format_dims(offset) << "\n";
        const lab::Timing timing = lab::time_launches(
            opt,
            [&] {
              cl::Event event;
              env.queue.enqueueNDRangeKernel(
                  kernel, lab::to_ndrange(offset), lab::to_ndrange(global),
                  auto_local ? cl::NullRange : lab::to_ndrange(local), nullptr, &event);
              return event;
            },
            cli.out());
        lab::HostVector<cl_uint> records(items * kRecordSize);
        env.queue.enqueueReadBuffer(records_buf.buffer(), CL_TRUE, 0, bytes, records.data());
        const lab::GuardCheck guard = records_buf.check_guards(env.queue);
        const std::string outside = lab::describe_guard_writes(
            guard, "the records",
            "each work-item must write only its own record, records + item * RECORD_SIZE");
        if (!outside.empty()) std::cerr << "work_items: " << outside << "\n";

        // 5. Verify every field of every work-item against what the NDRange implies
        Grid grid;
        grid.dims = static_cast<int>(global.size());
        for (int d = 0; d < grid.dims; ++d) {
          grid.global[d] = global[d];
          grid.offset[d] = offset[d];
          grid.requested[d] = requested[d];
          // With 'auto' the runtime's choice is what the first work-item saw; it is checked below
          // like every other value, and must divide the global size.
          grid.local[d] = auto_local ? std::max<cl_uint>(records[3 * kLocalSize + d], 1) : local[d];
        }
        lab::CheckResult check = check_records(grid, records, std::cerr);
        for (int d = 0; d < grid.dims; ++d) {
          if (grid.global[d] % grid.local[d] != 0) ++check.mismatches;  // the runtime chose badly
        }

        // 6. Show: the uniform values once, then the grids
        show_ids(grid, records, items, no_grids, pad, cli.out());

        // 7. Report
        lab::Report report("work_items", lab::describe_device(env));
        lab::Result row;
        row.variant = std::to_string(grid.dims) + "-D" + (pad ? " padded" : "");
        row.size.add("global", std::vector<std::int64_t>(global.begin(), global.end()));
        if (!auto_local)
          row.size.add("local", std::vector<std::int64_t>(local.begin(), local.end()));
        row.size.label(lab::format_dims(global) + " local " +
                       (auto_local ? "auto" : lab::format_dims(local)));
        lab::set_timing(row, timing);
        row.out_of_bounds = guard.total();
        lab::set_check(row, check);
        row.max_abs_error.reset();
        report.add(row);
        report.details()["global"] = global;
        report.details()["requested"] = requested;
        report.details()["local"] = Dims(grid.local, grid.local + grid.dims);
        report.details()["offset"] = offset;
        report.details()["work_items_checked"] = check.checked;
        report.details()["wrong_work_items"] = check.mismatches;
        report.print(cli.format(), std::cout);
        return report.exit_code();
      });
}
