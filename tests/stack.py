"""A `tabula up` of its own, for the runs that need the whole embedded stack as an operator
starts it (`make test-long`, `make test-faults`): in a home of its own, with NATS_URL and
REDIS_URL ignored, serving once entered, stopped with Ctrl-C on exit.

Its output is read all along (into a bounded tail), so a chatty supervisor never blocks on a
full pipe.
"""

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from services.runtime.config import StackFile

TABULA = str(Path(sys.executable).parent / "tabula")


class NotServing(RuntimeError):
    """`tabula up` ended before it said it was serving."""


@dataclass
class Up:
    proc: subprocess.Popen[str]
    home: Path
    output: deque[str] = field(default_factory=lambda: deque(maxlen=500))

    @property
    def stack(self) -> StackFile:
        """What the stack tells its clients (stack.json: the player's and admin's URLs)."""
        return msgspec.json.decode((self.home / "stack.json").read_bytes(), type=StackFile)


@contextlib.contextmanager
def embedded_stack(home: Path, *args: str, **env: str) -> Iterator[Up]:
    """`tabula up` in `home` (with `args`, e.g. --cluster), with `env` added to its environment,
    until the block ends."""
    environ = {
        k: v for k, v in os.environ.items() if k not in ("NATS_URL", "REDIS_URL", "DATABASE_URL")
    }
    environ |= {"TABULA_HOME": str(home), **env}
    proc = subprocess.Popen(
        [TABULA, "up", "--port", "0", *args],
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    up = Up(proc, home)
    reader = None
    try:
        for line in proc.stdout:
            up.output.append(line)
            if "Serving" in line:
                break
        else:
            raise NotServing("`tabula up` stopped before serving:\n" + "".join(up.output))
        reader = threading.Thread(target=up.output.extend, args=(proc.stdout,), daemon=True)
        reader.start()
        yield up
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=120)
        if reader is not None:
            reader.join(timeout=10)
        proc.stdout.close()
