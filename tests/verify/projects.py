"""Tool sources that more than one test of tests/verify writes into its projects."""

#: A tool class that cannot be built without its key, and the factory that builds it (for
#: ``[tool.dispatchguard.verify.factories]``); it answers a dict. The module imports ``BaseTool``.
KEYED_TOOL = '''
class Keyed(BaseTool):
    name: str = "keyed"
    description: str = "Needs its key to be built; answers a dict."
    key: str

    def _run(self, q: str) -> dict:
        return {"q": q}


def make_keyed() -> Keyed:
    return Keyed(key="from-the-factory")
'''
