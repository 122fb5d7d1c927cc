"""The pip wheel as a user gets it (`bash .ci/wheel BUILD` makes BUILD/wheel-env).

Checks, in that environment only (a clean PATH: the build tree's binary and any
~/.local kernelspec are out of sight):
  - the wheel is a manylinux wheel and vendors libzmq, libsodium, jansson and
    libgit2 (auditwheel's vramsheet.libs/), and `ldd` resolves each of them there;
  - `jupyter kernelspec list` of that environment lists vramsheet under
    sys.prefix/share/jupyter/kernels, and its argv runs this environment's binary;
  - the `vramsheet` command of the environment is the wheel's;
  - notebooks/01 runs through nbclient with that kernel, with the seed's figures.
Exits 77 (skipped, with the reason) when the environment was not made, unless
VS_REQUIRE_WHEEL=1 (CI), where a missing environment fails.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest
import zipfile

BUILD = os.environ.get("VS_BUILD_DIR", "build")
SOURCE = os.environ.get("VS_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
ENV = os.path.join(BUILD, "wheel-env")
PY = os.path.join(ENV, "bin", "python")


def clean_env(home):
    """What a user's shell in that venv would have: no build tree, no test paths."""
    return {
        "PATH": os.path.join(ENV, "bin") + ":/usr/bin:/bin",
        "HOME": home,
        "LANG": "C.UTF-8",
        "JUPYTER_PLATFORM_DIRS": "1",
        "VRAMSHEET_RECORDS": os.path.join(home, "records"),
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    }


class Wheel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.home = tempfile.mkdtemp(prefix="vs-wheel-home-")
        cls.env = clean_env(cls.home)
        out = subprocess.run([PY, "-c", "import vramsheet, sys; print(vramsheet.binary()); print(sys.prefix)"],
                             env=cls.env, capture_output=True, text=True, check=True).stdout.split("\n")
        cls.binary, cls.prefix = out[0], out[1]

    @classmethod
    def tearDownClass(cls):
        subprocess.run(["rm", "-rf", cls.home], check=False)

    def test_manylinux_wheel_vendors_the_four_libraries(self):
        with open(os.path.join(ENV, "vramsheet-wheel")) as f:
            wheel = f.read().strip()
        self.assertRegex(os.path.basename(wheel), r"^vramsheet-.*-py3-none-manylinux_\d+_\d+_x86_64\.whl$")
        names = zipfile.ZipFile(wheel).namelist()
        for lib in ("libzmq", "libsodium", "libjansson", "libgit2"):
            self.assertTrue(any(n.startswith("vramsheet.libs/" + lib) for n in names), lib)
        self.assertIn("vramsheet-0.1.0.data/data/share/jupyter/kernels/vramsheet/kernel.json", names)

    def test_ldd_resolves_the_vendored_libraries(self):
        ldd = subprocess.run(["ldd", self.binary], capture_output=True, text=True, check=True).stdout
        self.assertNotIn("not found", ldd)
        libs = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(self.binary))), "vramsheet.libs")
        for lib in ("libzmq", "libsodium", "libjansson", "libgit2"):
            line = [l for l in ldd.splitlines() if l.strip().startswith(lib)]
            self.assertEqual(len(line), 1, ldd)
            self.assertIn(os.path.realpath(libs), os.path.realpath(line[0].split("=>")[1].split()[0]))

    def test_kernelspec_listed_and_runs_its_own_binary(self):
        out = subprocess.run([os.path.join(ENV, "bin", "jupyter"), "kernelspec", "list", "--json"],
                             env=self.env, capture_output=True, text=True, check=True).stdout
        specs = json.loads(out)["kernelspecs"]
        self.assertIn("vramsheet", specs)
        spec = specs["vramsheet"]
        self.assertEqual(os.path.realpath(spec["resource_dir"]),
                         os.path.realpath(os.path.join(self.prefix, "share", "jupyter", "kernels", "vramsheet")))
        # "python" is replaced by jupyter_client with its own interpreter, which then
        # runs the binary inside this environment's package
        self.assertEqual(spec["spec"]["argv"], ["python", "-m", "vramsheet", "kernel", "-f", "{connection_file}"])
        self.assertTrue(self.binary.startswith(os.path.realpath(self.prefix)) or
                        self.binary.startswith(self.prefix), self.binary)

    def test_command_is_the_wheels(self):
        which = subprocess.run(["sh", "-c", "command -v vramsheet"], env=self.env,
                               capture_output=True, text=True, check=True).stdout.strip()
        self.assertEqual(which, os.path.join(ENV, "bin", "vramsheet"))
        version = subprocess.run(["vramsheet", "--version"], env=self.env,
                                 capture_output=True, text=True, check=True).stdout
        self.assertIn("0.1.0", version)

    def test_notebook_01_through_nbclient(self):
        src = os.path.join(SOURCE, "notebooks", "01-seed-7b-inference.ipynb")
        script = (
            "import sys, nbformat, nbclient\n"
            "nb = nbformat.read(sys.argv[1], as_version=4)\n"
            "nbclient.NotebookClient(nb, kernel_name='vramsheet', timeout=60).execute()\n"
            "texts = []\n"
            "for c in nb.cells:\n"
            "    for o in c.get('outputs', []):\n"
            "        assert o.output_type != 'error', o\n"
            "        texts.append(o.get('text', '') + o.get('data', {}).get('text/plain', ''))\n"
            "print('\\n'.join(texts))\n")
        run = subprocess.run([PY, "-c", script, src], env=self.env, capture_output=True, text=True,
                             cwd=self.home, timeout=240)
        self.assertEqual(run.returncode, 0, run.stderr[-3000:])
        # the seed's worked example, by hand: 7e9 x 16 bits = 14e9 B = 13.04 GiB;
        # + 6 GiB reserve = 19.04 GiB
        self.assertIn("13.04 GiB", run.stdout)
        self.assertIn("19.04 GiB", run.stdout)


if __name__ == "__main__":
    if not os.path.exists(PY):
        msg = "install.wheel: no wheel environment at %s: run `bash .ci/wheel %s` first" % (ENV, BUILD)
        if os.environ.get("VS_REQUIRE_WHEEL") == "1":
            print(msg + " (required here)")
            sys.exit(1)
        print("SKIPPED: " + msg)
        sys.exit(77)
    unittest.main(verbosity=2)
