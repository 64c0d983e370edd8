# Tabula: `make run` and `make test` work on a fresh machine with only Python 3.11.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-long test-faults test-cluster bench bench-archive bench-ratings bench-ladder screenshots lint schema clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Start the embedded stack, play one demo 3-D Chess game between two bots, keep serving.
run: $(STAMP)
	$(BIN)/tabula up --demo 1

# The browser tests drive Debian's Chromium (Playwright's executable_path; nothing downloads a
# browser at run time): installed here where it is absent (root, apt).
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium

test: $(STAMP) $(CHROMIUM)
	$(BIN)/pytest -q

test-long: $(STAMP)
	$(BIN)/python -m tests.long.run --games 200

# Kills of every process the stack runs during bot games, with a ledger check; then 50,000
# hostile messages over every request subject. `make test` runs a reduced version of both.
test-faults: $(STAMP)
	$(BIN)/python -m tests.faults.run --games 10 --kills 3
	$(BIN)/python -m tests.faults.fuzz --messages 50000

# The same on `tabula up --cluster` (3 NATS nodes, Valkey 3 primaries + 3 replicas, 2 of every
# service and gateway): a NATS node, a Valkey primary (failed over), a rules replica, a
# matchmaker, a gateway and the randomness service SIGKILLed in turn, 3 times each; then the
# cluster's own tests. `make test` runs a reduced version of both.
test-cluster: $(STAMP)
	$(BIN)/python -m tests.faults.run --cluster --games 5 --kills 3
	$(BIN)/pytest -q tests/cluster

bench: $(STAMP)
	$(BIN)/python -m tests.bench.run
	$(BIN)/python -m tests.bench.gateway
	$(BIN)/python -m tests.bench.cluster
	$(BIN)/python -m tests.bench.gateway --cluster --sockets 3000

# Issue 21's figures against one embedded stack: Valkey bytes left per finished game once
# archived, PostgreSQL bytes per archived game, the archive backlog, used_memory over 20,000
# short games, and reading/replaying an archived game against Valkey.
bench-archive: $(STAMP)
	$(BIN)/python -m tests.bench.archive --games 1000 --flat-games 20000

# Issue 23's figures: 1,000 rated 3-D Chess bot games, their ratings' spread, ratings --verify.
bench-ratings: $(STAMP)
	$(BIN)/python -m tests.bench.ratings --games 1000

# Issue 24's ladder of bot levels: 9 rulesets and variants, pairs 3v1 2v1 3v2 4v3 5v4, 40 games
# each, in worker processes. Many hours: it resumes from tests/bench/ladder.jsonl, so run it
# again to go on. `python -m tests.bench.ladder --readme` then puts its table in README.md.
bench-ladder: $(STAMP)
	$(BIN)/python -m tests.bench.ladder

# Each board in a browser, from a stack of its own, into docs/screenshots/.
screenshots: $(STAMP) $(CHROMIUM)
	$(BIN)/python -m tests.browser.screenshots

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

schema: $(STAMP)
	$(BIN)/tabula schema

clean:
	rm -rf $(VENV) .tabula .pytest_cache .mypy_cache .ruff_cache
