# Two commands run everything (see README): `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run test lint typecheck bench messages

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

## The whole test suite (CI runs this same target against PostgreSQL and Redis): the generated
## whole-game tests in a second pytest process beside the rest (bin/test).
test: install
	VENV=$(VENV) ./bin/test $(PYTEST_ARGS)

## The checks CI and the pre-commit hooks run: lint, format, import contracts and the diagram
## drawn from them, types.
lint: install typecheck
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(PY) -m hearts_league.import_diagram --check

## mypy on what [tool.mypy] in pyproject.toml lists (engine/ strict, the Django apps at the default
## level with django-stubs), with its flags from there only.
typecheck: install
	$(VENV)/bin/mypy

bench: install
	$(PY) -m engine.bench

## Translations: refresh the message list and the catalogs, then compile them (commit the .po and
## .mo files; tests/hearts_league/test_i18n.py checks the .mo match). Needs gettext's msgfmt.
messages: install
	command -v msgfmt >/dev/null || (apt-get update -qq && apt-get install -y -qq gettext)
	$(PY) -m hearts_league.i18n
	$(PY) manage.py makemessages --all --no-obsolete --ignore=.venv --ignore=tests --ignore=bench --ignore='*/migrations/*'
	$(PY) manage.py makemessages --all --no-obsolete -d djangojs --ignore=.venv --ignore=staticfiles --ignore=tests
	$(PY) manage.py compilemessages --ignore=.venv
