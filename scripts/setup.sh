#!/usr/bin/env bash
# setup.sh: installs the Debian/Ubuntu packages OpenCL Labs needs to build, run and test, if any
# are missing (apt-get, through sudo when not root). Safe to run again: it installs nothing twice.
# A tool already on PATH (a cmake from elsewhere, say) counts as present. LAB_SKIP_SETUP=1 skips
# this step, for machines whose packages are managed some other way.
#   scripts/setup.sh            what building, the labs and the tests need
#   scripts/setup.sh report     also Chromium's headless shell (scripts/report.sh --screenshot and
#                               the test that looks at the course report as a browser shows it)
#   scripts/setup.sh peers      also OpenBLAS and CLBlast (matmul --peers)
#   scripts/setup.sh slurm      also Slurm and munge (the grader's --slurm, tested on a one-machine
#                               cluster the test starts)
set -euo pipefail
[[ "${LAB_SKIP_SETUP:-0}" == 1 ]] && exit 0

packages=(
  g++ cmake make                       # compiler and build
  ocl-icd-opencl-dev opencl-c-headers  # the OpenCL ICD loader (libOpenCL) and C headers
  opencl-clhpp-headers                 # the Khronos C++ bindings, CL/opencl.hpp
  pocl-opencl-icd                      # PoCL: OpenCL on the CPU, so every machine has a device
  libcli11-dev nlohmann-json3-dev      # command line and JSON (header-only)
  libstb-dev                           # PNG in and out for the images lab (header-only stb)
  libgtest-dev                         # unit tests
  oclgrind                             # kernel checks: races, out-of-bounds, uninitialised reads
  clinfo                               # device_info is checked against it
  python3                              # the tests' command-line fuzzer, scripts/fuzz_cli.py
  python3-matplotlib                   # plots: sweeps, timelines, the course report
  python3-jsonschema                   # the tests check every lab's --json against its schema
  python3-yaml                         # the test that runs the GitHub Classroom workflow reads it
  python3-opencv                       # the images lab's peers: OpenCV's filter2D and sepFilter2D
  dpkg-dev file                        # cpack's .deb: dpkg-shlibdeps finds its Depends
  lintian                              # the .deb files are checked by it (a test)
)
for extra in "$@"; do
  case "$extra" in
    report) packages+=(chromium-headless-shell) ;;
    peers) packages+=(libopenblas0-pthread libclblast1) ;;
    slurm) packages+=(slurmctld slurmd slurm-client munge) ;;
    *) echo "setup: unknown extra '$extra' (report, peers, slurm)" >&2; exit 2 ;;
  esac
done

# Packages that are tools: present when the command is on PATH, however it was installed.
declare -A command_of=([g++]=g++ [cmake]=cmake [make]=make [oclgrind]=oclgrind [clinfo]=clinfo
  [python3]=python3 [lintian]=lintian)

missing=()
for package in "${packages[@]}"; do
  if [[ -n "${command_of[$package]:-}" ]] && command -v "${command_of[$package]}" >/dev/null; then
    continue
  fi
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

echo "setup: installing ${missing[*]}"
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: error: apt-get not found; install these packages by hand: ${missing[*]}" >&2
  exit 1
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup: error: not root and no sudo; as root run: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
