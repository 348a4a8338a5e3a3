# Two commands do all set-up on a fresh machine with Python 3.10+:
#   make demo   - create .venv, install the runtime + scikit-learn, run the demo on real data
#   make test   - create .venv, install the test requirements, run the whole test suite
# Both first generate each module folder's helpers from shared/ (make vendor; not committed).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test vendor release clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.demo-installed: $(BIN)/python requirements.txt examples/requirements.txt
	$(BIN)/python -m pip install --quiet -r examples/requirements.txt
	touch $@

$(VENV)/.test-installed: $(BIN)/python requirements.txt examples/requirements.txt tests/requirements.txt
	$(BIN)/python -m pip install --quiet -r tests/requirements.txt
	touch $@

demo: vendor $(VENV)/.demo-installed
	HF_HUB_OFFLINE=1 $(BIN)/python examples/demo.py

test: vendor $(VENV)/.test-installed
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest tests -q -n 2 --dist loadscope

# <module>/shared_core.py and <module>/shared_space.py, flattened from shared/ (standard library only).
vendor:
	$(PYTHON) -m shared.tooling.vendor

# make release NAMESPACE=<user-or-org> [ARGS=--dry-run]; the token comes from HF_TOKEN.
release: vendor $(VENV)/.test-installed
	$(BIN)/python -m shared.tooling.release --namespace $(NAMESPACE) $(ARGS)

clean:
	rm -rf $(VENV)
