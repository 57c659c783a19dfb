"""The front end's option table (js/src/options.js) as Node reads it: what Python's tests compare with the
widget's traits (tests/test_option_table.py) and take the control bar's words from (tests/locale_keys.py).

Node runs wherever the tests do: the front end's bundle check and tests need it too."""

from __future__ import annotations

import functools
import json
import pathlib
import shutil
import subprocess

JS = pathlib.Path(__file__).resolve().parent.parent / "js"

# Each option as data: its reader's value for a missing trait is its default (facts of a 3-token, 2-layer,
# 2-head input, which no default depends on).
_DUMP = """
import { FACTS, PICKS, VIEW_OPTIONS } from "./src/options.js";
const facts = { n: 3, nLayers: 2, nHeads: 2 };
const options = VIEW_OPTIONS.map((o) => ({
  trait: o.trait, key: o.key, kind: o.kind, choices: o.choices ?? null, low: o.low ?? null,
  high: o.high === Infinity ? null : (o.high ?? null), control: o.control ?? null,
  default: o.read(undefined, facts),
}));
console.log(JSON.stringify({ options, picks: PICKS, facts: FACTS }));
"""


@functools.cache
def front_end_options() -> dict:
    """``{"options": [{trait, key, kind, choices, low, high, control, default}], "picks": [...], "facts": [...]}``."""
    node = shutil.which("node")
    assert node, "node is not on PATH: the front end's build and tests need it (environment.md)"
    done = subprocess.run(
        [node, "--input-type=module", "-e", _DUMP], cwd=JS, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
