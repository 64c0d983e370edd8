"""`make test-long`: the long runs that do not fit `make test`. A fresh embedded stack (`tabula
up` in a temporary home) serves hundreds of random-bot Yavoch games of each ruleset through
matchmaking and the rules service; `tabula demo --audit` then audits every one of them, and the
run fails if a game does not finish or does not pass.

Run: .venv/bin/python -m tests.long.run [--games 200]
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.stack import TABULA, embedded_stack

VARIANTS = ("decker", "full")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--games", type=int, default=200, help="games per ruleset")
    args = p.parse_args()
    failed = []
    with tempfile.TemporaryDirectory() as home, embedded_stack(Path(home)):
        env = {k: v for k, v in os.environ.items() if k not in ("NATS_URL", "REDIS_URL")}
        env["TABULA_HOME"] = home  # `tabula demo` finds the stack there
        for variant in VARIANTS:
            print(f"yavoch {variant}: {args.games} games through the services, then audited",
                  flush=True)  # fmt: skip
            demo = subprocess.run([TABULA, "demo", "--ruleset", "yavoch", "--variant",
                                   variant, "--games", str(args.games), "--audit"],
                                  env=env, check=False)  # fmt: skip
            if demo.returncode != 0:
                failed.append(variant)
    if failed:
        sys.exit(f"FAILED: {', '.join(failed)}")
    print("OK: every game finished and passed the audit")


if __name__ == "__main__":
    main()
