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
  owners  a function or datum a header declares is defined in that header's
          module: for src/D/M.h (M.h or M_internal.h), src/D/M.c, src/D/M_*.c,
          or a file under src/D/M/ (the plural, Ms, too), so that the header a name is read in says which
          file holds it. OWNER_EXCEPTIONS lists the few declared elsewhere, each
          with why.
  engines no engine's name is compared outside its own files (src/engine/NAME.c,
          NAME_*.c): a string comparison of an engine expression (or of a
          ->name / .name field) with a name of
          src/engine/engines.def ("none" aside) is a finding; a rule one engine
          has is an optional callback of its row (libgit2's optional odb
          backend slots), read where it is NULL-checked.
  payloads a result's JSON payload is built in render/ only (render/ builds
          text, HTML, SVG and the payload from the facts a verb hands it): no
          file outside src/render/ names a payload's kind (a json_pack whose
          first key is "kind" with a literal value, "kind" set to
          json_string("..."), a vs_jw "kind" member) or makes a result bundle
          (vs_bundle_new*, vs_render_finish*, vs_render_lines).
          PAYLOAD_EXCEPTIONS lists the few files that still do, each with why.
  symbols (--symbols LIB...) every symbol the static libraries export,
          functions and data alike (nm --defined-only -g), is named vs_...

Run by ctest (tests/layers/build.cmake): python3 check_shape.py ROOT [--self-test]
                                          python3 check_shape.py --symbols LIB...
"""
import os
import re
import subprocess
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

# Names declared in a header of another module than the file that defines them:
# a name prefix, the header, the defining file (None: any; a folder ends in "/"),
# and why.
OWNER_EXCEPTIONS = [
    # The subcommands' table of mains: declarations only, each defined by its
    # module's *_cli.c (or the file that is the subcommand).
    ("vs_cli_", "cli.h", None, "the table of mains"),
    # The estimators' table and its rows' arithmetic, one file each under
    # sheet/estimators/ (a folder named for the rows, not the header).
    ("vs_", "sheet/estimate.h", "sheet/estimators/", "the estimators, one file each"),
]

# Files outside src/render/ that still build a result's payload, each with why.
PAYLOAD_EXCEPTIONS = {
    # `weights from=PATH` (and `model NAME pipeline=DIR`): the files' reader
    # hands what it read (the tensors by dtype, the files, a GGUF's metadata, a
    # pipeline's components) as the payload's fields, which render/weights and
    # render/card_lines complete; its callers (lang, model/hfcache) and tests
    # read that object, so it moves with them.
    "model/model.c": "the weights files' payload, read where the files are",
    "model/pipeline_files.c": "a diffusers pipeline's weights payload, read where the files are",
    # the transport's own scripted cells (VRAMSHEET_KERNEL_TEST=1) print a text
    # result without any payload
    "kernel/testcell.c": "a test cell's text result",
}

# A result payload being built: its kind named, or a result bundle made.
PAYLOAD_BUILT = [
    (re.compile(r'json_pack\(\s*"\{\s*s:[^"]*"(?:\s*"[^"]*")*\s*,\s*"kind"\s*,\s*"'),
     "a json_pack payload with its kind"),
    (re.compile(r'"kind"\s*,\s*json_string\(\s*"'), "a payload's kind set"),
    (re.compile(r'vs_jw_member_str\([^;]*?"kind"\s*,\s*"'), "a payload's kind written"),
    (re.compile(r"\b(vs_bundle_new\w*|vs_render_finish\w*|vs_render_lines)\s*\("),
     "a result bundle made"),
]

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


# A definition at file scope that is not static: a function "type name(" or a
# datum "type name[...] =" / "type name =" (clang-format starts both in column 0).
DEFINITION = re.compile(
    r"^(?!static\b|typedef\b|extern\b|return\b)(?:const\s+)?[A-Za-z_][\w \*]*?\b"
    r"([A-Za-z_]\w*)\s*(?:\(|\[[^\]]*\]\s*=|\[[^\]]*\]\s*;|=)", re.M)


def definitions(text):
    """The names a source file defines with external linkage, with their lines."""
    text = PREPROC.sub(blank, COMMENT.sub(blank, text))
    out = []
    for m in DEFINITION.finditer(text):
        # a function's body or a datum's initializer follows; a prototype does not
        rest = text[m.end():]
        if text[m.end() - 1] == "(":
            depth, k = 1, 0
            while k < len(rest) and depth:
                depth += {"(": 1, ")": -1}.get(rest[k], 0)
                k += 1
            if not rest[k:].lstrip().startswith("{"):
                continue
        out.append((text.count("\n", 0, m.start()) + 1, m.group(1)))
    return out


def owns(header, source):
    """1 when source (a path under src/) is of the module header (a path under src/) names."""
    hdir, hname = os.path.split(header)
    module = hname[:-2]
    if module.endswith("_internal"):
        module = module[: -len("_internal")]
    sdir, sname = os.path.split(source)
    sname = sname[:-2]
    for m in (module, module + "s"):
        if sdir == os.path.join(hdir, m) or sdir.startswith(os.path.join(hdir, m) + os.sep):
            return True
        if sdir == hdir and (sname == m or sname.startswith(m + "_")):
            return True
    return False


def owner_excepted(name, header, source):
    for prefix, h, src, _ in OWNER_EXCEPTIONS:
        if name.startswith(prefix) and header == h and (
                src is None or source == src or (src.endswith("/") and source.startswith(src))):
            return True
    return False


def misplaced(declared, defined):
    """declared: {name: [(header, line)]}, defined: {name: [(source, line)]}, paths
    under src/: the definitions that no declaring header's module holds."""
    out = []
    for name in sorted(declared):
        for source, line in defined.get(name, []):
            hs = declared[name]
            if not any(owns(h, source) or owner_excepted(name, h, source) for h, _ in hs):
                out.append((source, line, name, hs[0][0]))
    return out


def check_owners(root, paths):
    declared, defined = {}, {}
    base = os.path.join(root, "src")
    for p in paths:
        rel = os.path.relpath(p, base)
        with open(p, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if p.endswith(".h"):
            for line, name in header_names(text)[0]:
                declared.setdefault(name, []).append((rel, line))
        else:
            for line, name in definitions(text):
                defined.setdefault(name, []).append((rel, line))
    return ["src/%s:%d: %s is declared in src/%s, another module's header (define it in that "
            "module's files, or declare it in this file's header)" % m
            for m in misplaced(declared, defined)]


def payloads_built(text):
    """(line, what) for each place text (a .c file) builds a result payload."""
    text = COMMENT.sub(blank, text)
    out = []
    for rx, what in PAYLOAD_BUILT:
        for m in rx.finditer(text):
            out.append((text.count("\n", 0, m.start()) + 1, what))
    return sorted(out)


def check_payloads(root, paths):
    bad = []
    base = os.path.join(root, "src")
    for p in paths:
        rel = os.path.relpath(p, base)
        if not p.endswith(".c") or rel.startswith("render" + os.sep):
            continue
        with open(p, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if rel in PAYLOAD_EXCEPTIONS:
            # an exception that no longer builds a payload leaves the list
            if not payloads_built(text):
                bad.append("src/%s: builds no payload any more: take it out of "
                           "PAYLOAD_EXCEPTIONS" % rel)
            continue
        for line, what in payloads_built(text):
            bad.append("src/%s:%d: %s outside src/render/ (hand the facts to a render/ "
                       "function that builds the text and the payload)" % (rel, line, what))
    return bad


def unprefixed(lib, nm_text):
    """The symbols of `nm --defined-only -g` output not named vs_..."""
    bad, member = [], lib
    for line in nm_text.splitlines():
        if line.endswith(":") and not line.startswith(" "):
            member = line[:-1]
            continue
        parts = line.split()
        # a sanitizer's own symbols (ASan's one-definition-rule indicators
        # __odr_asan.NAME, its and UBSan's runtime hooks) name no symbol of ours
        if len(parts) == 3 and not parts[2].startswith(("vs_", "__odr_asan", "__asan", "__ubsan",
                                                         "__sancov")):
            bad.append("%s(%s): %s (%s) is exported without the vs_ prefix"
                       % (os.path.basename(lib), member, parts[2], parts[1]))
    return bad


def check_symbols(libs):
    """The exported symbols of the static libraries that are not named vs_..."""
    bad = []
    for lib in libs:
        out = subprocess.run(["nm", "--defined-only", "-g", lib], check=True,
                             capture_output=True, text=True).stdout
        bad += unprefixed(lib, out)
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
    c = ("/* int vs_in_comment(void) { } */\n"
         "static int helper(void)\n{\n    return 0;\n}\n"
         "int vs_gadget_open(void)\n{\n    return helper();\n}\n"
         "int vs_gadget_proto(int x);\n"
         "const char *const vs_gadget_names[] = {\"a\", NULL};\n"
         "int stray_count = 0;\n"
         "const vs_widget vs_widget_row = {1};\n")
    got = definitions(c)
    assert got == [(6, "vs_gadget_open"), (11, "vs_gadget_names"), (12, "stray_count"),
                   (13, "vs_widget_row")], got
    assert owns("x/gadget.h", "x/gadget.c") and owns("x/gadget.h", "x/gadget_io.c")
    assert owns("x/gadget_internal.h", "x/gadget_io.c")
    assert owns("sheet/estimate.h", "sheet/estimates/kv.c")
    assert owner_excepted("vs_estimate_kv", "sheet/estimate.h", "sheet/estimators/kv.c")
    assert owns("model/quants/quants.h", "model/quants/quants.c")
    assert not owns("x/gadget.h", "x/interp.c") and not owns("x/gadget.h", "x/gadgetry.c")
    assert not owns("x/gadget.h", "y/gadget.c")
    # the verbs' context: verb.h's, so verb_ctx.c holds it, not interp.c
    assert owns("lang/verb.h", "lang/verb_ctx.c") and owns("lang/verb_ctx_internal.h",
                                                            "lang/verb_ctx.c")
    declared = {"vs_line_get": [("lang/verb.h", 3)], "vs_ctx_emit": [("lang/verb.h", 4)],
                "vs_ctx_sheet": [("lang/verb.h", 5)], "vs_cli_run": [("cli.h", 6)]}
    defined = {"vs_line_get": [("lang/interp.c", 9)], "vs_ctx_emit": [("lang/verb_ctx.c", 12)],
               "vs_ctx_sheet": [("lang/interp.c", 20)], "vs_cli_run": [("lang/run.c", 7)]}
    assert misplaced(declared, defined) == [("lang/interp.c", 20, "vs_ctx_sheet", "lang/verb.h"),
                                            ("lang/interp.c", 9, "vs_line_get",
                                             "lang/verb.h")], misplaced(declared, defined)
    c = ('/* json_pack("{s:s}", "kind", "in a comment") */\n'
         'b = vs_render_lines(head, lines, n,\n'
         '                    json_pack("{s:s, s:o}",\n'
         '                              "kind", "invalidate", "conditions", c));\n'
         'e = json_pack("{s:s, s:o}" "{}", "kind", vs_kv_kind_name(k), "n", x);\n'
         's = json_pack("{s:s, s:s, s:s}", "title", t, "kind", "single");\n'
         'json_object_set_new(payload, "kind", json_string("model"));\n'
         'vs_jw_member_str(&w, "kind", "component");\n'
         'b = vs_bundle_new_text(t, NULL, NULL, p, n);\n')
    got = payloads_built(c)
    # a kind from a function (a stored record's field) or not the first key is
    # not a payload's; the comment is not code
    assert got == [(2, "a result bundle made"), (3, "a json_pack payload with its kind"),
                   (7, "a payload's kind set"), (8, "a payload's kind written"),
                   (9, "a result bundle made")], got
    c = ('/* strcmp(engine, "vllm") in a comment */\n'
         'if (!strcmp(c.engine->name, "vllm") && x)\n'
         'int tf = !strcmp(c->library, "transformers");\n'
         'if (e && !strcmp(e->engine, "sglang"))\n'
         'if (!strcmp(e->name, "vllm"))\n')
    got = engine_compared(c, ["vllm", "sglang", "transformers"])
    assert got == [(2, "vllm"), (4, "sglang"), (5, "vllm")], got
    nm = ("\ngadget.c.o:\n0000000000000000 T vs_gadget_open\n0000000000000010 D stray_table\n"
          "\nwidget.c.o:\n0000000000000000 B vs_widget_count\n0000000000000000 T helper\n"
          "0000000000000020 B __odr_asan.vs_widget_count\n")
    assert unprefixed("lib/libx.a", nm) == [
        "libx.a(gadget.c.o): stray_table (D) is exported without the vs_ prefix",
        "libx.a(widget.c.o): helper (T) is exported without the vs_ prefix"], unprefixed("x", nm)
    return 0


def engine_names(root):
    """The engine names engines.def declares, but "none" (a word other tables use)."""
    with open(os.path.join(root, "src", "engine", "engines.def"), encoding="utf-8") as f:
        names = re.findall(r"^VS_ENGINE\((\w+)\)", f.read(), re.M)
    return [n for n in names if n != "none"]


def engine_compared(text, names):
    """(line, name) for each comparison in text of an engine expression with a name."""
    text = COMMENT.sub(blank, text)
    rx = re.compile(r"str(?:n?case)?n?cmp\s*\(([^;]*?(?:engine|->name|\.name)[^;,]*),\s*\"(%s)\""
                    % "|".join(map(re.escape, names)))
    return [(text.count("\n", 0, m.start()) + 1, m.group(2)) for m in rx.finditer(text)]


def check_engines(root, paths):
    names = engine_names(root)
    bad = []
    base = os.path.join(root, "src")
    for p in paths:
        rel = os.path.relpath(p, base)
        if not p.endswith(".c"):
            continue
        with open(p, encoding="utf-8", errors="replace") as f:
            text = f.read()
        stem = os.path.basename(rel)[:-2]
        for line, name in engine_compared(text, names):
            if rel.startswith("engine" + os.sep) and (stem == name or
                                                      stem.startswith(name + "_")):
                continue
            bad.append("src/%s:%d: the engine's name \"%s\" compared outside its own files "
                       "(give its row an optional callback)" % (rel, line, name))
    return bad


def main():
    if "--self-test" in sys.argv:
        self_test()
        print("self-test: ok")
        return 0
    if sys.argv[1] == "--symbols":
        bad = check_symbols(sys.argv[2:])
        for b in bad:
            print(b)
        print("%d libraries checked, %d findings" % (len(sys.argv) - 2, len(bad)))
        return 1 if bad else 0
    root = sys.argv[1]
    paths = list(sources(root))
    bad = (check_sizes(root, paths) + check_order(root, paths) + check_names(root, paths) +
           check_owners(root, paths) + check_payloads(root, paths) +
           check_engines(root, paths))
    for b in bad:
        print(b)
    print("%d files checked, %d findings" % (len(paths), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
