"""The product's words stand alone: no help text, message, table, notebook or
record cites files a user of vramsheet does not have (the specification, the
project's internal notes, the seed documents) or their rule numbers.

Checked: every string literal of src/ and kernel/ C sources (adjacent literals
joined, so a phrase split over two lines is still seen), every string literal
of kernel/ Python, and the whole text of the JSON files under src/ and
kernel/, the notebooks and records/examples. Comments are not product text and
are not checked.

Run by ctest (tests/lang/build.cmake): python3 check_words.py ROOT
"""
import io
import os
import re
import sys
import tokenize

PATTERNS = [
    (re.compile(r"\bSPEC\b"), "the specification"),
    (re.compile(r"SPEC\.md|NOTES\.md|\bNOTES\b"), "internal notes"),
    (re.compile(r"\b[Rr]ule \d+"), "a rule number"),
    (re.compile(r"\u00a7"), "a section sign"),
    (re.compile(r"\b[Ss]eeds? \d+\b"), "a seed document"),
    (re.compile(r"\bthe seeds\b"), "the seed documents"),
]

# The GPU catalogue's references are being replaced by public sources (driver
# output, vendor documents) in the catalogue's own work; add it here when that
# lands. Everything else is checked.
EXCLUDED = {os.path.join("src", "catalog", "gpus.json")}


def c_literals(text):
    """String literals of C text, adjacent ones joined, with their line."""
    out, i, n, line = [], 0, len(text), 1
    pending, pending_line, last_end = None, 0, -1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
        elif c == "'":
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif c == '"':
            j, buf = i + 1, []
            while j < n and text[j] != '"':
                if text[j] == "\\":
                    buf.append(text[j:j + 2])
                    j += 2
                else:
                    buf.append(text[j])
                    j += 1
            lit = "".join(buf)
            between = text[last_end:i] if last_end >= 0 else "x"
            if pending is not None and between.strip() == "":
                pending += lit
            else:
                if pending is not None:
                    out.append((pending_line, pending))
                pending, pending_line = lit, line
            i = j + 1
            last_end = i
        else:
            i += 1
    if pending is not None:
        out.append((pending_line, pending))
    return out


def py_literals(text):
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.STRING:
            out.append((tok.start[0], tok.string))
    return out


def whole(text):
    return [(k + 1, ln) for k, ln in enumerate(text.splitlines())]


def pieces(path, rel):
    if not rel.endswith((".c", ".h", ".py", ".json", ".ipynb", ".md")):
        return []  # never read: the notebooks' sparse weights files are gigabytes
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    if rel.endswith((".c", ".h")):
        # comments too: a header's contract is read by whoever uses the module
        return whole(text)
    if rel.endswith(".py"):
        return py_literals(text)
    if rel.endswith((".json", ".ipynb", ".md")):
        return whole(text)
    return []


def files(root):
    for top in ("src", "kernel", "notebooks", "records"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                path = os.path.join(d, name)
                rel = os.path.relpath(path, root)
                if rel in EXCLUDED:
                    continue
                yield path, rel


def self_test():
    """The checker itself: it must see a citation split over literals, and
    not a comment or a model name."""
    sample = ('/* SPEC rule 8, a comment */\n'
              'static const char a[] = "see the "\n    "SPEC \\u00a72";\n'
              'static const char b[] = "what to examine (rule 8)";\n'
              'static const char c[] = "Seed 7B inference, seed-7b";\n'
              "char q = '\"'; // \"rule 9\" in a comment\n")
    lits = c_literals(sample)
    found = [(ln, t) for ln, t in lits for rx, _ in PATTERNS if rx.search(t)]
    assert [ln for ln, _ in found] == [2, 4], (lits, found)
    assert any("see the SPEC" in t for _, t in lits), lits
    assert py_literals('x = "NOTES.md"  # SPEC\n') == [(1, '"NOTES.md"')]
    print("self-test: ok")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    bad, seen = [], 0
    for path, rel in files(root):
        seen += 1
        for line, text in pieces(path, rel):
            for rx, what in PATTERNS:
                m = rx.search(text)
                if m:
                    bad.append("%s:%d: cites %s (%r): %s" % (rel, line, what, m.group(0),
                                                               text.strip()[:160]))
    if seen < 50:
        print("only %d files found under %s: wrong root?" % (seen, root))
        return 1
    for b in bad:
        print(b)
    print("%d files checked, %d citations of internal documents" % (seen, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
