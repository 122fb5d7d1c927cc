"""The shape of src/ holds: files that hold one concept stay short, and exported
names say which module they belong to.

  sizes   every .c and .h under src/ has at most LIMIT lines, except a file that
          is one table (listed in TABLES with the reason).
  order   inside the pure layer the folders stand in an order, util/ sheet/
          catalog/ engine/ render/, and a file includes headers of its own
          folder and the ones before it only: sheet/ never includes engine/
          (the verdicts an engine's fit gives are computed above sheet/ and
          handed to it), so the layer has no cycle the build cannot see.
  names   every function a header under src/ declares, and every data symbol
          it declares extern, is named vs_<module>_..., where <module> is the
          header's name (or its folder's, or the header's name without a
          trailing "s"), or vs_<type>_... for a type a header of src/ defines
          (libgit2's git_oid_* works on a git_oid, jansson's json_object_* on a
          json_t object); a table may be named for the plural of its rows' type
          (vs_engines, vs_verbs_core). A function without the vs_ prefix is a
          finding too. A private header (MODULE_internal.h) counts as its
          module's. NAME_EXCEPTIONS lists the few that keep an older name, each
          with why.

Run by ctest (tests/layers/build.cmake): python3 check_shape.py ROOT [--self-test]
"""
import os
import re
import sys

LIMIT = 800

# A file that is one table may be longer: splitting a table splits the concept.
TABLES = {}

# Names kept as they are, each with its reason.
NAME_EXCEPTIONS = {
    # The capacity rule is named for what it answers, as callers read it:
    # "the offer's capacity" (sheet/capacity.h).
    "vs_offer_capacity": "sheet/capacity.h",
}

# The pure layer's folders, each above the ones before it.
PURE_ORDER = ["util", "sheet", "catalog", "engine", "render"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/', re.M)

COMMENT = re.compile(r"/\*.*?\*/", re.S)
FUNC = re.compile(r"^(?!\s*(?:typedef|return)\b)[A-Za-z_][\w \*]*?\b([A-Za-z_]\w*)\s*\(", re.M)
# extern declarations of data (one or more names, arrays allowed)
EXTERN = re.compile(r"^[ \t]*extern\s+([^;(]*);", re.M)
EXTERN_NAME = re.compile(r"(\w+)\s*(?:\[[^\]]*\])?\s*(?:,|$)")
# preprocessor lines (macros look like calls)
PREPROC = re.compile(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", re.M)
TYPES = [
    re.compile(r"}\s*(vs_\w+)\s*;"),
    re.compile(r"typedef\s+(?:struct|enum|union)\s+\w+\s+(vs_\w+)\s*;"),
    re.compile(r"typedef\s+[\w\s\*]+?\(\s*\*\s*(vs_\w+)\s*\)"),
    re.compile(r"typedef\s+(?:const\s+)?\w+\s+\**(vs_\w+)\s*;"),
]


def sources(root):
    for d, _, names in os.walk(os.path.join(root, "src")):
        for name in sorted(names):
            if name.endswith((".c", ".h")):
                yield os.path.join(d, name)


def check_sizes(root, paths):
    bad = []
    for p in paths:
        rel = os.path.relpath(p, root)
        with open(p, encoding="utf-8", errors="replace") as f:
            n = sum(1 for _ in f)
        if n > LIMIT and rel not in TABLES:
            bad.append("%s: %d lines (more than %d; split it by concept, or list it "
                       "in TABLES if it is one table)" % (rel, n, LIMIT))
    return bad


def backward_includes(folder, text):
    """The folders of PURE_ORDER after folder that text includes."""
    if folder not in PURE_ORDER:
        return []
    at = PURE_ORDER.index(folder)
    return [f for f in INCLUDE.findall(COMMENT.sub("", text))
            if f in PURE_ORDER and PURE_ORDER.index(f) > at]


def check_order(root, paths):
    bad = []
    for p in paths:
        rel = os.path.relpath(p, root)
        folder = rel.split(os.sep)[1] if rel.count(os.sep) >= 2 else ""
        with open(p, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for f in sorted(set(backward_includes(folder, text))):
            bad.append("%s: includes %s/, which stands above %s/ in the pure layer (%s)"
                       % (rel, f, folder, " < ".join(PURE_ORDER)))
    return bad


def blank(m):
    """The match's text as blank lines, so that line numbers stay."""
    return "\n" * m.group(0).count("\n")


def header_names(text):
    """The functions and extern data a header declares, and the types it defines."""
    text = PREPROC.sub(blank, COMMENT.sub(blank, text))
    types = set()
    for rx in TYPES:
        types.update(rx.findall(text))
    funcs = []
    for m in FUNC.finditer(text):
        if m.group(1) == "__attribute__":
            continue
        line = text.count("\n", 0, m.start()) + 1
        funcs.append((line, m.group(1)))
    for m in EXTERN.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        decl = re.sub(r"\s+", " ", m.group(1))
        for part in decl.split(","):
            names = re.findall(r"(\w+)\s*(?:\[[^\]]*\])?\s*$", part.strip())
            if names:
                funcs.append((line, names[0]))
    return funcs, types


def misnamed(path, text, all_types=frozenset()):
    module = os.path.basename(path)[:-2]
    if module.endswith("_internal"):  # a module's private header: the module's name
        module = module[: -len("_internal")]
    folder = os.path.basename(os.path.dirname(path))
    funcs, types = header_names(text)
    prefixes = {"vs_" + module, "vs_" + folder, "vs_" + module.rstrip("s")} | types | all_types
    prefixes |= {t + "s" for t in types | all_types}  # a table of a type's rows
    out = []
    for line, name in funcs:
        if NAME_EXCEPTIONS.get(name) and path.endswith(NAME_EXCEPTIONS[name]):
            continue
        if not any(name == p or name.startswith(p + "_") for p in prefixes):
            out.append((line, name))
    return out


def check_names(root, paths):
    bad, texts, all_types = [], {}, set()
    for p in paths:
        if p.endswith(".h"):
            with open(p, encoding="utf-8") as f:
                texts[p] = f.read()
            all_types |= header_names(texts[p])[1]
    for p, text in texts.items():
        for line, name in misnamed(p, text, frozenset(all_types)):
            bad.append("%s:%d: %s is not named for its module (vs_%s_...) or a type "
                       "the header defines" % (os.path.relpath(p, root), line, name,
                                               os.path.basename(p)[:-2]))
    return bad


def self_test():
    hdr = ("/* vs_other_thing(void) in a comment */\n"
           "typedef struct vs_widget vs_widget;\n"
           "int vs_gadget_open(void);\n"
           "int vs_widget_free(vs_widget *w);\n"
           "int vs_stray_helper(void);\n"
           "#define VS_GADGET_CALL(x) other_call(x)\n"
           "int helper_without_prefix(int x);\n"
           "extern const vs_widget vs_widgets[], vs_widgets_more[];\n"
           "extern const char *const vs_gadget_names[], *const vs_loose_table[];\n"
           "extern int stray_data;\n")
    got = misnamed("src/x/gadget.h", hdr)
    assert got == [(5, "vs_stray_helper"), (7, "helper_without_prefix"),
                   (9, "vs_loose_table"), (10, "stray_data")], got
    src = ('#include "sheet/sheet.h"\n/* #include "render/x.h" */\n#include "engine/fit.h"\n'
           '#include "util/buf.h"\n#include <jansson.h>\n')
    assert backward_includes("sheet", src) == ["engine"], backward_includes("sheet", src)
    assert backward_includes("render", src) == []
    assert backward_includes("lang", src) == []
    return 0


def main():
    if "--self-test" in sys.argv:
        self_test()
        print("self-test: ok")
        return 0
    root = sys.argv[1]
    paths = list(sources(root))
    bad = check_sizes(root, paths) + check_order(root, paths) + check_names(root, paths)
    for b in bad:
        print(b)
    print("%d files checked, %d findings" % (len(paths), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
