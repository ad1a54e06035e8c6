#!/bin/bash
# tests/33-selftest-topology.t on the 6.12 tree (series-6.12, patches-6.12/).
TREE=6.12 exec bash "$(dirname "$0")/33-selftest-topology.t"
