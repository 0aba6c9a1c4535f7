# Two commands: `make run` serves the playground, `make test` runs the whole suite.
# Both create .venv (Python >= 3.12) and install what they need on first use.

VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

# The first interpreter >= 3.12 found: pyenv's pinned one, then the usual names.
PYTHON_FOR_VENV := $(shell for p in python3 python3.13 python3.12 python; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null \
	&& { echo $$p; break; }; done)

.PHONY: run dev test lint format bench clean

$(PY):
	@test -n "$(PYTHON_FOR_VENV)" || { echo "Python >= 3.12 is required (none found on PATH)."; exit 1; }
	$(PYTHON_FOR_VENV) -m venv $(VENV)

# uv installs the requirements in parallel: seconds where pip took a minute or more.
UV := $(VENV)/bin/uv
$(UV): | $(PY)
	$(PY) -m pip install --quiet uv

$(VENV)/.run-deps: requirements.txt | $(UV)
	$(UV) pip install --quiet --python $(PY) -r requirements.txt
	touch $@

$(VENV)/.test-deps: requirements.txt requirements-test.txt | $(UV)
	$(UV) pip install --quiet --python $(PY) -r requirements-test.txt
	touch $@ $(VENV)/.run-deps

# The vault's local key (see docs/connections.md): made once, kept out of the
# database and out of git, readable only by you. CONNECTIONS_KEY in the environment wins.
.connections-key:
	@umask 077 && $(PYTHON_FOR_VENV) -c 'import base64, os; print(base64.urlsafe_b64encode(os.urandom(32)).decode())' > $@

# `make run MCP="npx -y @modelcontextprotocol/server-everything"` (or an http(s) URL) connects
# one more MCP server, without a servers file; passed as is, whatever quotes it holds.
ifdef MCP
run: export MCP_COMMAND = $(MCP)
endif
run: $(VENV)/.run-deps .connections-key
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed --local-login
	@echo "Serving on http://$(HOST):$(PORT) (Ctrl+C stops)."
	DEBUG=$${DEBUG:-1} CONNECTIONS_KEY=$${CONNECTIONS_KEY:-$$(cat .connections-key)} \
		EMAIL_BACKEND=$${EMAIL_BACKEND:-django.core.mail.backends.console.EmailBackend} \
		$(PY) manage.py serve --host $(HOST) --port $(PORT) $(SERVE_FLAGS)

# `AGENT_MODULES=my_agents make dev`: `make run`, restarted whenever a Python file it imported
# changes (your agent modules too). Waiting questions stay: they are rows in the database.
dev: SERVE_FLAGS = --reload
dev: run

test: $(VENV)/.test-deps
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) -m pytest -n 4 --dist loadfile --durations=30
	# Races SQLite cannot have (its writes take turns), on the machine's PostgreSQL, as the
	# scale-out tests use it.
	DATABASE_URL=postgresql://postgres@127.0.0.1:5432/playground_suite \
		$(PY) -m pytest -p no:xdist -q tests/test_sign_on_at_once.py tests/test_conversation_sends_at_once.py

lint: $(VENV)/.test-deps
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

# `make bench` runs all benchmarks on both stacks; `make bench BENCH="push_latency --quick"`.
bench: $(VENV)/.test-deps
	$(PY) -m bench $(BENCH)

clean:
	rm -rf $(VENV) db.sqlite3 .local-login
