#!/usr/bin/env python3
"""Writes tests/data/launch/transformers-5.24.0-args.txt: the keyword arguments of
transformers' PreTrainedModel.from_pretrained in the installed release (its
named parameters and every key it pops from **kwargs), read with ast from the
release's own modeling_utils.py. Run it with the interpreter that has the
release installed (VENV: a virtual environment with transformers from PyPI):

  VENV/bin/python tests/tools/transformers_kwargs.py > tests/data/launch/transformers-5.24.0-args.txt

Only produces test data; no test runs it."""
import ast
import inspect

import transformers
import transformers.modeling_utils as mu

src = inspect.getsource(mu)
tree = ast.parse(src)
names = set()
for node in ast.walk(tree):
    if isinstance(node, ast.ClassDef) and node.name == "PreTrainedModel":
        for f in node.body:
            if isinstance(f, ast.FunctionDef) and f.name == "from_pretrained":
                a = f.args
                for arg in a.args[2:] + a.kwonlyargs:
                    names.add(arg.arg)
                for n in ast.walk(f):
                    if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                            and n.func.attr == "pop" and isinstance(n.func.value, ast.Name)
                            and n.func.value.id == "kwargs" and n.args
                            and isinstance(n.args[0], ast.Constant)):
                        names.add(n.args[0].value)
print("# PreTrainedModel.from_pretrained's keyword arguments: its named parameters and the keys")
print("# it pops from **kwargs (attn_implementation is set on the config), one a line")
print("# source: huggingface/transformers v%s, src/transformers/modeling_utils.py (def from_pretrained)," % transformers.__version__)
print("# read with ast in the release's installed file by tests/tools/transformers_kwargs.py")
for n in sorted(x for x in names if not x.startswith("_")):
    print(n)
