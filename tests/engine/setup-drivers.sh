#!/usr/bin/env bash
# tests/engine/setup-drivers.sh CACHE [NAME...]: sets up every driver of drivers/ (or the NAMEs)
# in litebench's cache exactly as litebench does before `--driver NAME` runs (docs/drivers.md):
# a driver's top-level files copied to CACHE/drivers/NAME/<first 16 hex of the SHA-256 of its
# files>/, its `setup` run there once under CACHE/drivers/NAME/.lock, `.ready` written when it
# exits 0. Then checks each driver against the protocol with drivers/conformance.py, and that
# the no-op drivers, which touch no database, are refused by it (so its checks can fail).
# Prints the seconds each setup and each check took. Once per machine in CI (.ci/run): a
# driver whose folder is unchanged is found ready and not set up again.
set -euo pipefail
cache=${1:?usage: setup-drivers.sh CACHE [NAME...]}
cd "$(dirname "$0")/../.."
shift
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for d in drivers/*/; do
    [ -f "$d/command" ] && names+=("$(basename "$d")")
  done
fi
bash drivers/go-common/sync.sh --check

# litebench's digest of a driver folder: its files sorted by path ("NAME/FILE"), each as the
# path's bytes, a NUL, its length as 8 bytes little-endian, then its contents.
digest() {
  python3 - "$1" <<'EOF'
import hashlib, os, struct, sys
name = sys.argv[1]
h = hashlib.sha256()
for f in sorted(os.listdir(f"drivers/{name}")):
    p = f"drivers/{name}/{f}"
    if os.path.isfile(p):
        data = open(p, "rb").read()
        h.update(f"{name}/{f}".encode() + b"\0" + struct.pack("<Q", len(data)) + data)
print(h.hexdigest()[:16])
EOF
}

now() { date +%s.%N; }
took() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(now)"; }

# One driver's setup, as litebench runs it; prints how long it took.
setup_one() {
  local name=$1 dest t
  dest="$cache/drivers/$name/$(digest "$name")"
  t=$(now)
  if [ ! -f "$dest/.ready" ]; then
    mkdir -p "$dest"
    (
      flock 9
      if [ ! -f "$dest/.ready" ]; then
        find "drivers/$name" -maxdepth 1 -type f -exec cp {} "$dest/" \;
        bash "$dest/setup" "$dest" </dev/null >/dev/null || { echo "setup-drivers.sh: $name: its setup failed (above)" >&2; exit 1; }
        : >"$dest/.ready"
      fi
    ) 9>"$cache/drivers/$name/.lock"
  fi
  echo "setup       $name: $(took "$t") s ($dest)"
}

# Setups run side by side, as many as there are cores, the longest first: each driver's cost
# is mostly one compiler compiling the one SQLite it carries, on one core, so two setups at a
# time keep a 2-core machine busy where one would leave a core idle.
for name in "${names[@]}"; do
  [ -f "drivers/$name/command" ] || { echo "setup-drivers.sh: no driver drivers/$name (a folder with a command file)" >&2; exit 2; }
done
order=()
for first in node-better-sqlite3 go-mattn go-modernc go-ncruces; do
  for name in "${names[@]}"; do [ "$name" = "$first" ] && order+=("$name"); done
done
for name in "${names[@]}"; do
  case " ${order[*]} " in *" $name "*) ;; *) order+=("$name") ;; esac
done
pids=()
for name in "${order[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
  setup_one "$name" &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
[ $failed = 0 ] || { echo "setup-drivers.sh: a driver's setup failed (above)" >&2; exit 1; }

for name in "${names[@]}"; do
  dest=$(ls -d "$cache/drivers/$name/$(digest "$name")")
  read -ra command <"$dest/command"
  t=$(now)
  if [[ $name == noop-* ]]; then
    if python3 drivers/conformance.py "$dest" "${command[@]}" >/dev/null 2>&1; then
      echo "setup-drivers.sh: conformance.py passed the no-op driver $name, which touches no database" >&2
      exit 1
    fi
    echo "conformance $name: refused, as a no-op driver must be ($(took "$t") s)"
  else
    python3 drivers/conformance.py "$dest" "${command[@]}" >/dev/null || { echo "setup-drivers.sh: $name fails conformance.py (above)" >&2; exit 1; }
    echo "conformance $name: passed ($(took "$t") s)"
  fi
done
