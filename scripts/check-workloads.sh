#!/bin/bash
# Refuse a malformed rt-app workload on the host, with the parser's own
# line and column, before it costs a guest boot to find out.
# usage: check-workloads.sh FILE.json...
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

for f in "$@"; do
	msg=$(python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$f" 2>&1 | tail -n1) ||
		die "malformed workload ${f#"$TOP"/}: ${msg#json.decoder.JSONDecodeError: }"
done
