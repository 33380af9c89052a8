// program.hpp: finding a kernel file, building it with visible options, and taking a kernel from
// it that matches what the host launches.
#pragma once

#include "lab/device.hpp"
#include "lab/options.hpp"

#include <CL/opencl.hpp>

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace lab {

// Where kernels may live. Without --kernel-file or --kernel-dir (LAB_KERNEL_DIR reaches kernel_dir
// through the command line's environment fallback), the suite's own: kernels/ beside the
// executable, or the installed share folder. With --kernel-dir, the lab's own kernel files come
// from that directory only; helper kernels (the copy yardstick) may still fall back to the suite's.
struct KernelLookup {
  std::string kernel_file;  // replaces the main kernel file when set
  std::string kernel_dir;
  std::string beside;     // kernels/ beside the executable: the build tree's copies
  std::string installed;  // the installed share folder, found from the executable's own place
};

// The lookup the lab's options imply, with the place of the suite's own kernels: kernels/ beside
// the executable (build/bin/kernels) when it exists, else, for an installed lab,
// PREFIX/share/opencl-labs/kernels reached from PREFIX/libexec/opencl-labs, so a moved prefix
// still works. The source tree is never read.
KernelLookup kernel_lookup(const Options& options);

// Candidate paths for `file` in lookup order. --kernel-file counts only for the main file, and a
// --kernel-dir is the only candidate for the main file.
std::vector<std::string> kernel_candidates(const std::string& file, const KernelLookup& lookup,
                                           bool main_file);

// The first candidate that exists; throws RuntimeError listing every path tried.
std::string find_kernel_file(const std::string& file, const KernelLookup& lookup, bool main_file);

// Throws UsageError when --kernel-dir (or LAB_KERNEL_DIR) names no directory or --kernel-file no
// file: the command line's paths, checked before the lab does any work.
void check_kernel_paths(const Options& options);
void check_kernel_file(const std::string& path);

// Before the lab does any work: with --kernel-dir set (and no --kernel-file), throws
// RuntimeError when the directory lacks any of `files`, the lab's own kernel files this run
// builds. Several files (`option` all: --variant all, --part all) are named together, with
// `option` NAME as the way to run one kernel alone.
void require_kernel_files(const Options& options, const std::vector<std::string>& files,
                          const std::string& option);

// A -D define the lab passes to its kernel, and the lab option that sets it ("" when the lab
// derives it from other options). --build-options may not redefine one: the host sizes the
// NDRange and the buffers from the same value.
struct Define {
  std::string name;
  std::string value;
  std::string option;
};
using Defines = std::vector<Define>;

// "-DTS=16 -DKMAX=1024".
std::string define_flags(const Defines& defines);

// A lab's element type as its kernels take it: REAL (from --dtype), and FP64 = 1 when REAL is
// double, which turns on the kernels' fp64 guard (cl_khr_fp64, or #error without it).
Defines real_defines(const std::string& real);

// Throws UsageError when `build_options` (the --build-options text) defines a name in `defines`.
void check_build_options(const std::string& build_options, const Defines& defines);

// One argument of the kernel the host launches: its address space ("global", "constant",
// "local", or "" for a value), its OpenCL C type as clGetKernelArgInfo spells it ("float*",
// "ulong"), and its name.
struct KernelArg {
  std::string address;
  std::string type;
  std::string name;
  // A pointer to const data ("__global const float* A"): shown in messages, never required (a
  // kernel that leaves const out of an input works the same).
  bool constant = false;
  // An image's access ("read_only", "write_only"): shown in messages in place of its address
  // space (an image is __global, but written with its access qualifier), never compared.
  std::string access = {};
};

// The kernel the host launches.
struct KernelSignature {
  std::string name;
  std::vector<KernelArg> args;
  // "__kernel void vector_add(ulong n, __global float* a, ...)".
  std::string text() const;
};

namespace detail {
class CapturedStderr;
}

// A kernel file read for building, the first step of build_program that a lab may also take
// itself: where it was found, the text cl::Program gets, and the options program.build gets.
struct KernelText {
  std::string path;
  std::string source;     // for cl::Program: on PoCL with a #line, so the log names the file
  std::string flags;      // for program.build: the defines, then --build-options
  bool student = false;   // from --kernel-file or --kernel-dir, not one of the suite's files
  std::string file_text;  // the file as written
  Defines defines;
  std::string build_options;
  // The compiler's own lines on stderr ("2 errors generated."), held from load_kernel until the
  // build's outcome is known, so that they follow the build log instead of preceding it.
  std::shared_ptr<detail::CapturedStderr> compiler_output;
};

// Finds `file` (the lab's main kernel file when main_file; --kernel-file and --kernel-dir count
// for it only), reads it and puts the build options together: `defines` plus --build-options
// (which may not redefine one of them), and -cl-kernel-arg-info for a student's file, whose
// arguments check_kernel_args then checks. With -v it prints the lookup, the path and the
// options.
KernelText load_kernel(const Env& env, const Options& options, const std::string& file,
                       const Defines& defines, std::ostream& out, bool main_file = true);

// What a lab does when program.build throws: prints the build log (`log`, the program's
// CL_PROGRAM_BUILD_LOG, with the file's name in place of "<kernel>") and throws the one-line
// error: an Error with exit 1 for a student's file (the kernel is wrong), RuntimeError (3) for the
// suite's, UsageError (2) when the kernel's own #error refuses a tunable's value. Any other
// OpenCL error is rethrown as it is.
[[noreturn]] void build_failed(const KernelText& text, const cl::Error& error, std::string log);

// After a build: checks that the program defines the kernel `signature` names (else throws with
// the names it defines and the signature expected), and refuses a student's kernel whose barrier
// some work-items may skip (divergent_barrier).
void check_kernel_name(const cl::Program& program, const KernelText& text,
                       const KernelSignature& signature);

// The kernel's arguments against `signature`: their number and, where the driver reports them
// (student files are built with -cl-kernel-arg-info), each one's address space and type. A
// mismatch throws with the expected signature, the argument that differs and what the file
// defines instead.
void check_kernel_args(const cl::Kernel& kernel, const KernelText& text,
                       const KernelSignature& signature);

// A built program and where its source came from.
struct Program {
  cl::Program program;
  std::string path;
  bool student = false;  // from --kernel-file or --kernel-dir, not one of the suite's files
  KernelText text;
};

// load_kernel, cl::Program and program.build in one call: loads `file` (the lab's main kernel file
// when main_file), builds it for env.device with `defines` plus --build-options, and prints the
// build log and throws when it fails: an Error with exit 1 for a student's file (the kernel is
// wrong), RuntimeError (3) for the suite's. The source is compiled as if from its own path, so the
// log names the file and its lines. With -v it prints the lookup, the path and the options.
Program build_program(const Env& env, const Options& options, const std::string& file,
                      const Defines& defines, std::ostream& out, bool main_file = true);

// The kernel `signature` names, checked against it: its name, its number of arguments and, where
// the driver reports them (student files are built with -cl-kernel-arg-info), each argument's
// address space and type. A mismatch throws with the expected signature, the argument that
// differs and what the file defines instead.
cl::Kernel make_kernel(const Program& program, const KernelSignature& signature);

// Where `source` (OpenCL C) puts a barrier that some work-items of a group may not reach: inside
// an if, else or switch, or after a return inside one. "" when it finds none, else "line L: ..."
// (a sentence). It reads the code as written, so a branch every work-item takes alike is flagged
// too; the suite's kernels keep their barriers outside branches. Used on students' kernels,
// because PoCL may give the right answer, hang or crash on such a kernel.
std::string divergent_barrier(const std::string& source);

// A kernel file this process built, for reports: path, SHA-256 of its contents, and whether it
// is one of the suite's own files.
struct KernelSource {
  std::string path;
  std::string sha256;
  bool student = false;
};
const std::vector<KernelSource>& built_kernel_files();

}  // namespace lab
