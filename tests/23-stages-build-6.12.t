#!/bin/bash
# tests/23-stages-build.t on the 6.12 tree (series-6.12, patches-6.12/).
TREE=6.12 exec bash "$(dirname "$0")/23-stages-build.t"
