"""Connecting to the bus: every connection's replies come under its user's own inbox prefix.

The server lets a user subscribe to its own prefix only (services.runtime.access), so no other
client can read its replies; an open server (no user in the URL) keeps NATS's default prefix.
"""

from typing import Any

import nats
from nats.aio.client import Client as NATS

from services.runtime.access import inbox_prefix, url_user


async def connect(url: str, **options: Any) -> NATS:
    user = url_user(url)
    if user:
        options.setdefault("inbox_prefix", inbox_prefix(user))
    return await nats.connect(url, **options)
