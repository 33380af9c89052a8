#!/usr/bin/env python3
"""check_host_grading.py: the host-program exercises (scripts/grade_host.py) against planted
mistakes. `make` writes a class into WORK/class, one student per plant: the instructor's solution
(docs/instructor/host/) with one mistake put in by a text replacement, or a cheat, and grades it
with `grade.py --host` and a fixed seed into WORK/gradebook. `check PLANT` then reads that
gradebook: the plant's row must pass (the right answers) or fail with its sentence, which it
prints. A plant whose replacement no longer applies to the solution stops `make` (a plant that
silently plants nothing would pass for the right answer).

    check_host_grading.py make WORK --grader scripts/grade.py --bin build/bin --solutions DIR
    check_host_grading.py check WORK PLANT
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HOST, MAP = "vector_add_host.cpp", "vector_add_map.cpp"
PINNED, PIPELINE = "vector_add_pinned.cpp", "vector_add_pipeline.cpp"
# The exercise (LAB.NAME) each file is graded as.
EXERCISE = {HOST: "vector_add.host", MAP: "vector_add.map", PINNED: "transfers.pinned",
            PIPELINE: "transfers.pipeline"}
NO_WAIT = [("CL_TRUE, 0, bytes, c.data()", "CL_FALSE, 0, bytes, c.data()"),
           ("    event.wait();\n", ""),
           ("    const cl_ulong start = event.getProfilingInfo<CL_PROFILING_COMMAND_START>();\n"
            "    const cl_ulong stop = event.getProfilingInfo<CL_PROFILING_COMMAND_END>();\n"
            "    std::fprintf(stderr, \"vector_add ran %.1f us\\n\", double(stop - start) * 1e-3);\n",
            "")]
PRINT_EXPECTED = '''#include <cstdio>
#include <cstdlib>
// Prints what the skeleton's check expects, a + b, without any device.
int main(int argc, char** argv) {
  const unsigned long long n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 0;
  for (unsigned long long i = 0; i < n; ++i) {
    const float a = float((i * 37 + 11) % 4096) * 0.25f;
    const float b = float((i * 101 + 5) % 2048) * 0.5f;
    std::printf("%.9g\\n", double(a + b));
  }
  return 0;
}
'''
# A cheat that read the grader: it writes the record of a right program into the shim's file
# itself, and prints a + b, with no device at all.
FORGED_RECORD = PRINT_EXPECTED.replace(
    "int main(int argc, char** argv) {\n", """int main(int argc, char** argv) {
  if (std::FILE* record = std::fopen(std::getenv("LAB_HOST_TRACE"), "a")) {
    std::fprintf(record, "buffer 0x1 36 99999999\\nbuffer 0x2 36 99999999\\nbuffer 0x3 2 99999999\\n"
                         "arg 0x9 1 0x1\\narg 0x9 2 0x2\\narg 0x9 3 0x3\\nlaunch 0x9\\nread 0x3 1\\n");
    std::fclose(record);
  }
""")
# (plant, file, replacements or full text, passes, the sentence it must fail with)
PLANTS = [
    ("right", HOST, [], True, r"^PASSED$"),
    ("map_right", MAP, [], True, r"^PASSED$"),
    ("missing_wait", HOST, NO_WAIT, False,
     r"^c was printed before the device finished: the read \(or map\) of c does not block "
     r"\(CL_FALSE\) and the program does not wait for it"),
    ("output_read_only", HOST,
     [("c_buffer(context, CL_MEM_WRITE_ONLY, bytes)",
       "c_buffer(context, CL_MEM_READ_ONLY, bytes)")],
     False, r"^argument 3 \(c\) of vector_add is a buffer created CL_MEM_READ_ONLY, but the kernel "
            r"writes c"),
    ("input_write_only", HOST,
     [("a_buffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR",
       "a_buffer(context, CL_MEM_WRITE_ONLY | CL_MEM_COPY_HOST_PTR")],
     False, r"^argument 1 \(a\) of vector_add is a buffer created CL_MEM_WRITE_ONLY \| "
            r"CL_MEM_COPY_HOST_PTR: the kernel only reads a"),
    ("swapped_arguments", HOST,
     [("kernel.setArg(2, b_buffer);\n    kernel.setArg(3, c_buffer);",
       "kernel.setArg(2, c_buffer);\n    kernel.setArg(3, b_buffer);")],
     False, r"^the program reads c back from the buffer it passed as argument 2 \(b\) of "
            r"vector_add, .*the arguments are swapped"),
    ("buffer_too_small", HOST,
     [("c_buffer(context, CL_MEM_WRITE_ONLY, bytes)", "c_buffer(context, CL_MEM_WRITE_ONLY, n)")],
     False, r"^argument 3 \(c\) of vector_add is a buffer of \d+ bytes, but n = \d+ floats need "
            r"\d+: a buffer's size is in bytes"),
    ("host_computed", HOST,
     [("  // 12. Every element", "  for (unsigned long long i = 0; i < n; ++i) c[i] = a[i] + b[i];\n"
                                "  // 12. Every element")],
     False, r"^c = a \+ b at every element, but the kernel this run gave the program adds a term "
            r"of its own .*computed on the host"),
    ("launch_past_n", HOST,
     [("kernel.setArg(0, cl_ulong{n});", "kernel.setArg(0, cl_ulong{n + 1});"),
      ("cl::NDRange(n), cl::NullRange", "cl::NDRange(n + 1), cl::NullRange")],
     False, r"^Oclgrind: Invalid (read|write) of size 4 .* \(at line \d+ of the kernel: c\[i\] = "
            r"a\[i\] \+ b\[i\].*\): the kernel touched memory outside a buffer"),
    ("prints_expected", HOST, PRINT_EXPECTED, False,
     r"^the program launched no kernel \(no clEnqueueNDRangeKernel\)"),
    ("forged_record", HOST, FORGED_RECORD, False,
     r"^c = a \+ b at every element, but the kernel this run gave the program adds a term"),
    ("no_read_back", HOST,
     [("    queue.enqueueReadBuffer(c_buffer, CL_TRUE, 0, bytes, c.data());\n", "")],
     False, r"^the program never reads c back after the launch"),
    ("compile_error", HOST, [("kernel.setArg(3, c_buffer);", "kernel.setArg(3, c_buffer)")],
     False,
     r"^my_vector_add_host\.cpp failed to compile: my_vector_add_host\.cpp:\d+:\d+: error: "),
    ("include_own_header", HOST,
     [("#include <vector>\n", "#include <vector>\n#include \"answers.h\"\n")],
     False, r"^my_vector_add_host\.cpp:\d+: #include \"answers\.h\" is not allowed in a hand-in"),
    ("symbolic_link", HOST, "link", False, r"^my_vector_add_host\.cpp is a symbolic link"),
    ("endless_wait", HOST, [("    event.wait();\n", "    event.wait();\n    for (;;) {\n    }\n")],
     False, r"^the program did not end within \d+ s at n = \d+"),
    ("map_read_copy", MAP,
     [("    const void* c_mapped = queue.enqueueMapBuffer(c_buffer, CL_TRUE, CL_MAP_READ, 0, bytes);\n"
       "    std::memcpy(c.data(), c_mapped, bytes);\n"
       "    queue.enqueueUnmapMemObject(c_buffer, const_cast<void*>(c_mapped));\n",
       "    queue.enqueueReadBuffer(c_buffer, CL_TRUE, 0, bytes, c.data());\n")],
     False,
     r"^the program copies with enqueueReadBuffer: this exercise moves data only through maps"),
    ("map_copy_host_ptr", MAP,
     [("a_buffer(context, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes)",
       "a_buffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a.data())")],
     False, r"^argument 1 \(a\) of vector_add is a buffer created CL_MEM_READ_ONLY \| "
            r"CL_MEM_COPY_HOST_PTR: this exercise makes each buffer with CL_MEM_ALLOC_HOST_PTR"),
    ("map_missing_unmap", MAP,
     [("    queue.enqueueUnmapMemObject(c_buffer, const_cast<void*>(c_mapped));\n", "")],
     False, r"^c's buffer is mapped 1 time and unmapped 0: every map needs its "
            r"enqueueUnmapMemObject"),
    ("map_missing_wait", MAP,
     [("queue.enqueueMapBuffer(c_buffer, CL_TRUE, CL_MAP_READ",
       "queue.enqueueMapBuffer(c_buffer, CL_FALSE, CL_MAP_READ")]
     + NO_WAIT[1:],
     False, r"^c was printed before the device finished"),
    # transfers.pinned: the staging buffer, the copies through it, its unmap
    ("pinned_right", PINNED, [], True, r"^PASSED$"),
    ("pipeline_right", PIPELINE, [], True, r"^PASSED$"),
    ("pinned_writes_from_vector", PINNED,
     [("enqueueWriteBuffer(a_buffer, CL_FALSE, 0, bytes, a_staged)",
       "enqueueWriteBuffer(a_buffer, CL_FALSE, 0, bytes, a.data())")],
     False, r"^the upload of a copies from host memory outside the mapped staging buffer"),
    ("pinned_reads_into_vector", PINNED,
     [("    queue.enqueueReadBuffer(c_buffer, CL_TRUE, 0, bytes, c_staged);\n"
       "    std::memcpy(c.data(), c_staged, bytes);\n",
       "    queue.enqueueReadBuffer(c_buffer, CL_TRUE, 0, bytes, c.data());\n")],
     False, r"^c is read back into host memory outside the mapped staging buffer"),
    ("pinned_never_mapped", PINNED,
     [("static_cast<float*>(\n        queue.enqueueMapBuffer(pinned, CL_TRUE, CL_MAP_READ | "
       "CL_MAP_WRITE, 0, 3 * bytes));", "new float[3 * n];")],
     False, r"^the CL_MEM_ALLOC_HOST_PTR staging buffer is never mapped"),
    ("pinned_alloc_device_buffers", PINNED,
     [("a_buffer(context, CL_MEM_READ_ONLY, bytes)",
       "a_buffer(context, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, bytes)")],
     False, r"^argument 1 \(a\) of vector_add is a buffer created CL_MEM_READ_ONLY \| "
            r"CL_MEM_ALLOC_HOST_PTR: in this exercise the kernel's buffers are ordinary"),
    ("pinned_missing_unmap", PINNED,
     [("    queue.enqueueUnmapMemObject(pinned, a_staged);\n", "")],
     False, r"^the staging buffer is mapped 1 time and unmapped 0"),
    ("pinned_unmap_before_read", PINNED,
     [("    queue.enqueueReadBuffer(c_buffer, CL_TRUE, 0, bytes, c_staged);\n"
       "    std::memcpy(c.data(), c_staged, bytes);\n"
       "    queue.enqueueUnmapMemObject(pinned, a_staged);\n",
       "    queue.enqueueUnmapMemObject(pinned, a_staged);\n"
       "    queue.enqueueReadBuffer(c_buffer, CL_TRUE, 0, bytes, c_staged);\n"
       "    std::memcpy(c.data(), c_staged, bytes);\n")],
     False, r"^c is read into the staging buffer after it was unmapped"),
    ("pinned_missing_wait", PINNED,
     [("enqueueReadBuffer(c_buffer, CL_TRUE, 0, bytes, c_staged)",
       "enqueueReadBuffer(c_buffer, CL_FALSE, 0, bytes, c_staged)")],
     False, r"^c was printed before the device finished"),
    # transfers.pipeline: a race seen in the wait lists (not in timing), the offsets, the queues
    ("pipeline_no_upload_wait", PIPELINE,
     [("cl::NullRange, &uploads, &computed[k]);", "cl::NullRange, nullptr, &computed[k]);")],
     False, r"^the kernel over elements 0 to \d+ does not wait for the upload of a's elements 0 "
            r"to \d+, on another queue: a race"),
    ("pipeline_one_upload_wait", PIPELINE,
     [("uploads = {a_uploaded[k], b_uploaded[k]};", "uploads = {a_uploaded[k]};")],
     False, r"^the kernel over elements 0 to \d+ does not wait for the upload of b's elements"),
    ("pipeline_no_kernel_wait", PIPELINE,
     [("&c[first],\n                                       &kernel_done, &downloaded[k]);",
       "&c[first],\n                                       nullptr, &downloaded[k]);")],
     False, r"^the download of c's elements 0 to \d+ does not wait for the kernel that computes "
            r"elements 0 to \d+, on another queue: a race"),
    ("pipeline_offset_in_elements", PIPELINE,
     [("const std::size_t offset = first * sizeof(float);", "const std::size_t offset = first;")],
     False, r"^the kernel over elements \d+ to \d+ reads a's elements \d+ to \d+, which no upload "
            r"before it wrote: check each upload's offset"),
    ("pipeline_no_global_offset", PIPELINE,
     [("enqueueNDRangeKernel(kernel, cl::NDRange(first), cl::NDRange(count)",
       "enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(count)")],
     False, r"^no launch of vector_add covers c's elements \d+ to \d+: each chunk's launch starts "
            r"at its first element"),
    ("pipeline_one_queue", PIPELINE,
     [("    cl::CommandQueue kernel_queue(context, device, CL_QUEUE_PROFILING_ENABLE);\n"
       "    cl::CommandQueue download_queue(context, device, CL_QUEUE_PROFILING_ENABLE);\n",
       "    cl::CommandQueue& kernel_queue = upload_queue;\n"
       "    cl::CommandQueue& download_queue = upload_queue;\n")],
     False, r"^the program enqueues the uploads, the kernels and the downloads on one queue"),
    ("pipeline_two_queues", PIPELINE,
     [("    cl::CommandQueue download_queue(context, device, CL_QUEUE_PROFILING_ENABLE);\n",
       "    cl::CommandQueue& download_queue = upload_queue;\n")],
     False, r"^the downloads share a queue with the uploads"),
    ("pipeline_blocking_upload", PIPELINE,
     [("upload_queue.enqueueWriteBuffer(a_buffer, CL_FALSE",
       "upload_queue.enqueueWriteBuffer(a_buffer, CL_TRUE")],
     False, r"^the upload of a's elements 0 to \d+ blocks \(CL_TRUE\)"),
    ("pipeline_wait_in_loop", PIPELINE,
     [("      kernel_queue.flush();\n",
       "      kernel_queue.flush();\n      computed[k].wait();\n")],
     False, r"^the program waits for the device \(a finish, or a wait for an event\) before it "
            r"has enqueued every chunk"),
    ("pipeline_no_flush", PIPELINE,
     [("      upload_queue.flush();\n", "")],
     False, r"^a kernel waits for the event of an upload on another queue, which was not flushed"),
    ("pipeline_missing_finish", PIPELINE,
     [("    download_queue.finish();\n", "")],
     False,
     r"^the download of c's elements \d+ to \d+ is never waited for before the program uses c"),
    ("pipeline_one_chunk", PIPELINE,
     [("std::strtoull(argv[3], &end, 10) : 4;", "std::strtoull(argv[3], &end, 10) : 1;")],
     False, r"^the program launches vector_add once for all \d+ elements: this exercise runs it "
            r"in chunks"),
]


def make(args):
    if shutil.which("oclgrind") is None:
        print("check_host_grading: Oclgrind is not installed (scripts/setup.sh): skipped")
        sys.exit(77)
    work = Path(args.work)
    klass = work / "class"
    subprocess.run(["rm", "-rf", str(klass), str(work / "gradebook")], check=True)
    for plant, file, change, _, _ in PLANTS:
        folder = klass / plant
        folder.mkdir(parents=True)
        target = folder / f"my_{file}"
        if change == "link":
            target.symlink_to(Path(args.solutions).resolve() / file)
            continue
        if isinstance(change, str):
            target.write_text(change)
            continue
        text = (Path(args.solutions) / file).read_text()
        for old, new in change:
            if old not in text:
                sys.exit(f"check_host_grading: plant {plant}: '{old.strip()}' is not in {file} any "
                         "more: update the plant")
            text = text.replace(old, new, 1)
        target.write_text(text)
    command = [sys.executable, args.grader, str(klass), str(work / "gradebook"), "--bin", args.bin,
               "--host", "--only", ",".join(EXERCISE.values()), "--seed", "2024",
               "--time-limit", "20", "-j", str(max(1, len(os.sched_getaffinity(0))))]
    result = subprocess.run(command, capture_output=True, text=True)
    print(result.stdout[-6000:], result.stderr[-3000:])
    if result.returncode != 0:
        sys.exit(f"check_host_grading: the grading exited {result.returncode}")


def check(args):
    if shutil.which("oclgrind") is None:
        print("check_host_grading: Oclgrind is not installed (scripts/setup.sh): skipped")
        sys.exit(77)
    book = json.loads((Path(args.work) / "gradebook" / "gradebook.json").read_text())
    plant = next(p for p in PLANTS if p[0] == args.plant)
    _, file, _, passes, pattern = plant
    exercise = EXERCISE[file]
    rows = [r for r in book["rows"] if r["student"] == args.plant and r["exercise"] == exercise]
    if len(rows) != 1:
        sys.exit(f"check_host_grading: {len(rows)} rows for {args.plant} {exercise}, expected 1")
    row = rows[0]
    verdict = "PASSED" if row["passed"] else "FAILED"
    print(f"{args.plant} ({exercise}): {verdict}: {row['sentence']}")
    if row["passed"] != passes or not re.search(pattern, row["sentence"]):
        sys.exit(f"check_host_grading: {args.plant} should {'pass' if passes else 'fail'} with "
                 f"/{pattern}/")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    m = sub.add_parser("make")
    m.add_argument("work")
    m.add_argument("--grader", required=True)
    m.add_argument("--bin", required=True)
    m.add_argument("--solutions", required=True)
    c = sub.add_parser("check")
    c.add_argument("work")
    c.add_argument("plant", choices=[p[0] for p in PLANTS])
    args = parser.parse_args()
    make(args) if args.what == "make" else check(args)


if __name__ == "__main__":
    main()
