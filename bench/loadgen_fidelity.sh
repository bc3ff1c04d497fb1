#!/usr/bin/env bash
# Load-generator fidelity: how close each http-order client comes to wrk's request rate against
# the same order server, on the same number of keep-alive connections, and what each costs in
# CPU per request (its own user + system time, warm-up and start-up included, over the orders
# it sent), wrk's beside it.
#
# Builds the suite into the bench cache, starts one order server, warms it up with a 1 s wrk
# run (which also sizes the clients' runs), then runs rounds in which every client's closed
# loop runs right after a wrk run of the same length. A client's ratio is the median of its
# ratios to the wrk run just before it, so drift on a shared machine cancels out. Prints the
# ratios against the targets (the reference load `ref` >= 0.9, C, C++ >= 0.8, Rust and Go >= 0.7,
# Python >= 0.2). A client that is not built shows as missing.
#
#   bash bench/loadgen_fidelity.sh [--orders N] [--connections C] [--seconds S] [--rounds R]
#                                  [--split SERVER_CPUS:LOAD_CPUS] [--clients c,cpp,...]
#
#   --orders N       measured orders per client run (default: wrk's rate x S); a run also
#                    stops after S seconds, so a slow client is not held up
#   --connections C  keep-alive connections for wrk and every client (default 50)
#   --seconds S      length of each run (default 5)
#   --rounds R       rounds; the table shows the medians (default 3)
#   --split S:L      pin the server to CPUs S and wrk or the client (whole process) to CPUs L,
#                    e.g. 0:1, as if they ran on separate machines; default: shared CPUs
#   --clients LIST   the clients to measure, comma-separated, of python, c, cpp, rust, go, ref
#                    (default: all)
#
# The build cache is $LATLAB_BENCH_BUILD_DIR, else ~/.cache/latlab/bench-builds/http-order.

set -euo pipefail

cd "$(dirname "$0")/.."
SUITE=workers/suites/http-order
CLIENTS=(python c cpp rust go ref)
WARMUP=1000
ORDER_TIMEOUT=5

orders=""
connections=50
seconds=5
rounds=3
split=""
server_cpus=""
load_cpus=""

usage() {
    sed -n '/^#   bash/,/^#   --clients/p' "$0" | sed 's/^# \{0,1\}//' >&2
}

# need_count "$@": the option's value is a whole number >= 1.
need_count() {
    if (($# < 2)) || ! [[ $2 =~ ^[1-9][0-9]*$ ]]; then
        echo "loadgen_fidelity: $1 needs a whole number >= 1" >&2
        exit 2
    fi
}

while (($#)); do
    case $1 in
        --orders) need_count "$@"; orders=$2; shift 2 ;;
        --connections) need_count "$@"; connections=$2; shift 2 ;;
        --seconds) need_count "$@"; seconds=$2; shift 2 ;;
        --rounds) need_count "$@"; rounds=$2; shift 2 ;;
        --split)
            if (($# < 2)) || ! [[ $2 =~ ^[0-9,-]+:[0-9,-]+$ ]]; then
                echo "loadgen_fidelity: --split needs SERVER_CPUS:LOAD_CPUS, e.g. 0:1" >&2
                exit 2
            fi
            split=$2; server_cpus=${2%%:*}; load_cpus=${2##*:}; shift 2 ;;
        --clients)
            names=$(IFS='|'; echo "${CLIENTS[*]}")  # the known clients, as alternatives
            if (($# < 2)) || ! [[ $2 =~ ^($names)(,($names))*$ ]]; then
                echo "loadgen_fidelity: --clients needs a comma-separated list of ${CLIENTS[*]}" >&2
                exit 2
            fi
            IFS=, read -r -a CLIENTS <<<"$2"; shift 2 ;;
        -h | --help)
            usage
            exit 0
            ;;
        *)
            echo "loadgen_fidelity: unknown argument $1" >&2
            usage
            exit 2
            ;;
    esac
done

if ! command -v wrk >/dev/null; then
    echo "loadgen_fidelity: wrk is not installed (apt-get install wrk)" >&2
    exit 1
fi

BUILD_DIR=${LATLAB_BENCH_BUILD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/latlab/bench-builds/http-order}
mkdir -p "$BUILD_DIR"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)  # the suite's Makefile needs it absolute
if [[ -x .venv/bin/python ]]; then
    PYTHON=$PWD/.venv/bin/python  # the runner's interpreter, with aiohttp and hdrh
else
    PYTHON=$(command -v python3)
fi

work=$(mktemp -d)
server_pid=""
cleanup() {
    if [[ -n $server_pid ]]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# One make target at a time, so a client that does not build yet leaves the others standing.
build() {
    local target
    for target in rust c cpp go; do
        if ! make --no-print-directory -s -C "$SUITE" BUILD_DIR="$BUILD_DIR" "$target" \
            >"$work/build-$target.log" 2>&1; then
            echo "loadgen_fidelity: building $target failed; its programs show as missing:" >&2
            tail -n 5 "$work/build-$target.log" | sed 's/^/    /' >&2
        fi
    done
}

start_server() {
    local server=$BUILD_DIR/target/release/order-server line=""
    if [[ ! -x $server ]]; then
        echo "loadgen_fidelity: no order server at $server" >&2
        exit 1
    fi
    local pin=()
    [[ -n $server_cpus ]] && pin=(taskset -c "$server_cpus")  # taskset execs: $! is the server
    "${pin[@]}" "$server" --listen 127.0.0.1:0 >"$work/server.out" 2>"$work/server.err" &
    server_pid=$!
    for _ in $(seq 100); do
        if IFS= read -r line <"$work/server.out"; then
            break
        fi
        if ! kill -0 "$server_pid" 2>/dev/null; then
            echo "loadgen_fidelity: the order server exited:" >&2
            cat "$work/server.err" >&2
            exit 1
        fi
        sleep 0.1
    done
    if [[ -z $line ]]; then
        echo "loadgen_fidelity: the order server did not say where it listens" >&2
        exit 1
    fi
    address=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["listening"])' "$line")
}

# measured OUT COMMAND...: runs COMMAND (its status is this one's) and writes the CPU seconds,
# user and system, that it and its children used to OUT.
measured() {
    local out=$1
    shift
    python3 -c 'import resource, subprocess, sys
status = subprocess.call(sys.argv[2:])
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write(f"{usage.ru_utime + usage.ru_stime}\n")
sys.exit(status)' "$out" "$@"
}

# on_cpus CPUS COMMAND...: runs COMMAND pinned to CPUS (taskset), or as it is when CPUS is "".
on_cpus() {
    local cpus=$1
    shift
    if [[ -n $cpus ]]; then
        taskset -c "$cpus" "$@"
    else
        "$@"
    fi
}

# run_wrk SECONDS: wrk's req/s and CPU µs per request on stdout, tab-separated (one thread per
# CPU it may use, at most 2).
run_wrk() {
    local threads=2
    if [[ -n $load_cpus ]]; then
        threads=$(taskset -c "$load_cpus" nproc)
        ((threads > 2)) && threads=2
    fi
    if ((connections < threads)); then
        threads=$connections
    fi
    on_cpus "$load_cpus" measured "$work/wrk.cpu" wrk -t"$threads" -c"$connections" -d"$1s" \
        -s bench/post_order.lua "http://$address/order" >"$work/wrk.out" 2>&1
    if grep -q 'Non-2xx' "$work/wrk.out"; then
        echo "loadgen_fidelity: wrk got answers other than 200:" >&2
        grep 'Non-2xx' "$work/wrk.out" >&2
    fi
    local rate requests
    rate=$(awk '/^Requests\/sec:/ { print $2 }' "$work/wrk.out")
    requests=$(awk '/requests in/ { print $1 }' "$work/wrk.out")
    python3 -c 'import sys; print(f"{sys.argv[1]}\t{float(sys.argv[2]) * 1e6 / int(sys.argv[3]):.1f}")' \
        "$rate" "$(cat "$work/wrk.cpu")" "$requests" 2>/dev/null || printf '%s\t-\n' "$rate"
}

# client_command NAME: the client's program in the array `command`, as suite.toml runs it.
client_command() {
    case $1 in
        python) command=("$PYTHON" "$SUITE/clients/python/order_client.py") ;;
        c) command=("$BUILD_DIR/c_client") ;;
        cpp) command=("$BUILD_DIR/cpp_client") ;;
        rust) command=("$BUILD_DIR/target/release/order-client") ;;
        go) command=("$BUILD_DIR/go_client") ;;
        ref) command=("$BUILD_DIR/target/release/order-load") ;;
    esac
}

# run_client NAME: appends "NAME<tab>req/s<tab>CPU µs per order" (or missing, or failed) to the
# results.
run_client() {
    local name=$1 status=0 rate
    client_command "$name"
    if [[ ! -x ${command[0]} || ($name == python && ! -f ${command[1]}) ]]; then
        printf '%s\tmissing\t-\n' "$name" >>"$work/results.tsv"
        return
    fi
    on_cpus "$load_cpus" measured "$work/client.cpu" timeout $((seconds + ORDER_TIMEOUT + 60)) \
        "${command[@]}" \
        --url "http://$address" --orders "$orders" --connections "$connections" \
        --warmup "$WARMUP" --rate 0 --duration "$seconds" --timeout "$ORDER_TIMEOUT" \
        --pin-cpus "" --mlock false >"$work/client.json" 2>"$work/client.err" || status=$?
    if ((status == 0)) && rate=$(python3 -c 'import json, sys
report = json.load(open(sys.argv[1]))
cpu_us = float(open(sys.argv[2]).read()) * 1e6 / (report["orders"] + report["warmup_orders"])
rate = report["throughput"]
print(f"{rate}\t{cpu_us:.1f}")' "$work/client.json" "$work/client.cpu"); then
        printf '%s\t%s\n' "$name" "$rate" >>"$work/results.tsv"
    else
        echo "loadgen_fidelity: $name exited with $status:" >&2
        tail -n 5 "$work/client.err" | sed 's/^/    /' >&2
        printf '%s\tfailed\t-\n' "$name" >>"$work/results.tsv"
    fi
}

echo "building the suite into $BUILD_DIR ..." >&2
build
start_server
echo "order server on $address; $connections connections, $seconds s runs, $rounds rounds;" \
    "CPUs ${split:-shared} (server:load)" >&2

calibration=$(run_wrk 1 | cut -f1)
if [[ -z $orders ]]; then
    orders=$(python3 -c 'import math, sys; print(max(1, math.ceil(float(sys.argv[1]) * int(sys.argv[2]))))' \
        "$calibration" "$seconds")
fi
echo "wrk warm-up: $calibration req/s; $orders orders per client run" >&2

: >"$work/results.tsv"
for round in $(seq "$rounds"); do
    echo "round $round/$rounds: ${CLIENTS[*]}, each right after a wrk run" >&2
    for name in "${CLIENTS[@]}"; do
        # wrk just before each client: a ratio is taken between neighbours in time.
        printf 'wrk:%s\t%s\n' "$name" "$(run_wrk "$seconds")" >>"$work/results.tsv"
        run_client "$name"
    done
done

python3 - "$work/results.tsv" "${CLIENTS[@]}" <<'EOF'
"""The table: per client, the median of its ratios to the wrk run just before it (pairs close
in time, so the machine's drift cancels), the median req/s of both, the target, and the median
CPU µs per request of both."""
import statistics
import sys

TARGETS = {"python": 0.2, "c": 0.8, "cpp": 0.8, "rust": 0.7, "go": 0.7, "ref": 0.9}

runs: dict[str, list[str]] = {}
cpu: dict[str, list[str]] = {}
with open(sys.argv[1]) as results:
    for line in results:
        name, value, cpu_us = line.rstrip("\n").split("\t")
        runs.setdefault(name, []).append(value)
        cpu.setdefault(name, []).append(cpu_us)


def number(value: str) -> float | None:
    try:
        return float(value)
    except ValueError:
        return None  # missing, failed, or wrk printed no rate


def median_cpu(name: str) -> str:
    values = [v for v in (number(c) for c in cpu.get(name, [])) if v is not None]
    return f"{statistics.median(values):.1f}" if values else "-"


print(f"{'client':<8} {'req/s':>9} {'wrk req/s':>10} {'ratio':>6} {'target':>7} {'meets':>6}"
      f" {'CPU us/req':>10} {'wrk':>7}  ratio per round")
for name in sys.argv[2:]:
    target = TARGETS[name]
    pairs = [(number(w), number(c))
             for w, c in zip(runs.get(f"wrk:{name}", []), runs.get(name, []), strict=True)]
    pairs = [(w, c) for w, c in pairs if w and c is not None]
    if not pairs:
        state = "missing" if "missing" in runs.get(name, []) else "failed"
        print(f"{name:<8} {state:>9} {'-':>10} {'-':>6} {target:>7} {'-':>6}")
        continue
    ratios = [c / w for w, c in pairs]
    ratio = statistics.median(ratios)
    meets = "yes" if ratio >= target else "no"
    print(f"{name:<8} {statistics.median(c for _, c in pairs):>9.0f} "
          f"{statistics.median(w for w, _ in pairs):>10.0f} {ratio:>6.2f} {target:>7} "
          f"{meets:>6} {median_cpu(name):>10} {median_cpu(f'wrk:{name}'):>7}  "
          f"{', '.join(f'{r:.2f}' for r in ratios)}")
EOF
