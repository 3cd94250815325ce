#!/usr/bin/env python3
"""pgbench's expression language, held against the real pgbench: a generator of expressions and
of `-D` values, each run through pgbench (`pgbench -n -t 1 -f script`) and through `litebench
run script` on SQLite, and every result classified.

Usage: benches/pgbench_differential.py --litebench BIN --pg-args "-h DIR -p PORT -U USER DB"
                                       [--count N] [--seed S] [--show K]
(benches/pgbench-differential.sh starts the throwaway server and calls this.)

Each expression E becomes `\\set r E` and `\\set d debug(:r)`; each `-D` value V a definition
`vK=V` read by `\\set r :vK`. Many go into one script; a tool that stops at an error (a runtime
error names the command or line; a parse error the line) has that expression's result taken as
the error and is run again from the next one. A run that fails without naming one (a bad `-D`)
is run again one expression at a time.

Classes: same (both print the same `debug()` text), same error (both refuse; `words` counts how
many with pgbench's very words), print-only (the same value written differently), differ, and
documented (a difference docs/workloads.md lists on purpose, matched by its pattern below).
Not in CI: CI has no pgbench run.
"""

import argparse
import math
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

# Deliberate differences (docs/workloads.md, "Script syntax against pgbench"), by pattern.
# Each: (reason, test of the expression's text and both results).
DOCUMENTED = [
    ("abs(minint): pgbench wraps it to itself",
     lambda text, pg, lb: "abs(" in text and lb == ("error", "bigint out of range")),
    ("abs(boolean): pgbench reads the boolean's bytes as a double",
     lambda text, pg, lb: "abs(" in text and pg[0] == "value"
     and lb == ("error", "cannot coerce boolean to double")),
]

INTS = ["0", "1", "-1", "2", "3", "7", "10", "63", "64", "-64", "1000", "2147483647",
        "4611686018427387904", "9223372036854775807", "-9223372036854775808", "-9223372036854775807"]
DOUBLES = ["0.0", "-0.0", "1.0", "1.5", "-2.5", "0.5", "2.5", "3.5", "1e3", ".5", "1e308",
           "-1e308", "1e-300", "1e-5", "12.3333334", "9.2233720368547758e18", "(0.0/0)", "(1.0/0)",
           "(-1.0/0)", "1E32", "4.9e-324", "1e-310", "1e-400", "1e400"]
OTHERS = ["TRUE", "FALSE", "NULL"]
BINARY = ["+", "-", "*", "/", "%", "=", "<>", "!=", "<", "<=", ">", ">=", "|", "#", "&", "<<",
          ">>", "AND", "OR"]
FUNCS = [("abs", 1), ("least", None), ("greatest", None), ("int", 1), ("double", 1), ("sqrt", 1),
         ("exp", 1), ("ln", 1), ("pow", 2), ("power", 2), ("mod", 2), ("pi", 0), ("hash", 1),
         ("hash", 2), ("hash_fnv1a", 1), ("hash_fnv1a", 2), ("hash_murmur2", 1),
         ("hash_murmur2", 2), ("permute", 2), ("permute", 3)]

# Written by hand: the cases and the corners of each rule.
EDGES = [
    "2--5", "10 -- note", "2 - -5", "-9223372036854775808", "9223372036854775808",
    "-(-9223372036854775808)", "-9223372036854775807 - 1", "9223372036854775807 + 1",
    "-9223372036854775808 / -1", "-9223372036854775808 % -1", "(1<<62) + (1<<62)",
    "2 * (1<<62)", "0 - (1<<62) - (1<<62) - (1<<62)", "1/0", "1 % 0", "1.0/0", "-1.0/0", "0.0/0",
    "mod(5, 0)", "mod(-9223372036854775808, -1)", "int(1E32)", "int(0.0/0)", "int(1.0/0)",
    "int(-1.0/0)", "int(2.5)", "int(3.5)", "int(-2.5)", "int(9.2233720368547758e18)",
    "int(-9.2233720368547758e18)", "least(1, 0.0/0)", "least(1, 0.0/0, 2)", "least(0.0/0, 1)",
    "least(0.0/0, 1, 2)", "greatest(1, 0.0/0)", "greatest(1, 0.0/0, 2)", "greatest(0.0/0, 1)",
    "least(0.0/0)", "greatest(1, 2, 0.0/0)", "least(3, 2.5, 0.0/0, 1)", "least(1, NULL)",
    "greatest(TRUE, 1)", "least(1)", "abs(-9223372036854775808)", "abs(TRUE)", "abs(FALSE)",
    "abs(-0.0)", "abs(NULL)", "sqrt(-1)", "ln(0)", "ln(-1)", "exp(1000)", "exp(-1000)",
    "pow(0, -1)", "pow(-8, 1.0/3)", "pow(1e308, 2)", "1e308 * 10", "-1e308 * 10", "1e-400",
    "4.9e-324", "1e-310", "2.2250738585072014e-308", "1e400", "1.7976931348623157e308",
    "hash(1)", "hash(1, 5432)", "hash_fnv1a(1)", "hash_murmur2(1)", "permute(1, 10)",
    "permute(1, 0)", "permute(-1, 10, 1)", "permute(5, 1)", "permute(0, -5)",
    "random(1, 1)", "random(5, 3)", "random(-9223372036854775808, 9223372036854775807)",
    "random_gaussian(0, 10, 1.0)", "random_exponential(0, 10, 0.0)", "random_zipfian(0, 10, 1)",
    "random_zipfian(0, 10, 1000000)", "random_zipfian(5, 5, 1.5)", "TRUE + 2", "ln(TRUE)",
    "NOT 0.0", "NOT 1", "1 AND TRUE", "TRUE AND 1", "FALSE AND 1", "TRUE OR 1", "NULL AND 1",
    "NULL OR TRUE", "TRUE AND NULL", "FALSE OR NULL", "1 IS TRUE", "NULL IS NULL",
    "0.0/0 = 0.0/0", "0.0/0 <> 0.0/0", "0.0/0 < 1", "1 < 0.0/0", "0.0/0 <= 0.0/0",
    "1 = 1.0", "9223372036854775807 = 9223372036854775806.0", "1 < 2 < 3", "~0", "~1 + 2",
    "1 << 63", "1 << 64", "1 << -1", "-1 >> 63", "-1 >> 64", "1 << 2 + 1", "-8 >> 1",
    "1.5 | 1", "TRUE | 1", "CASE WHEN 1 THEN 2 END", "CASE WHEN NULL THEN 1 ELSE 2 END",
    "CASE WHEN 0.0/0 THEN 1 ELSE 2 END", "CASE WHEN FALSE THEN 1 END", "CASE TRUE THEN 1 END",
    "least(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16)", "greatest()", "ln(1.0, 2.0)",
    "pi()", "pi() * 4.9", "1e15", "1e14", "123456789012345678.0", "0.0001", "0.00001",
    "1.0e-5 * 3", "100000000000000000000.0", "double(9223372036854775807)",
    "-0.0", "0.0 * -1", "double(-0.0)", "sqrt(-0.0)", "1 / -0.0", "NULL = NULL", "-NULL",
    "NOT NULL", "5 ISNULL", "5 NOTNULL", "NULL IS NOT TRUE", "TRUE IS FALSE", "1.0 IS TRUE",
]

# Values as `-D` gives them, each read by `\set r :v`.
DEFINES = ["7", " 7", "7 ", " 7 ", "+3", "-0", "007", "0x10", "0x1p3", "inf", "-inf", "nan",
           "NaN", "Infinity", "-Infinity", "INF", "1e308", "1e309", "1e-310", "4.9e-324", "1e-400",
           "9223372036854775807", "9223372036854775808", "-9223372036854775808",
           "-9223372036854775809", "99999999999999999999", "abc", "", "t", "f", "tr", "y", "yes",
           "n", "no", "on", "of", "off", "o", "null", "NULL", "Null", "1.5", ".5", "5.", "1e3",
           "  1e3", "1e3 ", "true ", "trueXXX", "1_000", "-", "+", " ", "1.5e", "e5", "0.0",
           "-10.1", "1,5", "\t8"]


def leaf(rng):
    r = rng.random()
    if r < 0.55:
        return rng.choice(INTS)
    if r < 0.9:
        return rng.choice(DOUBLES)
    return rng.choice(OTHERS)


def expr(rng, depth):
    if depth == 0 or rng.random() < 0.25:
        return leaf(rng)
    r = rng.random()
    if r < 0.45:
        op = rng.choice(BINARY)
        return f"({expr(rng, depth - 1)} {op} {expr(rng, depth - 1)})"
    if r < 0.55:
        op = rng.choice(["-", "+", "~", "NOT "])
        return f"{op}({expr(rng, depth - 1)})"
    if r < 0.62:
        test = rng.choice(["IS NULL", "IS NOT NULL", "IS TRUE", "IS FALSE", "IS NOT TRUE",
                           "ISNULL", "NOTNULL"])
        return f"({expr(rng, depth - 1)} {test})"
    if r < 0.68:
        arms = " ".join(f"WHEN {expr(rng, depth - 1)} THEN {expr(rng, depth - 1)}"
                        for _ in range(rng.randint(1, 2)))
        other = f" ELSE {expr(rng, depth - 1)}" if rng.random() < 0.6 else ""
        return f"CASE {arms}{other} END"
    name, n = rng.choice(FUNCS)
    if n is None:
        n = rng.randint(1, 4)
    args = [expr(rng, depth - 1) for _ in range(n)]
    if name.startswith("permute") and n >= 2:
        args[1] = rng.choice(["1", "2", "10", "1000", "9223372036854775807", args[1]])
    return f"{name}({', '.join(args)})"


def cases(count, seed):
    """(kind, text): `expr` cases, then `define` cases; deterministic for a seed."""
    rng = random.Random(seed)
    out = [("expr", e) for e in EDGES] + [("define", d) for d in DEFINES]
    seen = set(e for _, e in out)
    while len(out) < count:
        e = expr(rng, rng.randint(1, 3))
        if e not in seen:
            seen.add(e)
            out.append(("expr", e))
    return out


def script(chunk):
    lines = []
    for k, (kind, text) in chunk:
        lines.append(f"\\set r {text}" if kind == "expr" else f"\\set r :v{k}")
        lines.append("\\set d debug(:r)")
    return "\n".join(lines) + "\nSELECT 1;\n"


def defines(chunk):
    return [(f"v{k}", text) for k, (kind, text) in chunk if kind == "define"]


PG_ERR = re.compile(r"^pgbench: error: (.*)$")
PG_PARSE = re.compile(r"^[^:]+\.sql:(\d+): (.*)$")
PG_ABORT = re.compile(r"client 0 aborted in command (\d+) ")
PG_DEBUG = re.compile(r"^debug\(script=0,command=(\d+)\): (.*)$")
LB_DEBUG = re.compile(r"^debug: (.*)$")
LB_RUN_ERR = re.compile(r"\.sql:(\d+): (.*?) \(while running script")
LB_PARSE_ERR = re.compile(r"^error: [^ ]*\.sql:(\d+):\d+: (.*)$")


def run_pgbench(pg_args, path, defs, default_seed):
    cmd = ["pgbench", "-n", "-t", "1", "-f", path, "-D", f"default_seed={default_seed}"]
    for n, v in defs:
        cmd += ["-D", f"{n}={v}"]
    p = subprocess.run(cmd + pg_args, capture_output=True, text=True)
    values, err, line = [], None, None
    for l in p.stderr.splitlines():
        m = PG_DEBUG.match(l)
        if m:
            values.append(m.group(2))
            continue
        m = PG_ERR.match(l)
        if not m:
            continue
        msg = m.group(1)
        a = PG_ABORT.search(msg)
        if a:
            line = int(a.group(1)) + 1
            continue
        if msg.startswith("Run was aborted"):
            continue
        pm = PG_PARSE.match(msg)
        if pm and err is None:
            line, msg = int(pm.group(1)), re.sub(r' in command "\w+"$', "", pm.group(2))
        if err is None:
            err = msg
    return p.returncode, values, err, line


def run_litebench(lb, work, path, defs, default_seed):
    d = ";".join([f"default_seed={default_seed}"] + [f"{n}={v}" for n, v in defs])
    cmd = [lb, "run", "script", "--param", f"file={path}", "--param", "transactions=1",
           "--param", f"define={d}", "--trials", "1", "--warmup", "0", "--quiet", "--format",
           "json", "--dir", work, "--results", os.path.join(work, "r.db")]
    p = subprocess.run(cmd, capture_output=True, text=True)
    values, err, line = [], None, None
    for l in p.stderr.splitlines():
        m = LB_DEBUG.match(l)
        if m:
            values.append(m.group(1))
            continue
        m = LB_RUN_ERR.search(l) or LB_PARSE_ERR.match(l)
        if m and err is None:
            line, err = int(m.group(1)), m.group(2)
        elif l.startswith("error:") and err is None:
            err = l[len("error: "):]
    return p.returncode, values, err, line


def drive(run, items, chunk_size):
    """Each case's result, ('value', text) or ('error', message), through `run`."""
    results = {}
    pending = list(items)
    single = set()
    while pending:
        size = 1 if pending[0][0] in single else chunk_size
        chunk = pending[:size]
        with tempfile.NamedTemporaryFile("w", suffix=".sql", dir=WORK, delete=False) as f:
            f.write(script(chunk))
        rc, values, err, line = run(f.name, defines(chunk))
        os.unlink(f.name)
        for (k, _), v in zip(chunk, values):
            results[k] = ("value", v)
        if rc == 0 and len(values) >= len(chunk):
            pending = pending[len(chunk):]
            continue
        if line is not None and 1 <= line <= 2 * len(chunk):
            at = (line - 1) // 2
            k = chunk[at][0]
            results[k] = ("error", err or "(no message)")
            if len(values) >= at:
                pending = pending[at + 1:]
            else:  # a parse error: nothing ran, run the rest again
                pending = [c for c in pending if c[0] != k]
            continue
        if len(chunk) == 1:
            results[chunk[0][0]] = ("error", err or f"(exit {rc}, no message)")
            pending = pending[1:]
            continue
        single.update(k for k, _ in chunk[len(values):])
        pending = pending[len(values):]
    return results


def number(text):
    kind, _, v = text.partition(" ")
    if kind == "int":
        return ("n", float(int(v)))
    if kind == "double":
        low = v.lower()
        if "nan" in low:
            return ("nan", 0)
        if "inf" in low:
            return ("n", -math.inf if low.startswith("-") else math.inf)
        return ("n", float(v))
    return (text, 0)


def classify(text, pg, lb):
    if pg == lb:
        return "same" if pg[0] == "value" else "same error"
    if pg[0] == "error" and lb[0] == "error":
        return "same error"
    for _, known in DOCUMENTED:
        if known(text, pg, lb):
            return "documented"
    if pg[0] == "value" and lb[0] == "value" and pg[1].split(" ")[0] == lb[1].split(" ")[0]:
        if number(pg[1]) == number(lb[1]):
            return "print-only"
    return "differ"


WORK = None


def main():
    global WORK
    ap = argparse.ArgumentParser()
    ap.add_argument("--litebench", required=True)
    ap.add_argument("--pg-args", required=True)
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=47)
    ap.add_argument("--chunk", type=int, default=150)
    ap.add_argument("--show", type=int, default=40, help="cases shown per class")
    a = ap.parse_args()
    WORK = tempfile.mkdtemp(prefix="pgbench-diff-")
    seed = 5432
    items = list(enumerate(cases(a.count, a.seed)))
    pg_args = shlex.split(a.pg_args)
    try:
        pg = drive(lambda p, d: run_pgbench(pg_args, p, d, seed), items, a.chunk)
        lb = drive(lambda p, d: run_litebench(a.litebench, WORK, p, d, seed), items, a.chunk)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    counts = {c: 0 for c in ["same", "same error", "print-only", "differ", "documented"]}
    words = 0
    shown = {c: [] for c in counts}
    for k, (kind, text) in items:
        what = text if kind == "expr" else f"-D v={text!r}"
        c = classify(text if kind == "expr" else "", pg[k], lb[k])
        counts[c] += 1
        if c == "same error" and pg[k] == lb[k]:
            words += 1
        shown[c].append(f"{c:10}  {what}\n            pgbench:   {pg[k][0]} {pg[k][1]}\n            litebench: {lb[k][0]} {lb[k][1]}")
    for c in ["differ", "print-only", "documented", "same error"]:
        for line in shown[c][: a.show]:
            print(line)
    print(f"\n{len(items)} cases ({sum(1 for _, (k, _) in items if k == 'define')} -D values), seed {a.seed}")
    for c, n in counts.items():
        extra = f" ({words} in pgbench's words)" if c == "same error" else ""
        print(f"  {c:11} {n}{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
