"""A real editor as the client: headless Neovim runs tests/nvim/lsp_smoke.lua against
`sextant lsp`."""

import os
import shutil
import subprocess
from pathlib import Path

from conftest import REPO, SEXTANT


def test_neovim_headless(tmp_path: Path):
    nvim = shutil.which("nvim")
    assert nvim, "Neovim is required (scripts/test installs it)"
    root = tmp_path / "ws"
    root.mkdir()
    (root / "broken.py").write_text("def f(:\n    pass\n\n\nclass Greeter:\n    def hello(self):\n        pass\n")
    (root / "util.py").write_text("def helper_function():\n    pass\n")
    script = REPO / "tests" / "nvim" / "lsp_smoke.lua"
    done = subprocess.run(
        [nvim, "--headless", "-n", "-u", "NONE", "-i", "NONE", "-c", f"luafile {script}"],
        env={**os.environ, "SEXTANT_BIN": SEXTANT, "SEXTANT_ROOT": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr + done.stdout
