"""Envelopes that pin the wire format: written by Python, decoded by js/test/codec.test.js.

Regenerate after a deliberate format change with
``python tests/payload_fixtures.py`` (test_payload.py fails while they are stale).
"""

from __future__ import annotations

import json
import pathlib

import torch

from attn_widget import payload
from attn_widget.head_store import HeadStore

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "js" / "test" / "fixtures"


def cases() -> dict[str, tuple[torch.Tensor, int, list[int] | None]]:
    """name -> (matrices, byte budget, the slices held or None for all). Values are simple so the JS test can state
    them."""
    g = torch.Generator().manual_seed(7)
    stochastic = torch.rand(2, 3, 5, 5, generator=g, dtype=torch.float64)
    stochastic /= stochastic.sum(-1, keepdim=True)
    causal = torch.rand(2, 12, 12, generator=g, dtype=torch.float64).tril()
    causal /= causal.sum(-1, keepdim=True)
    signed = torch.randn(2, 4, 4, generator=g, dtype=torch.float64)
    signed[0, 1] = 0  # a zero row
    scores = torch.tensor([[[0.5, -0.25, 0.0, 1.0, -0.75, 0.125]]], dtype=torch.float64)  # token scores (1, 1, n)
    sparse = torch.zeros(3, 6, 6, dtype=torch.float64)  # a long input's deferred flow: a pinned token's rows only
    sparse[0, 2] = torch.rand(6, generator=g, dtype=torch.float64)
    sparse[2, 2] = torch.rand(6, generator=g, dtype=torch.float64) - 0.25
    return {
        "scores": (scores, payload.DEFAULT_BUDGET_BYTES, None),
        "dense": (stochastic, payload.DEFAULT_BUDGET_BYTES, None),
        "topk": (causal, 2 * 12 * (6 + 4 * 3), None),  # exactly k = 3 (dense needs 672 bytes)
        "signed": (signed, payload.DEFAULT_BUDGET_BYTES, None),
        "rows": (sparse, 3 * 6 * 10, None),  # dense would need 288 bytes, its two rows 40
        # A long input's per-head data: some slices only (the shown layer's heads, every layer's mean and max)
        "dense_slices": (stochastic, payload.DEFAULT_BUDGET_BYTES, [1, 2, 4]),
        "topk_slices": (causal, 12 * (6 + 4 * 3), [1]),  # slice 1 only, exactly k = 3
    }


HOSTILE_TOKENS = ["<s>", "<img src=x onerror=alert(1)>", "<script>alert(2)</script>", " cat", "\n", "&amp;"]
# Token text that is invisible, breaks lines, reorders text or is not allowed in XML or UTF-8
# (every C0 control, DEL, C1 controls, formatting characters, noncharacters, surrogates), and
# text that must stay as it is (right-to-left letters, combining marks, emoji, spaces).
UNSAFE_TOKENS = [
    *(chr(code) for code in range(0x20)),
    "\x7f", "\x80", "\x85", "\x9f", "soft\xadhyphen", "\u061c", "zero\u200bwidth", "\u200c\u200d\u200e\u200f",
    "\u2028", "\u2029", "abc\u202edef", "\u202a\u202b\u202c\u202d", "\u2066x\u2069", "\u2060", "\ufeff", "\ufffe",
    "\uffff",
    "\ud800", "a\udfffb", "\ud83d\ude00", "",
    "\u05e9\u05dc\u05d5\u05dd", "\u0627\u0644\u0642\u0637", "e\u0301", "Z\u0351\u0352\u0353\u0354\u0355",
    "\U0001f44d\U0001f3fd",
    " the", "\xa0", "\\x85", "\u2400",
]  # fmt: skip


def synthetic_widget(tokens: list[str] = HOSTILE_TOKENS, layers: int = 3, heads: int = 2, causal: bool = True):
    """An AttentionWidget over synthetic attention (no model), for front-end tests."""
    from attn_widget import AttentionWidget
    from attn_widget.analysis import Analysis
    from attn_widget.capture import Capture
    from attn_widget.models import HeadGeometry

    n = len(tokens)
    g = torch.Generator().manual_seed(11)
    logits = torch.randn(layers, heads, n, n, generator=g, dtype=torch.float64) * 2
    mask = torch.ones(n, n, dtype=torch.bool).tril() if causal else torch.ones(n, n, dtype=torch.bool)
    attentions = logits.masked_fill(~mask, float("-inf")).softmax(-1)
    record = Capture(
        tokens=tokens,
        token_ids=torch.arange(n),
        special=torch.tensor([i == 0 for i in range(n)]),
        heads=HeadStore.of(attentions),
        masks=mask.expand(layers, n, n),
        causal=causal,
        hidden_states=None,
        model_name="synthetic",
        model_type="synthetic",
        value_layout="synthetic",
        geometry=HeadGeometry(n_heads=heads, n_kv_heads=heads, head_dim=2, hidden_size=2 * heads),
        values=torch.randn(layers, heads, n, 2, generator=g, dtype=torch.float64),
        out_weights=torch.randn(layers, heads, 2, 2 * heads, generator=g, dtype=torch.float64),
        out_bias=torch.zeros(layers, 2 * heads, dtype=torch.float64),
        model_dtype=torch.float64,
    )
    return AttentionWidget(analysis=Analysis(record))


def widget_state(widget) -> dict:
    """The synced traits a front end receives once every method is computed (as ``to_html`` exports them),
    binary values as base64 (the export's own format)."""
    from attn_widget.export import widget_state as exported

    widget.prepare("all", wait=True)
    return exported(widget)


def write() -> None:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    expected = {}
    for name, (matrices, budget, slices) in cases().items():
        (FIXTURES / f"{name}.bin").write_bytes(payload.encode(matrices, budget, slices))
        expected[name] = {"shape": list(matrices.shape), "values": matrices.flatten().tolist(), "slices": slices}
    (FIXTURES / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    (FIXTURES / "widget_state.json").write_text(json.dumps(widget_state(synthetic_widget()), indent=1) + "\n")
    pairs = ",\n".join(f" {json.dumps(pair)}" for pair in display_tokens())
    (FIXTURES / "display_tokens.json").write_text(f"[\n{pairs}\n]\n")  # one pair a line


def display_tokens() -> list[list[str]]:
    """[token, as shown] for every unsafe token: js/test/text.test.js checks displayToken against it."""
    from attn_widget.text import display_token

    return [[token, display_token(token)] for token in UNSAFE_TOKENS]


if __name__ == "__main__":
    write()
