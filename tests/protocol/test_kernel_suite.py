"""jupyter_kernel_test's KernelTests against the vramsheet kernel.

ctest runs this against the kernelspec `cmake --install` wrote into the build's
test prefix (VS_KERNEL_JUPYTER_PATH); VS_KERNEL_NAME picks the spec
("vramsheet-valgrind" under run_valgrind.py).
"""
import os
import unittest

if os.environ.get("VS_KERNEL_JUPYTER_PATH"):
    os.environ["JUPYTER_PATH"] = os.environ["VS_KERNEL_JUPYTER_PATH"]

# The stream tests' cells are the transport's scripted test cells
# (src/kernel/testcell.h): the language writes no stream of its own but a
# measured command's output, which needs a GPU.
os.environ["VRAMSHEET_KERNEL_TEST"] = "1"

import jupyter_kernel_test as jkt  # noqa: E402  (after JUPYTER_PATH is set)

import vsclient  # noqa: E402

# jupyter_kernel_test wants each IOPub message within 0.1 s of the previous one;
# under valgrind the kernel is some 20 times slower.
if vsclient.SLOW > 1:
    jkt.TIMEOUT = 60


class VramsheetKernelTests(jkt.KernelTests):
    kernel_name = vsclient.KERNEL_NAME
    language_name = "vramsheet"
    file_extension = ".vramsheet"

    code_execute_result = [
        {"code": "convert 24000000000B GiB", "mime": "application/vnd.vramsheet.v1+json"},
        {"code": "help", "mime": "text/html"},
        {"code": "help convert", "mime": "text/plain"},
    ]
    # Every result but a cell's last is a display_data.
    code_display_data = [
        {"code": "convert 1GiB B\nconvert 2GiB B", "mime": "text/plain"},
        {"code": "convert 1GiB B\nconvert 2GiB B", "mime": "application/vnd.vramsheet.v1+json"},
    ]
    code_generate_error = "convert 24 bananas"
    completion_samples = [
        {"text": "conv", "matches": {"convert"}},
        {"text": "help conv", "matches": {"convert"}},
    ]
    complete_code_samples = ["help", "convert 24GB GiB", "help \\\nconvert", 'sheet "a \\" b"']
    incomplete_code_samples = ['sheet "an open quote', "convert 24GB \\", 'sheet "a\\"']
    code_inspect_sample = "convert"
    # Matches exactly one distinct input of code_execute_result (the unique test).
    code_history_pattern = "convert 24000000000? G?B"
    supported_history_operations = ("tail", "range", "search")
    code_hello_world = "%%kernel-test\nstream stdout hello, world"
    code_stderr = "%%kernel-test\nstream stderr to stderr"

    # The kernel sends no clear_output and no pager payload (help answers in the
    # cell's result): jupyter_kernel_test's tests of them, which skip without a
    # sample, do not apply. Left out rather than skipped, so that a skip in this
    # suite says something is missing.
    test_clear_output = None
    test_pager = None


if __name__ == "__main__":
    unittest.main()
