# Cases of DG001 (unparsable-file), expanded by tests/lint/test_rules.py. Each `# case:` block is checked
# as a module of its own; `# error: DG001:COL MESSAGE` pins a finding (column and message) on its line.

# case: valid 1
x = 1

# case: valid 2
def broken_but_not_about_tools(:

# case: invalid 1
from crewai.tools import BaseTool; def broken(:  # error: DG001:36 cannot check this file: syntax error: invalid syntax
