# Cases of DG002 (unused-noqa), expanded by tests/lint/test_rules.py. Each `# case:` block is checked
# as a module of its own; `# error: DG002:COL MESSAGE` pins a finding (column and message) on its line.

# case: valid 1
from crewai.tools import BaseTool

class Search(BaseTool):
    def _run(self, q: str) -> str:
        return q

Search()._run("x")  # noqa: DG101

# case: valid 2
import os

os.getcwd()  # noqa: E501, F401

# case: valid 3
x = 1  # noqa

# case: invalid 1
x = 1  # noqa: DG101  # error: DG002:8 unused `noqa` directive (unused: DG101)

# case: invalid 2
import os

os.getcwd()  # noqa: E501, DG999  # error: DG002:14 unused `noqa` directive (unknown: DG999)

# case: invalid 3
from crewai.tools import BaseTool

class Search(BaseTool):
    def _run(self, q: str) -> str:
        return q

Search()._run("x")  # noqa: DG101, DG103  # error: DG002:21 unused `noqa` directive (unused: DG103)
