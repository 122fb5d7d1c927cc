"""The kernelspec as installed by `cmake --install` and by `vramsheet install`.

Also the fixture of proto.kernel_test: it installs the build into VS_TEST_PREFIX,
whose kernelspec jupyter_kernel_test then drives.
"""
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BINARY = os.environ.get("VS_BINARY", "vramsheet")
SOURCE = os.environ.get("VS_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
LOGOS = ("logo-32x32.png", "logo-64x64.png")


def kernelspecs(jupyter_path):
    env = dict(os.environ, JUPYTER_PATH=jupyter_path)
    out = subprocess.run([sys.executable, "-m", "jupyter", "kernelspec", "list", "--json"],
                         env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["kernelspecs"]


class TestCmakeInstall(unittest.TestCase):
    def test_install_prefix(self):
        prefix = os.environ["VS_TEST_PREFIX"]
        shutil.rmtree(prefix, ignore_errors=True)
        subprocess.run([os.environ["VS_CMAKE"], "--install", os.environ["VS_BUILD_DIR"],
                        "--prefix", prefix], check=True, capture_output=True)
        binary = os.path.join(prefix, "bin", "vramsheet")
        self.assertTrue(os.access(binary, os.X_OK))
        spec_dir = os.path.join(prefix, "share", "jupyter", "kernels", "vramsheet")
        with open(os.path.join(spec_dir, "kernel.json")) as f:
            spec = json.load(f)
        self.assertEqual(spec["argv"], [binary, "kernel", "-f", "{connection_file}"])
        self.assertEqual(spec["language"], "vramsheet")
        self.assertEqual(spec["display_name"], "vramsheet")
        self.assertIn(spec["interrupt_mode"], ("signal", "message"))
        for logo in LOGOS:
            self.assertTrue(filecmp.cmp(os.path.join(spec_dir, logo),
                                        os.path.join(SOURCE, "kernel", logo), shallow=False))
        specs = kernelspecs(os.path.join(prefix, "share", "jupyter"))
        self.assertEqual(os.path.realpath(specs["vramsheet"]["resource_dir"]),
                         os.path.realpath(spec_dir))
        r = subprocess.run([binary, "--version"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0)
        self.assertIn("vramsheet", r.stdout)


class TestVramsheetInstall(unittest.TestCase):
    def run_install(self, *args, env=None):
        return subprocess.run([BINARY, "install"] + list(args), capture_output=True, text=True,
                              env=dict(os.environ, **(env or {})), timeout=10)

    def check_spec(self, data_dir):
        spec_dir = os.path.join(data_dir, "kernels", "vramsheet")
        with open(os.path.join(spec_dir, "kernel.json")) as f:
            spec = json.load(f)
        self.assertEqual(spec["argv"], [os.path.realpath(BINARY), "kernel", "-f",
                                        "{connection_file}"])
        with open(os.path.join(SOURCE, "kernel", "kernel.json")) as f:
            template = json.load(f)
        spec["argv"][0] = template["argv"][0]
        self.assertEqual(spec, template)
        for logo in LOGOS:
            self.assertTrue(filecmp.cmp(os.path.join(spec_dir, logo),
                                        os.path.join(SOURCE, "kernel", logo), shallow=False))
        self.assertIn("vramsheet", kernelspecs(data_dir))

    def test_prefix(self):
        with tempfile.TemporaryDirectory() as d:
            r = self.run_install("--prefix", d)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.check_spec(os.path.join(d, "share", "jupyter"))

    def test_user(self):
        with tempfile.TemporaryDirectory() as d:
            r = self.run_install("--user", env={"JUPYTER_DATA_DIR": d})
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(os.path.join(d, "kernels", "vramsheet"), r.stdout)
            self.check_spec(d)

    def test_usage(self):
        self.assertEqual(self.run_install("--user", "--prefix", "/tmp").returncode, 2)
        self.assertEqual(self.run_install("--bogus").returncode, 2)
        r = self.run_install("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--prefix", r.stdout)
        self.assertIn("--user", r.stdout)


if __name__ == "__main__":
    unittest.main()
