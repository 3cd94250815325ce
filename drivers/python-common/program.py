"""Protocol 3's steps that read what earlier steps of their transaction returned, shared by the
Python drivers (each names python-common in its `includes`).

A step is [id, params] or [id, params, {"each": S, "need": true, "keep": true}]; a parameter
{"ref": [S, C]} binds column C of a row step S returned: the row an `each` of S runs over, else
S's first. A run of consecutive steps with the same `each` runs once per row of S, in order; a
`need` step that returns no row ends the transaction there; a `keep` step's rows go back in the
batch's answer. A parameter {"now_us": OFFSET} binds the driver's wall clock when the try
started, in microseconds since the Unix epoch, plus OFFSET (a job's enqueue time). A queue worker's claim is such a transaction: select the ready jobs, then per job
insert its claimed execution, load it back and delete the ready one.

Plain transactions never come here: the drivers' own loops run them as before, so this costs
them nothing. `execute(text, params)` is the driver's: it runs one statement and returns the
rows it returned (a list, or None for a statement that returns none) and the rows it changed.
"""

import base64
import time


class Ref:
    """{"ref": [step, column]}: a value an earlier step returned, bound when its step runs."""

    __slots__ = ("step", "column")

    def __init__(self, step, column):
        self.step, self.column = int(step), int(column)


class Now:
    """{"now_us": offset}: the wall clock in microseconds when the try started, plus offset."""

    __slots__ = ("offset",)

    def __init__(self, offset):
        self.offset = int(offset)


def is_ref(v):
    return isinstance(v, dict) and "ref" in v


def is_now(v):
    return isinstance(v, dict) and "now_us" in v


def param(v, plain):
    """A step's parameter decoded: a Ref, a Now, or `plain(v)`, the driver's own decoding."""
    if is_ref(v):
        return Ref(*v["ref"])
    if is_now(v):
        return Now(v["now_us"])
    return plain(v)


def prepare(steps):
    """Each step's options (None for a plain step), with `collect` set on every step whose rows
    a later step reads (its `each` or a Ref), decoded before any timing."""
    opts = [dict(s[2]) if len(s) > 2 and s[2] else None for s in steps]
    read = set()
    for s, o in zip(steps, opts):
        if o and o.get("each") is not None:
            read.add(int(o["each"]))
        for p in s[1]:
            if is_ref(p):
                read.add(int(p["ref"][0]))
    for k in read:
        if 0 <= k < len(opts):
            opts[k] = dict(opts[k] or {}, collect=True)
    return opts


def fancy(steps):
    """Whether a transaction's steps need this module (any option or Ref)."""
    return any(len(s) > 2 and s[2] for s in steps) or any(is_ref(p) or is_now(p) for s in steps for p in s[1])


def _bind(params, got, each, row_of_each, now):
    out = []
    for p in params:
        if isinstance(p, Now):
            p = now + p.offset
        elif isinstance(p, Ref):
            row = row_of_each if p.step == each else None
            if row is None:
                rows = got.get(p.step)
                row = rows[0] if rows else None
            p = row[p.column] if row is not None and p.column < len(row) else None
        out.append(p)
    return out


def run(steps, execute, kept, stepped):
    """Runs a transaction's steps: `steps` as (text, params, opts) with Refs decoded. Appends the
    kept rows to `kept` as [step, row]; sets stepped[0] once a step ran. Returns (rows, last)."""
    got = {}
    total = last = 0
    now = time.time_ns() // 1000
    i, n = 0, len(steps)

    def one(k, each, row):
        text, params, opts = steps[k]
        rows, changed = execute(text, _bind(params, got, each, row, now))
        stepped[0] = True
        if rows is None:
            return 0, changed
        if opts:
            if opts.get("collect"):
                got.setdefault(k, []).extend(rows)
            if opts.get("keep"):
                kept.extend([k, list(r)] for r in rows)
        return len(rows), len(rows)

    while i < n:
        opts = steps[i][2]
        each = opts.get("each") if opts else None
        if each is not None:
            j = i
            while j < n and steps[j][2] and steps[j][2].get("each") == each:
                j += 1
            for row in got.get(int(each), ()):
                for k in range(i, j):
                    returned, last = one(k, int(each), row)
                    total += returned
            i = j
            continue
        returned, last = one(i, None, None)
        total += returned
        if opts and opts.get("need") and returned == 0:
            return total, 0
        i += 1
    return total, last


def jsonable(row):
    """A kept row's values as the protocol writes them (bytes as {"blob": base64})."""
    return [{"blob": base64.b64encode(v).decode()} if isinstance(v, (bytes, bytearray, memoryview)) else v
            for v in row]
