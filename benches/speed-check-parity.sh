#!/usr/bin/env bash
# litebench's `history speedtest1 --method speed-check` against SQLite's own speedtest1.c, both
# counted by callgrind, release by release: not run in CI (about a minute per release on two
# cores at size 5).
#
#   benches/speed-check-parity.sh SPEEDTEST1_C [RELEASE...]
#
# SPEEDTEST1_C is SQLite's test/speedtest1.c (it is SQLite's, never part of this repository:
# fetch it, e.g. from github.com/sqlite/sqlite at the commit litebench's port follows,
# 138951dc). For each release, litebench builds and runs `sqlite@RELEASE-speed-check` once
# (`--trials 1`: callgrind's count repeats to about four digits); speedtest1.c is then compiled
# with tool/speed-check.sh's flags (-g -Os -DSQLITE_ENABLE_MEMSYS5) against that release's
# sqlite3.h (cut from the amalgamation in litebench's cache) and linked to the very library
# litebench ran, and run as speed-check.sh runs it (rollback journal, as sqlite.org/cpu.html):
#   speedtest1 DB --shrink-memory --reprepare --stats --heap 10000000 64 --size SIZE
# under `valgrind --tool=callgrind`. Both counts are split the same way (the library object's
# own instructions and its calls into libc: SQLite's; the rest the harness's).
#
# Environment: LITEBENCH (default: target/release/litebench under CARGO_TARGET_DIR or ./target),
# SIZE (default 5), REBASE (default 3.40.0), LITEBENCH_CACHE as litebench reads it.
set -euo pipefail
speedtest1_c=${1:?usage: $0 SPEEDTEST1_C [RELEASE...]}
shift
releases=("$@")
if [ ${#releases[@]} -eq 0 ]; then
  releases=(3.7.8 3.7.17 3.8.2 3.11.0 3.15.0 3.23.1 3.40.0 3.54.1)
fi
size=${SIZE:-5}
rebase=${REBASE:-3.40.0}
lb=${LITEBENCH:-${CARGO_TARGET_DIR:-target}/release/litebench}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

engines=()
for r in "${releases[@]}"; do engines+=(--engine "sqlite@$r"); done
echo "litebench: history speedtest1 --method speed-check --param size=$size, ${#releases[@]} releases" >&2
nice "$lb" history speedtest1 "${engines[@]}" --method speed-check --measure instructions \
  --trials 1 --warmup 0 --param "size=$size" --dir "$work" --results "$work/results.db" --format json -q \
  >"$work/litebench.json"

# Each release's library, as the run's manifest names it.
python3 - "$work/litebench.json" >"$work/libraries" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))["manifest"]
for e in m["engines"]:
    print(e["version"], e["sqlite"]["origin"])
EOF

for r in "${releases[@]}"; do
  lib=$(awk -v r="$r" '$1 == r { print $2 }' "$work/libraries")
  src="$(dirname "$(dirname "$lib")")-sources/$r/sqlite3.c"
  mkdir -p "$work/$r"
  awk '/^\/\*+ Begin file sqlite3.h \*+\//{f=1; next} /^\/\*+ End of sqlite3.h \*+\//{f=0} f' "$src" >"$work/$r/sqlite3.h"
  # A newer speedtest1.c names what old releases lack in code the main set never runs
  # (--reserve, --script, other test sets): a stand-in constant, and those functions defined as
  # address 0 where the release's header has none.
  defs=()
  for sym in sqlite3_expanded_sql sqlite3_bind_text64; do
    grep -q "$sym" "$work/$r/sqlite3.h" || defs+=("-Wl,--defsym,$sym=0")
  done
  gcc -g -Os -DSQLITE_ENABLE_MEMSYS5 -DSQLITE_FCNTL_RESERVE_BYTES=38 -w -I"$work/$r" "$speedtest1_c" "$lib" \
    "${defs[@]}" \
    -Wl,-rpath,"$(dirname "$lib")" -o "$work/$r/speedtest1" -ldl -lpthread -lm
  echo "speedtest1.c: $r" >&2
  (cd "$work/$r" && nice valgrind --tool=callgrind --callgrind-out-file=callgrind.out -q \
    ./speedtest1 speedtest1.db --shrink-memory --reprepare --stats --heap 10000000 64 --size "$size" >speedtest1.txt)
done

python3 - "$work" "$rebase" "${releases[@]}" <<'EOF'
import json, re, sys
work, rebase, releases = sys.argv[1], sys.argv[2], sys.argv[3:]

def split(path):
    """(total, SQLite's): the library object's own instructions and its calls into libc."""
    npos, cur, cob, call, names = 1, "", None, None, {}
    total = own = calls = 0
    def obj(spec):
        m = re.match(r"\((\d+)\)\s*(.*)", spec.strip())
        if not m:
            return spec.strip()
        if m.group(2):
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), "")
    lib = lambda o: o.rsplit("/", 1)[-1].startswith("libsqlite3")
    libc = lambda o: o.rsplit("/", 1)[-1].startswith(("libc.so", "libc-"))
    for line in open(path, errors="replace"):
        if line.startswith("positions:"):
            npos = len(line.split()) - 1
        elif line.startswith("ob="):
            cur = obj(line[3:])
        elif line.startswith("cob="):
            cob = obj(line[4:])
        elif line.startswith("calls="):
            call, cob = (cob if cob is not None else cur), None
        elif line[:1].isdigit() or line[:1] in "+-*":
            t = line.split()
            if len(t) <= npos:
                continue
            n = int(t[npos])
            if call is not None:
                if lib(cur) and libc(call):
                    calls += n
                call = None
            else:
                total += n
                own += n if lib(cur) else 0
    return total, own + calls

run = json.load(open(f"{work}/litebench.json"))
label = {c["index"]: c["engine"] for c in run["manifest"]["configs"]}
lb = {}
for t in run["trials"]:
    if t.get("warmup"):
        continue
    release = label[t["config"]].removeprefix("sqlite@").removesuffix("-speed-check")
    lib = sum(o.get("library_instructions", 0) for o in t["ops"])
    lb[release] = (t["instructions"], lib)
bare = {r: split(f"{work}/{r}/callgrind.out") for r in releases}
base_lb, base_bare = lb[rebase][0], bare[rebase][0]
print("| release | litebench speed-check | speedtest1.c | difference | SQLite's share (litebench / speedtest1.c) | litebench rebased to %s | speedtest1.c rebased |" % rebase)
print("|---|---|---|---|---|---|---|")
for r in releases:
    (l, ll), (b, bl) = lb[r], bare[r]
    print(f"| {r} | {l:,} | {b:,} | {100 * (l - b) / b:+.2f}% | {100 * ll / l:.1f}% / {100 * bl / b:.1f}% "
          f"| {l / base_lb:.4f} | {b / base_bare:.4f} |")
EOF
