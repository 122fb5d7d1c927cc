"""Writes what every notebook and the benchmark cell print, with the parts that
change from run to run (commit ids, times, durations, host names) masked, so that
two builds can be compared byte for byte:

    python3 tests/tools/outputs_digest.py BUILD_DIR OUT_DIR
    diff -r OUT_BEFORE OUT_AFTER

A change that is meant to keep behaviour (a file split, a rename) leaves OUT_DIR
the same. Each notebook runs once in a new kernel against a new records folder.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import nbformat
from nbclient import NotebookClient

MASKS = [
    (re.compile(r"/tmp/[A-Za-z0-9_./-]+"), "<tmp>"),
    (re.compile(r"\b[0-9a-f]{40}\b"), "<commit>"),
    (re.compile(r"\b[0-9a-f]{7,12}\b(?=[^0-9a-f])"), "<short>"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?"), "<time>"),
    (re.compile(r'"(elapsed_ms|max_gap_ms|samples|interval_ms)": ?\d+'), r'"\1": <n>'),
    (re.compile(r"\b\d+(\.\d+)? ?(ms|s)\b"), "<duration>"),
    (re.compile(r"\b\d+ samples\b"), "<n> samples"),
    (re.compile(re.escape(os.uname().nodename)), "<host>"),
    # a short id column is wrapped or not as its text reads (all digits or not)
    (re.compile(r"<td style='[^']*'><short>"), "<td><short>"),
]


def mask(text):
    for rx, sub in MASKS:
        text = rx.sub(sub, text)
    return text


def notebook(build, path, out):
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as tmp:
        env = {"VRAMSHEET_RECORDS": os.path.join(tmp, "records"),
               "JUPYTER_PATH": os.path.join(build, "jupyter")}
        if os.path.basename(path).startswith("04-"):
            script = os.path.join(tmp, "fake-nvml-script")
            with open(script, "w") as f:
                f.write('gpu 0 name="FAKE NVIDIA H200 (scripted by tests/fake_nvml)" '
                        'total=150754820096 used=1000000\n')
            env.update({"VRAMSHEET_NVML_LIBRARY": os.path.join(build, "libfake_nvml.so"),
                        "FAKE_NVML_SCRIPT": script,
                        "FAKE_NVML_STATE": os.path.join(tmp, "fake-nvml-state")})
        os.environ.update(env)
        NotebookClient(nb, timeout=120, kernel_name="vramsheet",
                       resources={"metadata": {"path": os.path.dirname(path)}}).execute()
    with open(out, "w") as f:
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            f.write("=== cell\n" + cell.source + "\n")
            for o in cell.outputs:
                f.write("--- %s\n" % o.output_type)
                if o.output_type == "stream":
                    f.write(mask(o.text) + "\n")
                    continue
                for mime in sorted(o.get("data", {})):
                    v = o.data[mime]
                    if not isinstance(v, str):
                        v = json.dumps(v, sort_keys=True, indent=1)
                    f.write("[%s]\n%s\n" % (mime, mask(v)))
                if o.output_type == "error":
                    f.write(mask("%s: %s\n" % (o.ename, o.evalue)))


def main():
    build, out = os.path.abspath(sys.argv[1]), sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    books = os.path.join(here, "..", "..", "notebooks")
    os.makedirs(out, exist_ok=True)
    for name in sorted(os.listdir(books)):
        if name.endswith(".ipynb"):
            print("notebook", name, flush=True)
            notebook(build, os.path.join(books, name), os.path.join(out, name + ".txt"))
    cell = subprocess.run([os.path.join(build, "bench_lang"), "--cell"], check=True,
                          capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.vs")
        with open(path, "w") as f:
            f.write(cell)
        env = dict(os.environ, VRAMSHEET_RECORDS=os.path.join(tmp, "records"))
        r = subprocess.run([os.path.join(build, "vramsheet"), "run", path], env=env,
                           capture_output=True, text=True)
    with open(os.path.join(out, "bench_lang-cell.txt"), "w") as f:
        f.write("exit %d\n%s\n--- stderr\n%s" % (r.returncode, mask(r.stdout), mask(r.stderr)))


if __name__ == "__main__":
    main()
