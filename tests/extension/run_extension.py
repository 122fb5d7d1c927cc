"""A new model family, log importer, engine, estimator and weights format are each
one file plus one row.

Copies the source tree to a scratch folder, adds tests/extension/toyfam.c as
src/model/families/toyfam.c with one row in families.def,
tests/extension/import_toylog.c as src/measure/import_toylog.c with one row in
importers.def, tests/extension/toyeng.c as src/engine/toyeng.c with one row in
engines.def, and tests/extension/estimate_toy.c as src/lang/estimate_toy.c with
one row in lang/estimators.def, and tests/extension/toyq.c as
src/model/quants/toyq.c with one row in quants.def, then checks that nothing
else differs from the tree, builds only the vramsheet target (through ccache
when there is one) and runs a cell that uses them: the family's parameter count
and KV cache, the importer's measurement, the engine's budget, the estimator's
figure and its recomputation when the card's length moves, the format's bytes
named by `format` and read from a quantization_config, and each in `help`.

    python3 tests/extension/run_extension.py SOURCE_DIR WORK_DIR
"""
import filecmp
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# The toy model, and its sizes worked by hand: an embedding of vocab x hidden
# and one hidden x hidden matrix per layer.
LAYERS, HIDDEN, VOCAB = 3, 64, 1000
PARAMS = VOCAB * HIDDEN + LAYERS * HIDDEN * HIDDEN  # 64,000 + 12,288 = 76,288
# KV cache, fp16, one KV head of head_dim = hidden, 1,024 tokens, 1 sequence:
# 2 (K and V) x layers x 1 x 64 x 2 B x 1,024 = 786,432 B = 768 KiB
KV_BYTES = 2 * LAYERS * 1 * HIDDEN * 2 * 1024
PEAK_MIB = 1234  # the toy log's figure: 1,234 MiB = 1,293,942,784 B
# The toy estimator: 1 MiB per token of every sequence, 1,024 then 2,048 tokens, 1 sequence:
# 1,073,741,824 B = 1.00 GiB, then 2,147,483,648 B = 2.00 GiB
TOY_BYTES = [2**20 * 1024 * 1, 2**20 * 2048 * 1]
# The toy format over the toy model: every 2-D weight is a Linear layer to the
# tally (the embedding's name is none the loaders keep), 4 bits a value and an
# fp16 scale per output row (vocab rows for the embedding, hidden per layer):
# values (64,000 + 12,288) / 2 = 38,144 B, scales (1,000 + 3 x 64) x 2 = 2,384 B
TOYQ_BYTES = (VOCAB * HIDDEN + LAYERS * HIDDEN * HIDDEN) // 2 + (VOCAB + LAYERS * HIDDEN) * 2


def source_files(top):
    """The tree's files as git sees them: tracked, or untracked and not ignored.
    Ignored files (build folders, the sparse weights other tests write into
    notebooks/pipelines while this one copies) are neither copied nor compared."""
    out = subprocess.run(["git", "-C", top, "ls-files", "-z", "--cached", "--others",
                          "--exclude-standard"], check=True, capture_output=True).stdout
    return sorted({p for p in out.decode().split("\0") if p and os.path.lexists(os.path.join(top, p))})


def copy_tree(src, dst, files):
    for rel in files:
        os.makedirs(os.path.dirname(os.path.join(dst, rel)) or dst, exist_ok=True)
        shutil.copy2(os.path.join(src, rel), os.path.join(dst, rel), follow_symlinks=False)


def add_row(path, row):
    with open(path, "a") as f:
        f.write(row + "\n")


def differences(src, tree, files):
    """The paths (relative) that differ between the copied files and the scratch
    tree, or are in the scratch tree only."""
    known = set(files)
    out = [rel for rel in files if not os.path.lexists(os.path.join(tree, rel)) or
           not filecmp.cmp(os.path.join(src, rel), os.path.join(tree, rel), shallow=False)]
    for folder, _, names in os.walk(tree):
        for n in names:
            rel = os.path.relpath(os.path.join(folder, n), tree)
            if rel not in known:
                out.append(rel)
    return out


def main():
    src, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tree, build = os.path.join(work, "tree"), os.path.join(work, "build")
    if os.path.isdir(tree):
        shutil.rmtree(tree)
    os.makedirs(work, exist_ok=True)
    files = source_files(src)
    copy_tree(src, tree, files)

    # the extension: one file and one row each
    shutil.copy(os.path.join(HERE, "toyfam.c"), os.path.join(tree, "src/model/families/toyfam.c"))
    add_row(os.path.join(tree, "src/model/families/families.def"), "VS_FAMILY(toyfam)")
    shutil.copy(os.path.join(HERE, "import_toylog.c"),
                os.path.join(tree, "src/measure/import_toylog.c"))
    add_row(os.path.join(tree, "src/measure/importers.def"), 'VS_IMPORTER(toylog, "toylog", 0)')
    shutil.copy(os.path.join(HERE, "toyeng.c"), os.path.join(tree, "src/engine/toyeng.c"))
    add_row(os.path.join(tree, "src/engine/engines.def"), "VS_ENGINE(toyeng)")
    shutil.copy(os.path.join(HERE, "estimate_toy.c"), os.path.join(tree, "src/lang/estimate_toy.c"))
    add_row(os.path.join(tree, "src/lang/estimators.def"), "VS_ESTIMATOR(toy)")
    shutil.copy(os.path.join(HERE, "toyq.c"), os.path.join(tree, "src/model/quants/toyq.c"))
    add_row(os.path.join(tree, "src/model/quants/quants.def"), "VS_QUANT(toyq)")
    changed = sorted(differences(src, tree, files))
    want = sorted(["src/model/families/toyfam.c", "src/model/families/families.def",
                   "src/measure/import_toylog.c", "src/measure/importers.def",
                   "src/engine/toyeng.c", "src/engine/engines.def",
                   "src/lang/estimate_toy.c", "src/lang/estimators.def",
                   "src/model/quants/toyq.c", "src/model/quants/quants.def"])
    if changed != want:
        sys.exit("the scratch tree differs in %s, expected only %s" % (changed, want))

    # build only the binary; the scratch path is fixed and ccache told to
    # hash it relatively, so a second run compiles almost nothing
    env = dict(os.environ, CCACHE_BASEDIR=work, CCACHE_NOHASHDIR="1")
    conf = ["cmake", "-S", tree, "-B", build, "-DCMAKE_BUILD_TYPE=", "-DVS_WERROR=ON"]
    if shutil.which("ccache"):
        conf.append("-DCMAKE_C_COMPILER_LAUNCHER=ccache")
    subprocess.run(conf, check=True, env=env, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build, "--target", "vramsheet", "-j2"], check=True,
                   env=env, stdout=subprocess.DEVNULL)

    cfg = os.path.join(work, "toy-config.json")
    with open(cfg, "w") as f:
        f.write('{"model_type": "toyfam", "n_layer": %d, "d_model": %d, "vocab_size": %d}\n'
                % (LAYERS, HIDDEN, VOCAB))
    log = os.path.join(work, "toy.log")
    with open(log, "w") as f:
        f.write("toylog start\ntoylog peak %d MiB\n" % PEAK_MIB)
    qcfg = os.path.join(work, "toyq-config.json")
    with open(qcfg, "w") as f:
        f.write('{"model_type": "toyfam", "n_layer": %d, "d_model": %d, "vocab_size": %d, '
                '"quantization_config": {"quant_method": "toyq"}}\n' % (LAYERS, HIDDEN, VOCAB))
    cell = os.path.join(work, "cell.vs")
    with open(cell, "w") as f:
        f.write('sheet "toy"\nmodel toy config="%s"\nlength 1024\nconcurrency 1\n'
                'estimate kv dtype=fp16\nestimate toy\nmeasure import "%s"\nmeasurements\n'
                'gpu "Toy GPU" memory=64GiB\nengine toyeng\nfit\nlength 2048\nformat bf16\nenvelope\n'
                'format toyq4\nweights\nsheet "toyq"\nmodel toyq config="%s"\nweights\n'
                'help model\nhelp measure\nhelp engine\nhelp estimate\nhelp format\n'
                % (cfg, log, qcfg))
    env["VRAMSHEET_RECORDS"] = os.path.join(work, "records")
    run = subprocess.run([os.path.join(build, "vramsheet"), "run", cell], env=env,
                         capture_output=True, text=True, timeout=60)
    out = run.stdout
    if run.returncode != 0:
        sys.exit("the cell failed (%d):\n%s\n%s" % (run.returncode, out, run.stderr))
    expect = [
        "{:,}".format(PARAMS),                     # the family's tensor list, summed
        "{:,}".format(KV_BYTES),                   # its KV layout
        "{:,}".format(PEAK_MIB * 2**20),           # the importer's figure, exact bytes
        "toylog.peak",
        ", toyfam.",                               # help model lists the family, last row
        "a throwaway test format",                 # help measure gives the row's summary
        "|toylog]",                                # and its syntax the row's word
        "toy rule: half of the GPU, 32.00 GiB",    # the engine's budget of a 64 GiB offer
        "a throwaway test engine",                 # help engine lists it
        "= {:,} B".format(TOY_BYTES[0]).replace(",", ""),  # the estimator's formula
        "{:,}".format(TOY_BYTES[0]),
        "toy_buffer re-estimated: length 1,024 \u2192 2,048, 1.00 GiB \u2192 2.00 GiB",
        "toy: 2048 tokens x 1 sequences x 1048576 B = %d B" % TOY_BYTES[1],  # in the envelope
        "a throwaway test estimator",              # help estimate lists it
        "toy fp16 row scales",                     # the format's scales, in `weights`
        "a throwaway test format's kept tensors",  # help format lists its word's row
    ]
    missing = [e for e in expect if e not in out]
    # the format's bytes, named by `format toyq4` and read from the quantization_config
    if out.count("{:,}".format(TOYQ_BYTES)) < 2:
        missing.append("{:,} twice".format(TOYQ_BYTES))
    if missing:
        sys.exit("missing %s in:\n%s" % (missing, out))
    print("extension: a family, an importer, an engine, an estimator and a weights format, one "
          "file and one row each: ok")


if __name__ == "__main__":
    main()
