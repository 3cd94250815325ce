#!/usr/bin/env python3
"""Finds every SQLite amalgamation the package registries hold, and writes litebench's catalogue.

Usage: benches/sqlite-releases.py DOCSRC_PAGES_DIR WORK_DIR > src/engines/sqlite/compiled/sources.tsv

Not run by CI: it downloads a few gigabytes (every candidate archive once, kept in WORK_DIR so a
second run reads them from disk). DOCSRC_PAGES_DIR is the `pages/` folder of SQLite's
documentation sources (changes.in: the published SHA3-256 or SHA1 of each release's sqlite3.c).

For each registry it enumerates the package's versions, downloads each archive, computes the
archive's SHA-256, finds the amalgamation in it (npm `sqlite3`'s `deps/sqlite-autoconf-N.tar.gz`
is a tarball inside the tarball; go-sqlite3's `sqlite3-binding.c` is stripped of its
`#ifndef USE_LIBSQLITE3` wrapper), reads its `#define SQLITE_VERSION` and `SQLITE_SOURCE_ID`
date, and computes the extracted file's SHA3-256 and SHA1. A file is called pristine when it
equals the published hash of its release, or, where none is published, the file of the same
release from a package that ships sqlite.org's own tarball (npm `sqlite3`'s autoconf tarballs);
otherwise modified. The output is one row per (release, archive), the best archive first:

  release  date  registry  package  version  sha256  member  sqlite3_c_sha3  pristine  published

`pristine`: upstream, wrapped (go-sqlite3: upstream after stripping) or modified; `published`:
sha3, sha1 (the file matched the release notes' value), or none (no value published for it).
The release list with dates comes from the release notes as well (releases.tsv, written to
WORK_DIR/releases.tsv).
"""

import concurrent.futures
import hashlib
import io
import json
import os
import re
import sys
import tarfile
import urllib.request
import zipfile

DOCS, WORK = sys.argv[1], sys.argv[2]
os.makedirs(os.path.join(WORK, "archives"), exist_ok=True)


def get(url):
    with urllib.request.urlopen(url, timeout=120) as r:
        return r.read()


def cached(url, name):
    path = os.path.join(WORK, "archives", name)
    if not os.path.exists(path):
        data = get(url)
        with open(path + ".part", "wb") as f:
            f.write(data)
        os.rename(path + ".part", path)
    with open(path, "rb") as f:
        return f.read()


def vkey(v):
    return tuple(int(x) for x in re.findall(r"\d+", v)[:4])


# --- candidates: (registry, package, version, url, file name) ---
cands = []
for pkg in ["sqlite3", "better-sqlite3"]:
    meta = json.loads(get(f"https://registry.npmjs.org/{pkg}"))
    for v, m in meta["versions"].items():
        if "-" in v:
            continue
        cands.append(("npm", pkg, v, m["dist"]["tarball"], f"npm-{pkg}-{v}.tgz"))
for krate in ["libsqlite3-sys", "libsqlite3-hotbundle", "sqlite3-src"]:
    idx = f"https://index.crates.io/{krate[:2]}/{krate[2:4]}/{krate}"
    for line in get(idx).decode().splitlines():
        e = json.loads(line)
        v = e["vers"]
        if "-" in v:
            continue
        cands.append(("crates.io", krate, v, f"https://static.crates.io/crates/{krate}/{krate}-{v}.crate",
                      f"crate-{krate}-{v}.crate"))
GO = "github.com/mattn/go-sqlite3"
tags = set(get(f"https://proxy.golang.org/{GO}/@v/list").decode().split())
# The proxy's list omits tags nobody asked it for; go-sqlite3's own tags v1.0.0 .. v1.13.0.
for minor in range(0, 14):
    tags.add(f"v1.{minor}.0")
for t in sorted(tags):
    if "incompatible" in t:
        continue
    cands.append(("Go proxy", GO, t, f"https://proxy.golang.org/{GO}/@v/{t}.zip", f"go-{t}.zip"))
py = json.loads(get("https://pypi.org/pypi/sqlean.py/json"))
for v, files in py["releases"].items():
    for f in files:
        if f["packagetype"] == "sdist":
            cands.append(("PyPI", "sqlean.py", v, f["url"], f["filename"]))


def strip_go(b):
    first = b"#ifndef USE_LIBSQLITE3\n"
    if not b.startswith(first):
        return None
    end = b.rfind(b"\n#else // USE_LIBSQLITE3")
    if end < 0:
        return None
    return b[len(first):end + 1]


def amalgamations(kind, data):
    """(member, bytes) of each sqlite3.c in the archive."""
    out = []
    if kind == "Go proxy":
        z = zipfile.ZipFile(io.BytesIO(data))
        for n in z.namelist():
            if n.split("/")[-2].startswith("go-sqlite3@") and n.endswith("/sqlite3-binding.c"):
                s = strip_go(z.read(n))
                if s is not None:
                    out.append((n, s))
        return out
    if data[:2] == b"PK":
        z = zipfile.ZipFile(io.BytesIO(data))
        for n in z.namelist():
            if n.endswith("/sqlite3.c"):
                out.append((n, z.read(n)))
        return out
    t = tarfile.open(fileobj=io.BytesIO(data))
    for m in t.getmembers():
        if not m.isfile():
            continue
        n = m.name
        # SQLCipher and sqleet are encryption forks shipped beside SQLite, not SQLite as
        # released (sqleet's 3.25.1 includes <stropts.h>, which glibc no longer has).
        forks = ("sqlcipher", "sqleet")
        if n.endswith("/sqlite3.c") and not any(f in n for f in forks) and "/test" not in n:
            out.append((n, t.extractfile(m).read()))
        elif re.search(r"sqlite-autoconf-\d+\.tar\.gz$", n):
            inner = tarfile.open(fileobj=io.BytesIO(t.extractfile(m).read()))
            for im in inner.getmembers():
                if im.isfile() and im.name.endswith("/sqlite3.c") and im.name.count("/") == 1:
                    out.append((n + ">" + im.name, inner.extractfile(im).read()))
    return out


def declared(b):
    head = b[:4 << 20].decode("latin-1")
    v = re.search(r'^#define SQLITE_VERSION\s+"([0-9.]+)"', head, re.M)
    d = re.search(r'^#define SQLITE_SOURCE_ID\s+"(\d{4}-\d\d-\d\d)', head, re.M)
    return (v.group(1) if v else None, d.group(1) if d else None)


def examine(c):
    reg, pkg, v, url, name = c
    try:
        data = cached(url, name)
    except Exception as e:  # a version the registry no longer serves
        print(f"skip {reg} {pkg} {v}: {e}", file=sys.stderr)
        return []
    sha = hashlib.sha256(data).hexdigest()
    rows = []
    try:
        found = amalgamations(reg, data)
    except Exception as e:
        print(f"skip {reg} {pkg} {v}: {e}", file=sys.stderr)
        return []
    for member, b in found:
        ver, date = declared(b)
        if not ver:
            continue
        rows.append(dict(release=ver, date=date, registry=reg, package=pkg, version=v, sha256=sha,
                         member=member, sha3=hashlib.sha3_256(b).hexdigest(),
                         sha1=hashlib.sha1(b).hexdigest(), size=len(b)))
    return rows


with concurrent.futures.ThreadPoolExecutor(8) as ex:
    rows = [r for rs in ex.map(examine, cands) for r in rs]
print(f"{len(cands)} archives examined, {len(rows)} amalgamations", file=sys.stderr)

# --- published hashes and dates from the release notes ---
changes = open(os.path.join(DOCS, "changes.in"), encoding="utf-8", errors="replace").read()
published = {}
for m in re.finditer(r"chng\s*\{(\d{4}-\d\d-\d\d) \(([0-9.]+)\)\}(.*?)(?=\nchng\s*\{|\Z)", changes, re.S):
    date, ver, body = m.groups()
    s3 = re.search(r"SHA3-256 for sqlite3\.c:\s*([0-9a-f]{64})", body)
    s1 = re.search(r"SHA1 for sqlite3\.c:\s*([0-9a-f]{40})", body)
    published[ver] = dict(date=date, sha3=s3.group(1) if s3 else "", sha1=s1.group(1) if s1 else "")

# Releases: every one the notes list from 3.7.7.1 on, and every one a registry holds.
releases = {}
for ver, p in published.items():
    if vkey(ver) >= vkey("3.7.7.1"):
        releases[ver] = dict(date=p["date"], sha3=p["sha3"], sha1=p["sha1"])
for r in rows:
    if r["release"] not in releases and vkey(r["release"]) >= vkey("3.7.7.1"):
        releases[r["release"]] = dict(date=r["date"], sha3="", sha1="")
with open(os.path.join(WORK, "releases.tsv"), "w") as f:
    f.write("# release\tdate\tsha3_256 of sqlite3.c (release notes)\tsha1 (older notes)\n")
    for ver in sorted(releases, key=vkey):
        r = releases[ver]
        f.write(f"{ver}\t{r['date']}\t{r['sha3'] or '-'}\t{r['sha1'] or '-'}\n")

# Files known upstream where nothing is published: npm sqlite3's sqlite.org autoconf tarballs.
upstream_by_tarball = {(r["release"], r["sha3"]) for r in rows if ">" in r["member"]}


def classify(r):
    p = releases.get(r["release"], {})
    if p.get("sha3"):
        ok, how = r["sha3"] == p["sha3"], "sha3"
    elif p.get("sha1"):
        ok, how = r["sha1"] == p["sha1"], "sha1"
    else:
        ok, how = (r["release"], r["sha3"]) in upstream_by_tarball, "none"
        if not ok:
            # Agreeing with another package's file of the same release is all we can say.
            ok = sum(1 for q in rows if q["release"] == r["release"] and q["sha3"] == r["sha3"]
                     and q["package"] != r["package"]) > 0 and r["package"] != "better-sqlite3"
    kind = ("wrapped" if r["registry"] == "Go proxy" else "upstream") if ok else "modified"
    return kind, how if ok else ("none" if how == "none" else how + "-differs")


RANK = {"npm:sqlite3": 0, "crates.io:libsqlite3-sys": 1, "crates.io:sqlite3-src": 2,
        "crates.io:libsqlite3-hotbundle": 3, "Go proxy:" + GO: 4, "PyPI:sqlean.py": 5,
        "npm:better-sqlite3": 6}
out = []
for r in rows:
    if r["release"] not in releases:
        continue
    kind, how = classify(r)
    r.update(pristine=kind, published=how)
    out.append(r)
# One row per (release, archive), best first: pristine before modified, checked before not, a
# registry's earliest package version of that release first (fewest later fixes in it).
seen = set()
best = []
for r in sorted(out, key=lambda r: (vkey(r["release"]), r["pristine"] == "modified",
                                    r["published"] == "none", RANK[r["registry"] + ":" + r["package"]],
                                    vkey(r["version"]))):
    k = (r["release"], r["registry"], r["package"])
    if k in seen:
        continue  # one archive per package and release is enough
    seen.add(k)
    best.append(r)
print("# release\tregistry\tpackage\tversion\tarchive sha256\tmember\tsqlite3.c sha3_256\tpristine\tpublished")
for r in best:
    print("\t".join([r["release"], r["registry"], r["package"], r["version"], r["sha256"], r["member"],
                     r["sha3"], r["pristine"], r["published"]]))
