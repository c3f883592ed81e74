# fluidops: `make test` sets up what it needs (Debian packages, a cached venv, the host image)
# and runs every check. Caches live in $(FLUIDOPS_CACHE_DIR), outside the repository.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

export FLUIDOPS_CACHE_DIR ?= $(HOME)/.cache/fluidops
export CONTAINERS_CONF := $(CURDIR)/tools/podman/containers.conf
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
# Per checkout (git-ignored): ansible-lint installs a copy of this collection there.
export ANSIBLE_HOME := $(CURDIR)/.ansible
# ruff keeps its cache with the others, outside the checkout.
export RUFF_CACHE_DIR := $(FLUIDOPS_CACHE_DIR)/ruff

VENV_STAMP := $(FLUIDOPS_CACHE_DIR)/.venv-path
venv = $(shell cat $(VENV_STAMP))
run = PATH="$(venv)/bin:$$PATH"
# The tools' Python programs run as modules (python -m bench.deploy): they import the collection
# through .collections and each other from tools/, as pytest.ini's pythonpath gives the tests.
tools_run = $(run) PYTHONPATH="$(CURDIR)/.collections:$(CURDIR)/tools"

PLAYBOOKS := site.yml $(wildcard playbooks/*.yml)
SCENARIOS := $(notdir $(patsubst %/molecule.yml,%,$(wildcard molecule/*/molecule.yml)))

.PHONY: help deps host-image lint sanity unit core-oldest galaxy-import checks render-test schemas integration molecule cluster-test nodes-test upgrade-test beside-nodes-test test demo cluster-up cluster-down cluster-kubeconfig cluster-status render run bench bench-datapath role-docs

help:  ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-13s %s\n", $$1, $$2}'

deps:  ## Debian packages and the Python venv (cached by requirements hash)
	@mkdir -p $(FLUIDOPS_CACHE_DIR)
	@# A temporary file of this make's own (pid): two checkouts' makes may run deps at once.
	@tools/bootstrap.sh | tail -n1 > $(VENV_STAMP).$$$$ && mv $(VENV_STAMP).$$$$ $(VENV_STAMP)
	@echo "venv: $$(cat $(VENV_STAMP))"

host-image: deps  ## the podman image that stands in for a GPU node's OS (built once)
	@tools/hostimage/build.sh > $(FLUIDOPS_CACHE_DIR)/.host-image

# The shell scripts shellcheck reads: every *.sh, and every executable whose first line runs sh or bash.
shell_scripts = { git ls-files -- '*.sh'; git ls-files -s | awk '$$1 == "100755" {print $$4}' \
  | xargs awk 'FNR == 1 && /^\#!.*[/ ](ba)?sh( |$$)/ {print FILENAME} {nextfile}'; } | sort -u

lint: deps  ## shellcheck, ruff, yamllint, ansible-lint (production profile, offline), syntax check of every playbook, ansible-test sanity
	@scripts=$$($(shell_scripts)); shellcheck $$scripts && echo "shellcheck ok:" $$scripts
	$(run) ruff check .
	$(run) yamllint --strict .
	@# ansible-lint keeps a copy of this collection and does not refresh it: lint what is here.
	@rm -rf $(ANSIBLE_HOME)/collections/ansible_collections/fluidops
	$(run) ansible-lint --offline --profile production
	@# One run for all playbooks; an error names its file.
	$(run) ansible-playbook --syntax-check $(PLAYBOOKS) >/dev/null && echo "syntax ok: $(PLAYBOOKS)"
	@$(MAKE) --no-print-directory sanity

# Each role's variables are documented once, in its meta/argument_specs.yml; tests/unit/test_role_variables.py
# fails when a README's table, a default or the spec disagree.
role-docs: deps  ## write each role README's variables table from its meta/argument_specs.yml
	$(run) python tools/docs/role_variables.py

# ansible-test runs on a copy of the collection in $(FLUIDOPS_CACHE_DIR)/ansible-test, offline once its
# sanity tests' venvs are made (tools/checks/ansible_test.sh); tests/sanity/ignore-<core>.txt: what it
# is told to leave, each with its reason.
sanity: deps  ## ansible-test sanity at the pinned ansible-core (requirements.txt)
	tools/checks/ansible_test.sh $(venv) sanity

# tests/unit/test_fluid_previous.py renders the previous Fluid release's chart with the local cluster's helm.
unit: deps  ## pytest for the plugins, and the collection built and installed as users install it; the plugins' tests under ansible-test units
	@tools/localcluster/build.sh fluid-previous
	$(run) python -m pytest -q tests/unit
	tools/checks/ansible_test.sh $(venv) units --local tests/unit/plugins/

# The oldest ansible-core meta/runtime.yml allows, from a venv of its own (tools/checks/core-oldest.txt).
core-oldest: deps  ## ansible-test sanity and units at the oldest supported ansible-core (2.16)
	@oldest=$$(tools/checks/venv.sh core-oldest); \
	  tools/checks/ansible_test.sh $$oldest sanity && tools/checks/ansible_test.sh $$oldest units --local tests/unit/plugins/

galaxy-import:  ## the changelog (fragments lint, CHANGELOG.md as antsibull-changelog writes it), galaxy-importer on the built tarball
	tools/checks/galaxy_import.sh

render-test: deps  ## render mode: the seeds field by field, kubeconform on every rendered object
	@PYTHON=$(venv)/bin/python tools/kubeconform/setup.sh > $(FLUIDOPS_CACHE_DIR)/.kubeconform
	FLUIDOPS_KUBECONFORM=$$(sed -n 1p $(FLUIDOPS_CACHE_DIR)/.kubeconform) \
	FLUIDOPS_SCHEMA_LOCATION="$$(sed -n 2p $(FLUIDOPS_CACHE_DIR)/.kubeconform)" $(run) python -m pytest -q tests/render

schemas: deps  ## regenerate the schemas the collection ships (plugins/plugin_utils/schemas) after a pinned version changes
	PYTHON=$(venv)/bin/python tools/kubeconform/ship.sh

# Preflight renders the pinned charts: the integration tests take them, and helm, from the local
# cluster's parts (no chart repository answers here).
integration: host-image  ## preflight against real containers: bad input stops before anything changes
	@tools/localcluster/build.sh fluid alluxio
	FLUIDOPS_HOST_IMAGE=$$(cat $(FLUIDOPS_CACHE_DIR)/.host-image) $(run) python -m pytest -q tests/integration

molecule: host-image  ## every molecule scenario
	@for scenario in $(SCENARIOS); do \
	  echo "== molecule scenario $$scenario"; \
	  FLUIDOPS_HOST_IMAGE=$$(cat $(FLUIDOPS_CACHE_DIR)/.host-image) $(run) molecule test -s "$$scenario" || exit 1; \
	done

cluster-test: host-image  ## the simulated cluster (FLUIDOPS_NODES=kwok): Helm, the CRDs' schemas, the standalone chart
	$(run) python -m pytest -q --durations=20 tests/cluster

# Its own cluster (FLUIDOPS_CLUSTER_INSTANCE=1, tests/nodes/conftest.py), so that it can also run
# beside cluster-test's.
nodes-test: host-image  ## the local cluster's real nodes: site.yml whole with inventory/local, its phases, faults and check mode, the failures made for real
	$(run) python -m pytest -q --durations=15 tests/nodes

# Its own cluster of real nodes too (FLUIDOPS_CLUSTER_INSTANCE=3, tests/upgrade/conftest.py; make bench-datapath takes 2).
upgrade-test: host-image  ## Fluid's release before the pinned one deployed with a warm dataset, then upgraded by the upgrade runbook
	$(run) python -m pytest -q --durations=10 tests/upgrade

# The targets share no state (their clusters, containers, venvs and copies are their own): they
# run side by side, output kept per target. The static checks take one slot, one after another,
# galaxy-import last. The real nodes' suite, the longest, starts first; the simulated cluster's
# once the others beside it have ended, then the upgrade's, so that two clusters run at once only
# with nothing else: each runs Alluxio's JVMs, whose probes and leases have fixed deadlines.
test: deps  ## everything CI runs
	@# The local cluster's parts first, once: render-test, integration and the clusters read its charts.
	@tools/localcluster/build.sh
	@$(MAKE) --no-print-directory --output-sync=target -j2 nodes-test beside-nodes-test
	@echo "make test: all checks passed"

# The checks, render-test, integration and molecule run niced (19): they take the cores the real
# nodes' suite leaves. The kernel schedules each session as a group (autogroups) and ansible-runner
# starts one per run: tools/run.py gives that group the run's nice (docs/testing.md). cluster-test
# and upgrade-test are not niced: their clusters' JVMs have fixed deadlines.
beside-nodes-test: deps  ## checks, render-test, integration and molecule side by side (niced), then cluster-test, then upgrade-test
	@nice -n 19 $(MAKE) --no-print-directory --output-sync=target -j3 checks render-test integration molecule
	@$(MAKE) --no-print-directory cluster-test
	@$(MAKE) --no-print-directory upgrade-test

checks: deps  ## lint, unit, core-oldest and galaxy-import, one after another
	@$(MAKE) --no-print-directory -j1 lint unit core-oldest galaxy-import

# A benchmark, not a test: the bundle's runs at 4, 16 and 64 simulated nodes on the local cluster,
# which it starts if it is down and leaves up. BENCH_ARGS: tools/bench/deploy.py's options (--runs, --sizes).
bench: host-image  ## the bundle's own speed: cold, idempotent, status and render at 4/16/64 nodes, the OS phase, each tuning's ratio
	@tools/localcluster/build.sh
	$(tools_run) python -m bench.deploy $(BENCH_ARGS)

# A benchmark, not a test: about 20 minutes, with the local cluster down (it shares the cores); it
# starts a cluster of its own (instance 2) for Fluid's controller first, unless its values are kept.
bench-datapath: host-image  ## the data path measured: ramfs, a throttled S3 store, Alluxio cold/warm, profiles, FUSE options
	$(tools_run) python -m bench.datapath

cluster-up: host-image  ## start the local cluster (builds its parts once; later starts take seconds)
	@tools/localcluster/cluster.sh up

cluster-down:  ## stop the local cluster: no process, host container or state is left
	@tools/localcluster/cluster.sh down

cluster-kubeconfig:  ## print the local cluster's kubeconfig path
	@tools/localcluster/cluster.sh kubeconfig

cluster-status:  ## what of the local cluster runs
	@tools/localcluster/cluster.sh status

INVENTORY ?= inventory/local
RENDER_DIR ?= rendered
render: deps  ## write the manifests and Helm values site.yml would apply: make render INVENTORY=<dir> RENDER_DIR=<dir>
	$(run) ansible-playbook playbooks/render.yml -i $(INVENTORY) -e fluidops_render_dir=$(abspath $(RENDER_DIR))
	@echo "rendered $(INVENTORY) into $(abspath $(RENDER_DIR)):"; ls $(abspath $(RENDER_DIR))

# A run as AWX runs a project (tools/run.py): its artifacts in $FLUIDOPS_RUNS_DIR (default
# ~/.local/state/fluidops/runs), a summary from its job events at the end. EXTRA is one -e (key=value,
# JSON or @file), read from the environment so that its quotes survive; ARGS, more of tools/run.py's
# options (--limit, --tags, -vv).
PLAYBOOK ?= site.yml
run: deps  ## a playbook through ansible-runner, artifacts kept: make run PLAYBOOK=site.yml INVENTORY=<dir> [EXTRA=..] [CHECK=1] [VAULT_PASSWORD_FILE=<file>|ASK_VAULT_PASS=1] [ARGS=..]
	$(run) python tools/run.py $(PLAYBOOK) -i $(INVENTORY) $(if $(EXTRA),-e "$$EXTRA") $(if $(CHECK),--check) \
	  $(if $(VAULT_PASSWORD_FILE),--vault-password-file "$(VAULT_PASSWORD_FILE)") $(if $(ASK_VAULT_PASS),--ask-vault-password) $(ARGS)

# The demo's runs go through ansible-runner as make run's do: their summary and artifacts' path at
# their end. The benchmark (docs/runbooks/benchmark.md) leaves the dataset warm for the status table.
DEMO_REPORTS := $(FLUIDOPS_CACHE_DIR)/demo-benchmark
demo: cluster-up  ## start the local cluster, run site.yml against it, benchmark it, show the cache state
	$(run) python tools/run.py site.yml -i inventory/local
	@tools/localcluster/cluster.sh show
	$(run) python tools/run.py playbooks/benchmark.yml -i inventory/local -e benchmark_report_dir=$(DEMO_REPORTS)
	@echo; echo "== Benchmark, measured on the local cluster ($(DEMO_REPORTS))"; cat $(DEMO_REPORTS)/*.md
	@# The status playbook's log is kept; its tables end the demo as text.
	@$(run) ansible-playbook playbooks/status.yml -e cache_status_table_path=$(FLUIDOPS_CACHE_DIR)/demo-status.txt \
	  > $(FLUIDOPS_CACHE_DIR)/demo-status.log || { cat $(FLUIDOPS_CACHE_DIR)/demo-status.log; exit 1; }
	@echo; echo "== Cache state (ansible-playbook playbooks/status.yml)"; cat $(FLUIDOPS_CACHE_DIR)/demo-status.txt
	@echo "Next: make run PLAYBOOK=playbooks/status.yml      # this table again; docs/runbooks/ for day-2 operations"
	@echo "      make cluster-down                           # stop the local cluster (make test starts a fresh one)"
