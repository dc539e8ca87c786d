"""A real editor as the client: headless Neovim runs the scripts of tests/nvim against
`sextant lsp`."""

import os
import shutil
import subprocess
from pathlib import Path

from conftest import REPO, SEXTANT


def run_script(name: str, root: Path):
    nvim = shutil.which("nvim")
    assert nvim, "Neovim is required (scripts/test installs it)"
    script = REPO / "tests" / "nvim" / name
    done = subprocess.run(
        [nvim, "--headless", "-n", "-u", "NONE", "-i", "NONE", "-c", f"luafile {script}"],
        env={**os.environ, "SEXTANT_BIN": SEXTANT, "SEXTANT_ROOT": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr + done.stdout


def test_neovim_headless(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "broken.py").write_text("def f(:\n    pass\n\n\nclass Greeter:\n    def hello(self):\n        pass\n")
    (root / "util.py").write_text("def helper_function():\n    pass\n")
    run_script("lsp_smoke.lua", root)


def test_neovim_applies_a_quick_fix(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "unused.py").write_text("import os, sys\nimport json\nprint(sys)\n")
    run_script("lsp_code_action.lua", root)
