#!/usr/bin/env python3
"""The docs' tables, generated from the code's own tables.

  python3 tests/tools/gen_docs.py --build BUILD          rewrite them
  python3 tests/tools/gen_docs.py --build BUILD --check  fail (1) when they drift

Each generated block sits between `<!-- generated: NAME -->` and
`<!-- end generated -->` in a page of docs/:
  verbs   (docs/language.md)     every verb of the registry, as `help` lists them,
                                 with its syntax line from `help VERB`;
  gpus    (docs/gpu-catalog.md)  every GPU of src/catalog/gpus.json;
  schemes (docs/quantised-weights.md) every format of `help format` (the vocabulary's
                                 plain widths and schemes, from src/sheet/vocab.c's tables);
  layout  (docs/sheet-layout.md) every key of the sheet's top level, card, card.engine,
                                 placement and component, with its type and description,
                                 from records/sheet.schema.json.
ctest runs the check (docs.drift), so a verb or GPU added to the code without the
docs fails the build's tests until this script is run.
"""
import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BLOCK = re.compile(r"(<!-- generated: (\w+) -->\n)(.*?)(<!-- end generated -->)", re.S)


def run_cells(binary, cells):
    with tempfile.TemporaryDirectory(prefix="vs-docs-") as tmp:
        path = os.path.join(tmp, "help.vs")
        with open(path, "w") as f:
            f.write("\n# %%\n".join(cells) + "\n")
        env = dict(os.environ, VRAMSHEET_RECORDS=os.path.join(tmp, "records"))
        out = subprocess.run([binary, "run", path], capture_output=True, text=True, env=env, cwd=tmp)
        if out.returncode != 0:
            sys.exit("gen_docs: `vramsheet run` failed: " + out.stderr[-2000:])
        return out.stdout


def verbs_table(binary):
    listing = run_cells(binary, ["help"])
    rows = []
    group = ""
    for line in listing.splitlines():
        m = re.match(r"^(\S+)?\s+(\S+)\s{2,}(.+)$", line)
        if not m or line.startswith("group") or set(line) <= {"-"}:
            continue
        if m.group(1) and len(line) - len(line.lstrip()) == 0 and line.split()[0] != m.group(2):
            group = m.group(1)
        elif m.group(1):
            group = m.group(1)
        rows.append([group, m.group(2), m.group(3).strip()])
    # one cell per verb, in the listing's order: its first line is the syntax
    syntax = []
    for _, verb, _ in rows:
        out = run_cells(binary, ["help " + verb])
        syntax.append(out.strip().splitlines()[0].strip())
    lines = ["| group | verb | syntax | what it does |", "| --- | --- | --- | --- |"]
    for (group, verb, summary), syn in zip(rows, syntax):
        lines.append("| %s | `%s` | `%s` | %s |" % (group, verb, syn.replace("|", "\\|"), summary.replace("|", "\\|")))
    return "\n".join(lines) + "\n"


SCHEME_HEADERS = ["format", "keys", "bits", "bits per weight (scales included)", "kept unquantised", "kind"]


def schemes_table(binary):
    out = run_cells(binary, ["help format"]).splitlines()
    start = next(i for i, l in enumerate(out) if l.startswith("format ") and "kept unquantised" in l)
    head = out[start]
    cols = [head.index(h) for h in SCHEME_HEADERS] + [None]
    lines = ["| " + " | ".join(SCHEME_HEADERS) + " |", "|" + "---|" * len(SCHEME_HEADERS)]
    for row in out[start + 2:]:
        if not row.strip():
            break
        cells = [row[cols[k]:cols[k + 1]].strip() for k in range(len(SCHEME_HEADERS))]
        cells[0] = "`%s`" % cells[0]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def capture_link(source):
    m = re.search(r"https://github\.com/([^/\s]+)/([^/\s]+)/(?:issues|pull)/(\d+)", source or "")
    if not m:
        return "no public capture found"
    return "[%s#%s](%s)" % (m.group(2), m.group(3), m.group(0))


def gpus_table():
    with open(os.path.join(ROOT, "src", "catalog", "gpus.json")) as f:
        gpus = json.load(f)["gpus"]
    lines = ["| GPU | vendor | nominal | nvidia-smi total | ECC | capture | unified memory |",
             "|---|---|---|---|---|---|---|"]
    for g in gpus:
        total = "%d MiB" % g["reported_mib"] if g.get("reported_mib") else "unknown"
        ecc = g.get("ecc") or ""
        u = g.get("unified")
        if u:
            what = u.get("gpu_printed") or ("host %s GB" % u["host_gb"] if u.get("host_gb") else "")
            unified = "%s: %s ([source](%s))" % (u["kind"], what, u["source"])
        else:
            unified = ""
        lines.append("| %s | %s | %s GB | %s | %s | %s | %s |" % (
            g["name"], g.get("vendor", ""), g["memory_gb"], total, ecc,
            capture_link(g.get("reported_source")) if g.get("reported_mib") else "no public capture found",
            unified))
    return "\n".join(lines) + "\n"


def schema_type(s):
    """A property's type in words, from its schema: its $ref, enum, type or oneOf."""
    ref = s.get("$ref", "")
    named = {"#/$defs/bytes": "bytes (integer)", "#/$defs/bytes_or_null": "bytes (integer) or null",
             "#/$defs/count_or_null": "integer or null"}
    if ref:
        return named[ref]
    if "enum" in s:
        return " or ".join("null" if v is None else '"%s"' % v for v in s["enum"])
    if "oneOf" in s:
        return " or ".join(schema_type(alt) for alt in s["oneOf"])
    kinds = s.get("type", "any")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "pattern" in s and kinds == ["string"]:
        return "string `%s`" % s["pattern"]
    return " or ".join(kinds)


def layout_table():
    with open(os.path.join(ROOT, "records", "sheet.schema.json")) as f:
        top = json.load(f)["properties"]

    def props(s):
        """An object's properties, or those of the object branch of a oneOf (null or object)."""
        return s.get("properties") or next(alt["properties"] for alt in s["oneOf"] if "properties" in alt)

    card = props(top["card"])
    sections = [("", top), ("card.", card), ("card.engine.", props(card["engine"])),
                ("placement.", props(top["placement"])),
                ("components[].", props(top["components"]["items"]))]
    lines = ["| key | type | what it holds |", "|---|---|---|"]
    for prefix, section in sections:
        for key, s in section.items():
            lines.append("| `%s%s` | %s | %s |" % (prefix, key, schema_type(s).replace("|", "\\|"),
                                                  s.get("description", "").replace("|", "\\|")))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="the build folder holding the vramsheet binary")
    ap.add_argument("--check", action="store_true", help="fail when a page differs instead of rewriting it")
    args = ap.parse_args()
    binary = os.path.join(os.path.abspath(args.build), "vramsheet")
    makers = {"verbs": lambda: verbs_table(binary), "gpus": gpus_table,
              "schemes": lambda: schemes_table(binary), "layout": layout_table}
    drift = 0
    seen = set()
    docs = os.path.join(ROOT, "docs")
    for name in sorted(os.listdir(docs)):
        if not name.endswith(".md"):
            continue
        path = os.path.join(docs, name)
        with open(path) as f:
            text = f.read()

        def fill(m):
            seen.add(m.group(2))
            if m.group(2) not in makers:
                sys.exit("gen_docs: %s: unknown generated block %r" % (name, m.group(2)))
            return m.group(1) + makers[m.group(2)]() + m.group(4)

        new = BLOCK.sub(fill, text)
        if new != text:
            if args.check:
                drift += 1
                sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                                           "docs/" + name, "docs/" + name + " (from the code)"))
            else:
                with open(path, "w") as f:
                    f.write(new)
                print("gen_docs: rewrote docs/" + name)
    missing = set(makers) - seen
    if missing:
        sys.exit("gen_docs: no page holds the generated block(s) %s" % ", ".join(sorted(missing)))
    if drift:
        print("\ndocs drifted from the code: run `python3 tests/tools/gen_docs.py --build BUILD`")
        return 1
    print("gen_docs: docs match the code's tables" if args.check else "gen_docs: done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
