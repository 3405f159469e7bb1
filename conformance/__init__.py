"""The rules conformance suite's runner: declarative TOML scenarios (format in
``docs/scenarios.md``) loaded into a position, played turn by turn through the engine, and checked
against their expectations; plus the rule-coverage report. Run it with ``python -m conformance``.

It sits beside the engine, not in it: it reads files and prints, and imports only ``engine`` and
the standard library.
"""

from conformance.load import load_scenario
from conformance.model import Failure, FixedDice, Labels, Scenario, ScenarioError
from conformance.run import run_scenario

__all__ = [
    "Failure",
    "FixedDice",
    "Labels",
    "Scenario",
    "ScenarioError",
    "load_scenario",
    "run_scenario",
]
