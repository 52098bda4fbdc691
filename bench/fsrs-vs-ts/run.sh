#!/usr/bin/env bash
# Side-by-side replay benchmark: ts-fsrs 5.4.2 under Node against
# internal/fsrs in Go, on the same vectors file, in the same run.
#
# usage: bench/fsrs-vs-ts/run.sh [VECTORS_FILE]
#
# VECTORS_FILE defaults to $KUBEQUIZ_FSRS_VECTORS, then to
# fsrs-vectors/public.jsonl in the shared folder ($KUBEQUIZ_SHARED_DIR, or
# "shared" beside the module root), and otherwise to a file generated here
# with seed 1. ts-fsrs is installed with npm into a temporary folder that is
# removed on exit.
#
# The two sides take turns (ROUNDS rounds, each SECONDS seconds per side),
# so that load from other processes on a shared machine hits both alike; the
# summary is the median of the per-round figures.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rounds=${ROUNDS:-5}
seconds=${SECONDS_PER_SIDE:-3}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "installing ts-fsrs 5.4.2 into a temporary folder" >&2
node "$here/fsrs-vs-ts.mjs" install "$tmp"

file=${1:-${KUBEQUIZ_FSRS_VECTORS:-}}
if [ -z "$file" ]; then
	shared=${KUBEQUIZ_SHARED_DIR:-$root/../shared}
	if [ -f "$shared/fsrs-vectors/public.jsonl" ]; then
		file=$shared/fsrs-vectors/public.jsonl
	else
		file=$tmp/seed1.jsonl
		node "$here/fsrs-vs-ts.mjs" generate --seed 1 --ts-fsrs "$tmp" --out "$file"
	fi
fi
file=$(cd "$(dirname "$file")" && pwd)/$(basename "$file")

echo "building the Go test binary" >&2
(cd "$root" && go test -c -o "$tmp/fsrs.test" ./internal/fsrs)

echo "file: $file"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(node --version), $(go version | cut -d' ' -f3-4)"

ts_rates=()
go_rates=()
ratios=()
for r in $(seq 1 "$rounds"); do
	ts=$(node "$here/fsrs-vs-ts.mjs" time --file "$file" --ts-fsrs "$tmp" --seconds "$seconds" --runs 1 |
		sed -n 's/^TS_REVIEWS_PER_SEC=//p')
	gobench=$(cd "$root/internal/fsrs" && KUBEQUIZ_FSRS_VECTORS=$file "$tmp/fsrs.test" \
		-test.run '^$' -test.bench '^BenchmarkReplay$' -test.benchtime "${seconds}s")
	gorate=$(echo "$gobench" | awk '/^BenchmarkReplay/ { for (i = 2; i <= NF; i++) if ($i == "reviews/s") print int($(i-1)) }')
	if [ -z "$ts" ] || [ -z "$gorate" ]; then
		echo "round $r: could not read a rate (ts-fsrs '$ts', Go '$gorate')" >&2
		echo "$gobench" >&2
		exit 1
	fi
	ratio=$(awk -v g="$gorate" -v t="$ts" 'BEGIN { printf "%.1f", g / t }')
	printf 'round %d: ts-fsrs %d reviews/s, Go %d reviews/s, ratio %sx\n' "$r" "$ts" "$gorate" "$ratio"
	ts_rates+=("$ts")
	go_rates+=("$gorate")
	ratios+=("$ratio")
done

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf 'median of %d rounds: ts-fsrs %s reviews/s, Go %s reviews/s, ratio %sx (goal: at least 10x)\n' \
	"$rounds" "$(median "${ts_rates[@]}")" "$(median "${go_rates[@]}")" "$(median "${ratios[@]}")"
