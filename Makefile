# Two commands run everything (see README): `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run test lint bench

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

## Migrate, load demo data and serve (Daphne; a Celery worker too when REDIS_URL is set).
run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_demo
	HOST=$(HOST) PORT=$(PORT) VENV=$(VENV) ./bin/serve

## The whole test suite (CI runs this same target against PostgreSQL and Redis).
test: install
	$(VENV)/bin/pytest $(PYTEST_ARGS)

## The checks CI and the pre-commit hooks run: lint, format, import contracts.
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

bench: install
	$(PY) -m engine.bench
