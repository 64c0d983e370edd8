"""Every Prometheus metric a Tabula process exports, in one place (prometheus-client), and the
HTTP server a service process serves them on (TABULA_METRICS_PORT; the gateway serves them at
its own /metrics).

Labels never carry a game, player, ticket or command id: their number would grow without bound,
and a metric is read by whoever may scrape it. An outcome is "ok" or the reply's error code
(contracts.errors.ErrorCode), so refusals and failures are counted by code.
"""

import threading
from typing import Final
from wsgiref.simple_server import WSGIServer

from prometheus_client import Counter, Gauge, Histogram, start_http_server

OK: Final = "ok"
# Latencies from a tenth of a millisecond (a decide, a cached read) to ten seconds (a request
# that waited on a server coming back).
SECONDS: Final = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                  0.5, 1.0, 2.5, 5.0, 10.0)  # fmt: skip

# -- every service (services.runtime.service.ServiceApp) ---------------------------------------
REQUESTS: Final = Counter(
    "tabula_requests", "Requests a service answered, by endpoint and outcome (ok or the "
    "error's code)", ["service", "endpoint", "outcome"])  # fmt: skip
REQUEST_SECONDS: Final = Histogram(
    "tabula_request_seconds", "Time from a request's arrival to its answer",
    ["service", "endpoint"], buckets=SECONDS)  # fmt: skip
IN_FLIGHT: Final = Gauge("tabula_requests_in_flight", "Requests being handled", ["service"])

# -- the rules service ----------------------------------------------------------------------
COMMANDS: Final = Counter(
    "tabula_commands", "Game commands (create, act) by ruleset and outcome (ok or the error's "
    "code)", ["ruleset", "command", "outcome"])  # fmt: skip
DECIDE_SECONDS: Final = Histogram(
    "tabula_decide_seconds", "One decide of an action (the pure domain), by ruleset",
    ["ruleset"], buckets=SECONDS)  # fmt: skip
APPEND_SECONDS: Final = Histogram(
    "tabula_append_seconds", "One append to a game's log (the script, its fsync, the reply)",
    buckets=SECONDS)  # fmt: skip
APPEND_CONFLICTS: Final = Counter(
    "tabula_append_conflicts", "Appends refused because another writer moved the game first"
)
RULES_PARTITIONS: Final = Gauge(
    "tabula_rules_partitions", "Act partitions a rules replica serves: held, or offered to "
    "another replica and served until taken (services.rules.partitions)",
    ["replica", "state"])  # fmt: skip
GAMES_STARTED: Final = Counter("tabula_games_started", "Games created, by ruleset", ["ruleset"])
GAMES_FINISHED: Final = Counter("tabula_games_finished", "Games ended, by ruleset", ["ruleset"])

# -- the archiver and the projector ---------------------------------------------------------
GAMES_HOT: Final = Gauge(
    "tabula_games_hot", "Games in Valkey (its games index), in play or awaiting the archiver, "
    "at the archiver's last sweep")  # fmt: skip
ARCHIVE_BACKLOG: Final = Gauge(
    "tabula_archive_backlog", "Sealed games still in Valkey, at the archiver's last sweep"
)
ARCHIVED: Final = Counter(
    "tabula_archived", "Games the archiver handled, by outcome (archived, already, gone, "
    "kept, unsealed, refused, failed)", ["outcome"])  # fmt: skip
PROJECTED: Final = Counter(
    "tabula_projections", "Catch-ups of a game's projection, by outcome (projected, current, "
    "broken, failed)", ["outcome"])  # fmt: skip

# -- matchmaking ----------------------------------------------------------------------------
QUEUE_TICKETS: Final = Gauge(
    "tabula_queue_tickets", "Tickets waiting in the matchmaking queues of a ruleset (every "
    "variant), at a matchmaker's last sweep", ["ruleset"])  # fmt: skip
QUEUE_WAIT_SECONDS: Final = Histogram(
    "tabula_queue_wait_seconds", "Time from a table's first ticket's enqueue to its game",
    ["ruleset"], buckets=(1, 5, 15, 30, 60, 120, 300, 600, 1800))  # fmt: skip

# -- the gateway ----------------------------------------------------------------------------
HTTP_RESPONSES: Final = Counter(
    "tabula_http_responses", "HTTP responses by status, and by error code for errors",
    ["status", "code"])  # fmt: skip
WEBSOCKETS: Final = Gauge("tabula_websockets", "Open game feeds (WebSockets)")
BOT_HANDOVERS: Final = Counter(
    "tabula_bot_handovers", "House bot seats the gateway handed to the bots service, by outcome "
    "(handed, failed: retried by the next sweep)", ["outcome"])  # fmt: skip

# -- the bots -------------------------------------------------------------------------------
BOT_SEATS: Final = Gauge("tabula_bot_seats", "Bot seats this bots instance plays")
BOT_MOVES: Final = Counter(
    "tabula_bot_moves", "Game actions the bots chose, by level and how (random, own-bot, "
    "search, wins-at-once, only-action)", ["level", "how"])  # fmt: skip
BOT_THINK_SECONDS: Final = Histogram(
    "tabula_bot_think_seconds", "Time from a bot's turn to its chosen action (queueing for a "
    "thinker included), by level", ["level"],
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30))  # fmt: skip
BOT_THINK_CPU_SECONDS: Final = Histogram(
    "tabula_bot_think_cpu_seconds", "CPU time of a bot's search for one action, by level",
    ["level"], buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30))  # fmt: skip


def serve(port: int, host: str = "127.0.0.1") -> tuple[WSGIServer, threading.Thread]:
    """Serve this process's metrics at http://host:port/metrics, from a thread of its own."""
    return start_http_server(port, addr=host)
