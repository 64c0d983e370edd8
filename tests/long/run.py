"""`make test-long`: the long runs that do not fit `make test`. A fresh embedded stack (`tabula
up` in a temporary home) serves hundreds of random-bot games of each Yavoch, Yiora and Spacewar
variation through matchmaking and the rules service; `tabula demo --audit` then audits every
one of them, and the run fails if a game does not finish or does not pass.

Run: .venv/bin/python -m tests.long.run [--games 200]
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.stack import TABULA, embedded_stack

VARIANTS = (
    ("yavoch", "decker"),
    ("yavoch", "full"),
    ("yiora", "primary"),
    ("yiora", "secondary_basic"),  # four seats
    ("yiora", "secondary_complex"),
    ("yiora", "secondary_complex+complex_turn_mode=parallel"),
    ("yiora", "secondary_complex+teams"),  # four seats in two teams
    # Random bots rarely end a Spacewar game: the turn limit (SW-8.4, HA-8.4) bounds them.
    ("spacewar", "turn_limit=20"),
    ("spacewar-ha", "turn_limit=100"),
)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--games", type=int, default=200, help="games per ruleset and variation")
    args = p.parse_args()
    failed = []
    with tempfile.TemporaryDirectory() as home, embedded_stack(Path(home)):
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("NATS_URL", "REDIS_URL", "DATABASE_URL")
        }
        env["TABULA_HOME"] = home  # `tabula demo` finds the stack there
        for ruleset, variant in VARIANTS:
            print(f"{ruleset} {variant}: {args.games} games through the services, then audited",
                  flush=True)  # fmt: skip
            demo = subprocess.run([TABULA, "demo", "--ruleset", ruleset, "--variant",
                                   variant, "--games", str(args.games), "--audit"],
                                  env=env, check=False)  # fmt: skip
            if demo.returncode != 0:
                failed.append(f"{ruleset} {variant}")
    if failed:
        sys.exit(f"FAILED: {', '.join(failed)}")
    print("OK: every game finished and passed the audit")


if __name__ == "__main__":
    main()
