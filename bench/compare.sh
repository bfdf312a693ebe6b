#!/usr/bin/env bash
# Runs the issue-8 speed benches on a base commit and on this tree, interleaved in one run, so both sets
# of figures share one machine state (absolute times do not travel between runs or machines).
#   bash bench/compare.sh BASE_REF [rounds=3] [--no-api]
# Prints, per round and tree: bench/ingest.ts messages/s, bench/command-rtt.ts p50/p99, and (once per
# tree, it takes ~2.5 min each) bench/api.ts's table, whose ratios are against a bare fastify peer.
set -uo pipefail
cd "$(dirname "$0")/.."
base_ref=${1:?usage: bash bench/compare.sh BASE_REF [rounds] [--no-api]}
rounds=${2:-3}
api=1; [ "${3:-}" = "--no-api" ] && api=0
here=$PWD
tmp=$(mktemp -d)
base="$tmp/base"
git worktree add --detach -q "$base" "$base_ref" || exit 2
ln -s "$here/node_modules" "$base/node_modules"
trap 'git worktree remove --force "$base"; rm -rf "$tmp"' EXIT
echo "base $(git -C "$base" log --oneline -1)"
echo "head $(git log --oneline -1)   $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"

run() { # tree label
  local tree=$1 label=$2
  # One serve as shipped (the bus on) per round and tree (the counts first: an older ingest.ts reads only
  # positionals); ingest.ts's own bus-off peer is not needed here.
  (cd "$tree" && npx tsx bench/ingest.ts 100 2000 64 --rounds 1 --only on 2>&1 | grep -E 'msg/s|messages/s|lost' | sed "s/^/[$label] ingest /")
  (cd "$tree" && npx tsx bench/command-rtt.ts 2>&1 | grep -E 'p50' | sed "s/^/[$label] rtt /")
}
for r in $(seq "$rounds"); do
  echo "== round $r"
  if [ $((r % 2)) -eq 1 ]; then run "$base" base; run "$here" head; else run "$here" head; run "$base" base; fi
done
if [ $api -eq 1 ]; then
  for pair in "$base:base" "$here:head"; do
    echo "== api.ts on ${pair##*:}"
    (cd "${pair%%:*}" && npx tsx bench/api.ts 2>&1 | sed "s/^/[${pair##*:}] /")
  done
fi
