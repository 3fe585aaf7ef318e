# Two commands do all the set-up on a fresh Debian machine (see README.md).
.PHONY: run test test-compat setup bench docs

setup:
	bash scripts/setup.sh

run: setup
	.venv/bin/m2bridge doctor
	.venv/bin/m2bridge paper --out report

# two pytest workers (pytest-xdist), one Macaulay2 session each: the suite in about half the time on two cores
test: setup
	cd tests && M2BRIDGE_REQUIRE_M2=1 ../.venv/bin/python -m pytest -q -p no:cacheprovider -n 2

# the bridge, exact and example tests again against a second Macaulay2 (1.25 or 1.26, whichever runs on this CPU)
test-compat: setup
	bash scripts/m2-compat.sh

bench: setup
	.venv/bin/python bench/bridge.py
	.venv/bin/python bench/exact.py
	.venv/bin/python bench/numeric.py
	.venv/bin/python bench/startup.py
	.venv/bin/python bench/parallel.py
	.venv/bin/python bench/monodromy.py

# the documentation site (docs/): Sphinx, the notebooks executed while it is built, warnings as errors
docs: setup
	.venv/bin/python -m pip install -q ".[docs]"
	rm -rf docs/_build/html
	.venv/bin/python -m sphinx -W --keep-going -q -b html docs docs/_build/html
	@echo "docs: open docs/_build/html/index.html"
