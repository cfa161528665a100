import pytest

from dispatchguard.runtime import ToolRegistry


@pytest.fixture
def reg():
    r = ToolRegistry()

    @r.tool
    def add(a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: the first
            b: the second
        """
        return a + b

    return r
