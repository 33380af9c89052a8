#!/bin/sh
# skipped.sh: the command of a test whose tool or library this machine lacks (_lab_skipped_test in
# cmake/AddLab.cmake): prints the reason and exits 77, which ctest reports as skipped.
#   tests/skipped.sh REASON
echo "skipped: $*"
exit 77
