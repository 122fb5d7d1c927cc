#!/usr/bin/env python3
"""The sheet's keys are named once (src/sheet/sheet_keys.def, read through
src/sheet/sheet_access.h): a new literal-key lookup into the sheet outside the
access module fails here.

    check_sheet_keys.py SRC_ROOT        the check (ctest layers.sheet_keys)
    check_sheet_keys.py --count ROOT    the counts per folder, and the lookups
    check_sheet_keys.py --self-test

A lookup is json_object_get(X, "KEY") or vs_json_str_of(X, "KEY") where KEY is
one of the record's own keys, read from records/sheet.schema.json (the layout's
one description): a key of the top level with any receiver (the few a nested
object shares, `id`, `components`, ... only on a receiver named as a sheet), a
key of the card on a receiver named for the card, a key of the placement on one
named for the placement. Nested lookups are read inside out. It is a reading of
the text, not of the types: a card held in a variable named otherwise is not
seen. Every folder of src/ holds none: one lookup anywhere fails the check.
"""
import json
import os
import re
import sys

# the access module itself, which names the keys through the table
EXEMPT = {"sheet/sheet_access.c"}

SHARED = {"id", "components", "card", "title", "schema", "measurements", "gpus"}
SHEETY = re.compile(r"^(sheet\w*|s|old|fresh|rec|open|loaded|cur|vs_ctx_sheet\(ctx\)|"
                    r"vs_verb_sheet\w*\(.*\)|p->sheet)$")
LOOKUP = re.compile(r'(json_object_get|vs_json_str_of)\(\s*((?:[^;()]|\((?:[^;()]|\([^;()]*\))*\))*?)'
                    r',\s*"([a-z_]+)"\s*\)')


def keys_of(schema):
    p = schema["properties"]
    return set(p), set(p["card"]["properties"]), set(p["placement"]["properties"])


def lookups(text, keys):
    """The literal lookups into the sheet in text: [(line, the call)]."""
    top, card, placement = keys
    out = []

    def walk(t, base):
        for m in LOOKUP.finditer(t):
            recv, k = m.group(2).strip(), m.group(3)
            hit = ((k in top and (k not in SHARED or SHEETY.match(recv))) or
                   (k in card and "card" in recv) or
                   (k in placement and ("placement" in recv or recv == "pl")))
            if hit:
                out.append((text.count("\n", 0, base + m.start()) + 1, m.group(0)))
            walk(m.group(2), base + m.start(2))

    walk(text, 0)
    return out


def count(root):
    with open(os.path.join(root, "records", "sheet.schema.json")) as f:
        keys = keys_of(json.load(f))
    found = {}
    src = os.path.join(root, "src")
    for d, _, files in sorted(os.walk(src)):
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(d, name), src)
            if not name.endswith(".c") or rel in EXEMPT:
                continue
            with open(os.path.join(d, name)) as f:
                for line, call in lookups(f.read(), keys):
                    found.setdefault(rel.split("/")[0], []).append("src/%s:%d: %s" %
                                                                   (rel, line, call))
    return found


def problems(found):
    """What the check prints for found (count's answer): one entry per folder
    holding a lookup; none when there are none."""
    return ["src/%s: %d literal lookups into the sheet: read the key through "
            "sheet/sheet_access.h (vs_sheet_get, vs_sheet_card_get, ...)\n  %s"
            % (folder, len(found[folder]), "\n  ".join(found[folder]))
            for folder in sorted(found)]


def self_test():
    keys = ({"card", "weights_files", "id", "runs"}, {"format", "arch"}, {"gpus", "kind"})
    text = ('a = json_object_get(sheet, "weights_files");\n'
            'b = json_object_get(json_object_get(vs_sheet_card(sheet), "arch"), "layers");\n'
            'c = json_object_get(run, "id");\n'
            'd = vs_json_str_of(card, "format");\n'
            'e = json_object_get(pl, "gpus");\n'
            'f = json_object_get(x, "name");\n'
            'g = json_object_get(s, "id");\n')
    got = [line for line, _ in lookups(text, keys)]
    assert got == [1, 2, 4, 5, 7], got
    # the rule: a tree with no lookup passes, one lookup in any folder fails
    assert problems({}) == [], problems({})
    one = {"model": ["src/model/x.c:3: json_object_get(sheet, \"weights_files\")"]}
    bad = problems(one)
    assert len(bad) == 1 and bad[0].startswith("src/model: 1 literal lookups"), bad
    assert "src/model/x.c:3:" in bad[0], bad


def main():
    if sys.argv[1:2] == ["--self-test"]:
        self_test()
        return 0
    listing = sys.argv[1:2] == ["--count"]
    args = sys.argv[2:] if listing else sys.argv[1:]
    if len(args) != 1:
        print(__doc__.split("\n\n")[1])
        return 2
    found = count(args[0])
    if listing:
        for folder in sorted(found):
            print("src/%s: %d" % (folder, len(found[folder])))
            for f in found[folder]:
                print("  " + f)
        print("%d literal lookups into the sheet" % sum(len(v) for v in found.values()))
        return 0
    bad = problems(found)
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
