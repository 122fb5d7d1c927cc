#!/usr/bin/env python3
"""Writes tests/data/launch/llamacpp-0c1e570-args.txt: every spelling of every
option llama.cpp's common/arg.cpp registers (the first brace list of each
common_arg(...) in common_params_parser_init), one a line, from a llama.cpp
source tree. The tree read is the one llama-cpp-python 0.3.36 vendors (its
sdist's vendor/llama.cpp, commit 0c1e570):

  python3 tests/tools/llamacpp_args.py SDIST/vendor/llama.cpp/common/arg.cpp \\
      > tests/data/launch/llamacpp-0c1e570-args.txt

Only produces test data; no test runs it."""
import re
import sys

src = open(sys.argv[1], encoding="utf-8").read()
flags = []
# the first brace list names the option; a second one right after it, its
# negative spellings (common_arg(args, args_neg, help, handler): -kvo / -nkvo)
for m in re.finditer(r"common_arg\(\s*\{([^}]*)\}(\s*,\s*\{([^}]*)\})?", src):
    for f in re.findall(r'"(-[^"]*)"', m.group(1) + " " + (m.group(3) or "")):
        if f not in flags:
            flags.append(f)
print("# llama.cpp's options, as common_params_parser_init registers them (llama-server")
print("# takes the common ones and its own): every spelling, in the file's order")
print("# source: ggml-org/llama.cpp, common/arg.cpp, commit 0c1e570 (the tree llama-cpp-python")
print("# 0.3.36 vendors, read whole by tests/tools/llamacpp_args.py)")
for f in flags:
    print(f)
