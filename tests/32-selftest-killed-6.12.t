#!/bin/bash
# tests/32-selftest-killed.t on the 6.12 tree (series-6.12, patches-6.12/).
TREE=6.12 exec bash "$(dirname "$0")/32-selftest-killed.t"
