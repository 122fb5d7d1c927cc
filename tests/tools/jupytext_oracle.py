"""Makes tests/data/jupytext/: a small notebook with the cells a conversion
must get right (text cells with blank lines, code with blank lines inside and
at the end, an empty cell, a raw cell, non-ASCII text), and Jupytext's own
percent script of it, which tests/lang/test_convert.py compares with
`vramsheet convert` byte for byte.

Run once, by hand, in a virtual environment with jupytext 1.19.6 and
nbformat 5.11.1 (pip install jupytext==1.19.6); never from CI:

    python tests/tools/jupytext_oracle.py tests/data/jupytext

The script is written as `jupytext --to py:percent --opt
notebook_metadata_filter=-all --opt cell_metadata_filter=-all` writes it:
no YAML header and no cell metadata, which `vramsheet convert` does not write.
"""
import os
import sys

import jupytext
import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_raw_cell

CELLS = [
    new_markdown_cell("# A sample for the converter\n\nTwo paragraphs, the second with "
                      "`code` and a list:\n\n- one\n- two"),
    new_code_cell('sheet "sample"\nmodel m params=7e9\nformat bf16'),
    new_markdown_cell("Non-ASCII text: 24 GB ≈ 22.35 GiB — façade, naïve."),
    new_code_cell("length 4096\n\nconcurrency 1"),
    new_code_cell(""),
    new_code_cell("weights\n"),
    new_raw_cell("a raw cell\nkept as it is"),
    new_code_cell("# a comment line first\nenvelope"),
    new_markdown_cell("The end."),
]


def main(out):
    nb = new_notebook(cells=CELLS, metadata={
        "kernelspec": {"display_name": "vramsheet", "language": "vramsheet", "name": "vramsheet"}})
    for i, c in enumerate(nb.cells):
        c.id = "cell-%d" % (i + 1)  # fixed, so that the file does not change when re-made
    nbformat.validate(nb)
    os.makedirs(out, exist_ok=True)
    nbformat.write(nb, os.path.join(out, "sample.ipynb"))
    nb2 = nbformat.read(os.path.join(out, "sample.ipynb"), as_version=4)
    nb2.metadata["jupytext"] = {"notebook_metadata_filter": "-all", "cell_metadata_filter": "-all"}
    text = jupytext.writes(nb2, fmt="py:percent")
    with open(os.path.join(out, "sample.py"), "w", encoding="utf-8") as f:
        f.write(text)
    with open(os.path.join(out, "VERSIONS"), "w") as f:
        f.write("jupytext %s, nbformat %s (tests/tools/jupytext_oracle.py)\n"
                % (jupytext.__version__, nbformat.__version__))


if __name__ == "__main__":
    main(sys.argv[1])
