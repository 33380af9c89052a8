#!/usr/bin/env bash
# new_lab.sh: makes a new variant lab from labs/_template, the starting point docs/adding-a-lab.md
# describes: labs/NN_NAME/ (CMakeLists.txt, main.cpp, NAME_family.hpp/.cpp, README.md),
# kernels/NAME.cl, and its add_subdirectory line in labs/CMakeLists.txt. The lab builds, passes
# its tests and joins the tour as it is; then make it your own.
#   scripts/new_lab.sh NAME          NAME: lower case, digits and _, starting with a letter
# Exit codes: 0 made; 2 bad name, or the lab or its kernel file already exists.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
template=$root/labs/_template

if [[ $# -ne 1 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,7s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
  exit 2
fi
name=$1
if [[ ! "$name" =~ ^[a-z][a-z0-9_]*$ ]]; then
  echo "new_lab: error: '$name' is not a lab name: use lower case letters, digits and _, starting with a letter" >&2
  exit 2
fi
if compgen -G "$root/labs/[0-9][0-9]_$name" >/dev/null || [[ -e "$root/kernels/$name.cl" ]]; then
  echo "new_lab: error: a lab or kernel named $name already exists: choose another name" >&2
  exit 2
fi

# The next number in course order.
last=0
for dir in "$root"/labs/[0-9][0-9]_*/; do
  number=$(basename "$dir")
  number=$((10#${number%%_*}))
  ((number > last)) && last=$number
done
number=$((last + 1))
folder=$(printf '%02d_%s' "$number" "$name")
lab=$root/labs/$folder

# make TEMPLATE TARGET: the template with @NAME@ and @NUMBER@ filled in.
make() { sed -e "s/@NAME@/$name/g" -e "s/@NUMBER@/$number/g" "$template/$1" >"$2"; }
mkdir -p "$lab"
make CMakeLists.txt.in "$lab/CMakeLists.txt"
make main.cpp.in "$lab/main.cpp"
make family.hpp.in "$lab/${name}_family.hpp"
make family.cpp.in "$lab/${name}_family.cpp"
make README.md "$lab/README.md"
make kernel.cl.in "$root/kernels/$name.cl"
echo "add_subdirectory($folder)" >>"$root/labs/CMakeLists.txt"

echo "new_lab: made labs/$folder and kernels/$name.cl, added to labs/CMakeLists.txt"
echo "new_lab: next: scripts/labs.sh $name, then ctest --test-dir build -R '$name'"
echo "new_lab: add a row for it to the lab table in README.md (docs/adding-a-lab.md)"
