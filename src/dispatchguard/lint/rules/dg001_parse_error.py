"""DG001: a file that cannot be read, decoded or parsed (reported once; other files are checked)."""

CODE = "DG001"
NAME = "unparsable-file"
SUMMARY = "File cannot be read, decoded or parsed"
MESSAGE = "cannot check this file: {reason}"

VALID: list[str] = ["x = 1\n"]
INVALID: list[str] = ["def broken(:  # error: DG001\n"]
