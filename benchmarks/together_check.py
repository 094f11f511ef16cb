"""Together's own file checker (SDK v1, `together.utils.check_file`, which mirrors Together's
server-side rules) on one file, timed by run.py beside ftlint. It needs `together<2` in the
environment (the test extra has it). Prints whether Together accepts the file."""

from __future__ import annotations

import contextlib
import io
import sys


def main() -> None:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):  # the SDK's banner
        from together.utils import check_file

        report = check_file(sys.argv[1])
    print("together check_file:", "passed" if report.get("is_check_passed") else f"failed: {report.get('message', '')[:200]}")


if __name__ == "__main__":
    main()
