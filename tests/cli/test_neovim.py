"""The Neovim 0.7-0.9 set-up of docs/editors.md, in a real headless Neovim: the snippet starts
`dispatchguard lsp` for a Python buffer and the buffer gets the CLI's findings as diagnostics.
Needs `nvim` on PATH (Debian: `apt-get install -y neovim`, 0.7.2); skipped without it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import PROJECT, write_tree

REPO = Path(__file__).resolve().parents[2]
NVIM = shutil.which("nvim")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(NVIM is None, reason="nvim is not installed (Debian: apt-get install -y neovim)"),
]

# Waits for the server's diagnostics, then writes them where the test reads them.
PROBE = """
local ok = vim.wait(60000, function() return #vim.diagnostic.get(0) >= %(count)d end, 100)
local found = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(found, { line = d.lnum + 1, col = d.col + 1, code = d.code, source = d.source })
end
vim.fn.writefile({ vim.fn.json_encode({ ok = ok, diagnostics = found }) }, %(out)s)
vim.cmd("qa!")
"""


def snippet() -> str:
    text = (REPO / "docs" / "editors.md").read_text(encoding="utf-8")
    section = text.split("Neovim 0.7 to 0.9", 1)[1]
    block = re.search(r"```lua\n(.*?)```", section, re.S)
    assert block is not None
    return block.group(1)


def test_the_neovim_07_snippet_shows_the_findings(tmp_path):
    project = write_tree(tmp_path / "proj", PROJECT)
    (tmp_path / "init.lua").write_text(snippet(), encoding="utf-8")
    out = tmp_path / "diagnostics.json"
    (tmp_path / "probe.lua").write_text(PROBE % {"count": 2, "out": json.dumps(str(out))}, encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_STATE_HOME=str(tmp_path / "state"), XDG_CACHE_HOME=str(tmp_path / "cache"))  # fmt: skip
    done = subprocess.run(
        [NVIM, "--headless", "-u", str(tmp_path / "init.lua"), "app/agent.py",
         "-c", f"luafile {tmp_path / 'probe.lua'}"],
        cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert out.exists(), done.stderr
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["ok"], result
    found = sorted((d["line"], d["col"], d["code"]) for d in result["diagnostics"])
    assert found == [(5, 12, "DG102"), (6, 12, "DG101")]
    assert {d["source"] for d in result["diagnostics"]} == {"dispatchguard"}
