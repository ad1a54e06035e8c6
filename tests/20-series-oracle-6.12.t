#!/bin/bash
# tests/20-series-oracle.t on the 6.12 tree (series-6.12, patches-6.12/).
# tier: quick (no kernel build, no boot: make check-quick)
TREE=6.12 exec bash "$(dirname "$0")/20-series-oracle.t"
