"""Find, by structure, each layer's block and its norms, and verify by one hooked forward pass
where the residual stream runs, so that the context-mixing methods (``parts/mixing.py``)
decompose what the model really computes.

Per layer, the *block* is the nearest ancestor of the attention site's module that is an item
of a ``ModuleList``. Its *norms* are the modules inside it whose class name contains "Norm", or
that have a weight and an epsilon (LayerNorm, RMSNorm, T5LayerNorm, ...), and that receive the
stream ``(n, d)`` (query/key norms are left out by their width). One forward pass (borrowed,
eager) records each block's input X, the output projection's output O (b_O included), every
norm's input and output, the outputs of the block's direct children, and the block's output Y.
Nothing is trusted from names; each layer is classified by what its modules received:

- **post-LN** (BERT, RoBERTa, DistilBERT, ELECTRA, ALBERT, ...): a norm LN1 receives X + O and a
  later norm LN2 returns Y. LN1 and LN2 must compute a LayerNorm or RMSNorm attn_widget can
  reproduce from their weights, and the decomposition must reconstruct LN1's output:
  Σ_j T_i(x_j) + L_i(b_O) + β = y_i.
- **pre-LN** (GPT-2, Llama, OPT, ...): a norm receives X + O (the second norm), or the block's
  output is X + O itself (T5's attention sub-layer).
- **parallel** (GPT-J, Falcon, Phi, CodeGen, GPT-NeoX): Y − X − O is the output of one of the
  block's children (the MLP, which read X, not X + O).

Anything else, such as a norm on the attention branch's output (Gemma 2's sandwich norms,
OLMo 2) or a scaled residual, makes the methods unavailable for that model, with one sentence
saying why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from .. import verify
from ..methods.decomposition import LinearNorm
from ..model_state import borrowed_for_capture
from .sites import Site, find_sites

POST_LN, PRE_LN, PARALLEL = "post-LN", "pre-LN", "parallel"
_EPS_NAMES = ("eps", "variance_epsilon", "epsilon", "layer_norm_eps")
_DEFAULT_EPS = (1e-5, 1e-6, 1e-12)  # tried, in turn, for norms that do not store theirs (OLMo)


def is_norm(module: nn.Module) -> bool:
    """A module that normalises: "Norm" in its class name, or a weight and an epsilon."""
    if "Norm" in type(module).__name__:
        return True
    return isinstance(getattr(module, "weight", None), torch.Tensor) and any(
        isinstance(getattr(module, name, None), float) for name in _EPS_NAMES
    )


@dataclass(frozen=True)
class NormFit:
    """A norm reproduced from its weights: y = gain ⊙ (z − center·mean z) / σ(z) + bias."""

    name: str  # dotted module name
    kind: str  # "LayerNorm" or "RMSNorm"
    gain: torch.Tensor  # (d,) float64
    bias: torch.Tensor  # (d,) float64
    eps: float

    def scale(self, z: torch.Tensor) -> torch.Tensor:
        """``(n,)`` σ_i of inputs ``(n, d)``: sqrt(Var + ε) (LayerNorm) or sqrt(mean z² + ε) (RMSNorm)."""
        z = z.to(torch.float64)
        if self.kind == "LayerNorm":
            return (z.var(-1, unbiased=False) + self.eps).sqrt()
        return (z.pow(2).mean(-1) + self.eps).sqrt()

    def linear(self, z: torch.Tensor) -> LinearNorm:
        """The norm linearised at the inputs it received ``(n, d)``."""
        return LinearNorm(self.gain, self.scale(z), self.kind == "LayerNorm", self.bias)

    def __call__(self, z: torch.Tensor) -> torch.Tensor:
        return self.linear(z).apply(z) + self.bias


def fit_norm(name: str, module: nn.Module, z: torch.Tensor, y: torch.Tensor, tolerance: float) -> NormFit | None:
    """The LayerNorm or RMSNorm (gain γ or 1 + γ) that maps the recorded input ``z`` to the recorded
    output ``y`` (both ``(n, d)``) within ``tolerance``, or None."""
    d = z.shape[-1]
    weight, bias = getattr(module, "weight", None), getattr(module, "bias", None)
    weight = weight.detach().to("cpu", torch.float64) if isinstance(weight, torch.Tensor) else None
    if weight is not None and weight.shape != (d,):
        return None
    bias = (
        bias.detach().to("cpu", torch.float64)
        if isinstance(bias, torch.Tensor)
        else torch.zeros(d, dtype=torch.float64)
    )
    if bias.shape != (d,):
        return None
    gains = [torch.ones(d, dtype=torch.float64)] if weight is None else [weight, 1.0 + weight]
    stored = [getattr(module, k) for k in _EPS_NAMES if isinstance(getattr(module, k, None), float)]
    for eps in stored[:1] or _DEFAULT_EPS:
        for kind in ("LayerNorm", "RMSNorm"):
            for gain in gains:
                fit = NormFit(name, kind, gain, bias, float(eps))
                if _close(fit(z), y, tolerance, z.abs()):
                    return fit
    return None


def _close(result: torch.Tensor, expected: torch.Tensor, tolerance: float, *scales: torch.Tensor) -> bool:
    """‖result − expected‖ within ``tolerance`` of the magnitudes involved (‖expected‖ + the scales)."""
    size = expected.to(torch.float64).norm() + sum(s.to(torch.float64).norm() for s in scales)
    return bool((result.to(torch.float64) - expected.to(torch.float64)).norm() <= tolerance * max(float(size), 1e-300))


@dataclass
class _Call:
    """What one call of a block recorded (tensors ``(n, d)`` float64 on the CPU)."""

    x: torch.Tensor | None = None
    y: torch.Tensor | None = None
    attention: list[torch.Tensor] = field(default_factory=list)  # output projection outputs O
    norms: list[tuple[str, nn.Module, torch.Tensor, torch.Tensor]] = field(
        default_factory=list
    )  # (name, module, in, out)
    children: list[tuple[str, torch.Tensor]] = field(default_factory=list)  # direct children's (n, d) outputs


@dataclass(frozen=True)
class Layer:
    """One layer's verified structure (tensors ``(n, d)`` float64)."""

    kind: str  # POST_LN, PRE_LN or PARALLEL
    x: torch.Tensor  # the block's input X (the residual)
    attention: torch.Tensor  # O: the output projection's output, b_O included
    output: torch.Tensor  # the block's output Y
    stream: torch.Tensor  # post-LN: LN1's output y; pre-LN and parallel: X + O (as the model summed it)
    norm1: NormFit | None = None  # post-LN: LN1 (its input is X + O)
    norm1_input: torch.Tensor | None = None
    norm2: NormFit | None = None  # post-LN: LN2 (its output is Y)
    norm2_input: torch.Tensor | None = None

    @property
    def linear1(self) -> LinearNorm | None:
        return None if self.norm1 is None or self.norm1_input is None else self.norm1.linear(self.norm1_input)

    @property
    def linear2(self) -> LinearNorm | None:
        return None if self.norm2 is None or self.norm2_input is None else self.norm2.linear(self.norm2_input)

    @property
    def rest(self) -> torch.Tensor:
        """Y − X − O: what the block adds to the stream besides attention (pre-LN and parallel: the MLP)."""
        return self.output - self.x - self.attention


@dataclass(frozen=True)
class Head:
    """The path from the last block to the logits: an optional final norm, then the unembedding."""

    final_norm: NormFit | None
    final_input: torch.Tensor  # (n, d) the final norm's input (the last block's output)
    output: torch.Tensor  # (n, d) what the unembedding received (the final norm's output)
    unembedding: torch.Tensor  # (V, d) W_U
    bias: torch.Tensor | None  # (V,) b_U


@dataclass(frozen=True)
class Structure:
    """Every layer's structure, or why it could not be verified; the same for the LM head."""

    layers: list[Layer] | None
    reason: str = ""  # why ``layers`` is None
    embeddings: torch.Tensor | None = None  # (n, d) the first block's input x⁰
    head: Head | None = None
    head_reason: str = ""  # why ``head`` is None
    chained: bool = False  # every block's input is the previous block's output


def block_of(model: nn.Module, site: Site) -> tuple[str, nn.Module] | None:
    """The nearest ancestor of the site's attention module that is an item of a ModuleList."""
    names = {id(module): name for name, module in model.named_modules()}
    modules = dict(model.named_modules())
    name = names.get(id(site.block))
    while name:
        parent = name.rsplit(".", 1)[0] if "." in name else ""
        if isinstance(modules.get(parent), nn.ModuleList):
            return name, modules[name]
        name = parent
    return None


def discover(model: nn.Module, record, sites: list[Site] | None = None) -> Structure:
    """Run ``model`` once on the capture's inputs (borrowed, eager, no gradients) and classify every layer.

    record: the ``Capture`` of the same text (its attention, values and output slices are used
    to verify the post-LN reconstruction).
    """
    name = type(model).__name__
    sites = find_sites(model) if sites is None else sites
    blocks: list[tuple[str, nn.Module]] = []
    for site in sites:
        found = block_of(model, site)
        if found is None:
            return Structure(None, f"{name}'s attention modules do not sit in a list of layer blocks.")
        if all(found[1] is not b for _, b in blocks):
            blocks.append(found)
    if not blocks:
        return Structure(None, f"attn_widget found no attention blocks in {name}.")
    calls, head_seen, ok_head = _record(model, record, sites, blocks)
    if len(calls) != record.n_layers or any(c.x is None or c.y is None for c in calls):
        return Structure(
            None, f"{name}'s layer blocks ran {len(calls)} times for its {record.n_layers} attention layers."
        )
    tolerance = verify.reproduction_tolerance(record.model_dtype)
    layers = []
    for index, call in enumerate(calls):
        layer = _classify(call, record, index, tolerance)
        if isinstance(layer, str):
            return Structure(None, f"in layer {index + 1} of {name}, {layer}")
        layers.append(layer)
    chained = all(_close(layers[k + 1].x, layers[k].output, tolerance) for k in range(len(layers) - 1))
    head, head_reason = _head(model, layers[-1], head_seen, ok_head, tolerance)
    return Structure(layers, "", layers[0].x, head, head_reason, chained)


def _record(model, record, sites, blocks):
    """One forward pass with hooks; returns the calls of the blocks in order, and the LM head's input."""
    block_ids = {id(block) for _, block in blocks}
    calls: list[_Call] = []
    current: list[_Call | None] = [None]
    d = record.out_weights.shape[-1] if record.out_weights is not None else None
    n = record.n_tokens
    head_seen: dict[str, Any] = {"norms": []}

    def stream(t) -> torch.Tensor | None:
        t = t[0] if isinstance(t, (tuple, list)) and t else t
        if not isinstance(t, torch.Tensor) or t.dim() not in (2, 3) or (t.dim() == 3 and t.shape[0] != 1):
            return None
        t = t[0] if t.dim() == 3 else t  # OPT flattens the batch before its second norm
        if t.shape[0] != n or (d is not None and t.shape[-1] != d):
            return None
        return t.detach().to("cpu", torch.float64, copy=True)  # a copy: blocks add to some in place

    def block_pre(module, args, kwargs):
        calls.append(_Call(x=stream(args[0] if args else kwargs.get("hidden_states"))))
        current[0] = calls[-1]

    def block_post(module, args, output):
        if current[0] is not None:
            current[0].y = stream(output)
        current[0] = None

    def attention_post(module, args, output):
        if current[0] is not None and (o := stream(output)) is not None:
            current[0].attention.append(o)

    def norm_post(name):
        def hook(module, args, output):
            z, y = stream(args[0] if args else None), stream(output)
            if z is None or y is None:
                return
            if current[0] is not None:
                current[0].norms.append((name, module, z, y))
            else:
                head_seen["norms"].append((name, module, z, y))

        return hook

    def child_post(name):
        def hook(module, args, output):
            if current[0] is not None and (o := stream(output)) is not None:
                current[0].children.append((name, o))

        return hook

    def head_pre(module, args):
        head_seen["input"] = stream(args[0] if args else None)

    handles = []
    with borrowed_for_capture(model, "context-mixing structure", eager=record.eager):
        try:
            for block_name, block in blocks:
                handles.append(block.register_forward_pre_hook(block_pre, with_kwargs=True))
                handles.append(block.register_forward_hook(block_post))
                for child_name, child in block.named_children():
                    handles.append(child.register_forward_hook(child_post(f"{block_name}.{child_name}")))
            for site in sites:
                handles.append(site.output.register_forward_hook(attention_post))
            for module_name, module in model.named_modules():
                if is_norm(module) and id(module) not in block_ids:
                    handles.append(module.register_forward_hook(norm_post(module_name)))
            head = _output_embeddings(model)
            if head is not None:
                handles.append(head.register_forward_pre_hook(head_pre))
            device = next(model.parameters()).device
            with torch.no_grad():
                outputs = model(**{k: v.to(device) for k, v in record.model_inputs.items()})
        finally:
            for handle in handles:
                handle.remove()
    ok_head = _head_reproduces_logits(head, head_seen.get("input"), outputs)
    return calls, head_seen, ok_head


def _output_embeddings(model) -> nn.Module | None:
    try:
        head = model.get_output_embeddings()
    except (AttributeError, NotImplementedError):
        return None
    return head if isinstance(getattr(head, "weight", None), torch.Tensor) else None


def _head_reproduces_logits(head, head_input, outputs) -> str:
    """ "" when the logits the model returned are W_U·h + b_U of the head's input h, else why not."""
    logits = getattr(outputs, "logits", None)
    if head is None or logits is None:
        return "it has no language-model head (logits over a vocabulary)"
    if head_input is None or logits.dim() != 3 or logits.shape[1] != head_input.shape[0]:
        return "its language-model head does not receive the residual stream of every token"
    weight = head.weight.detach().to("cpu", torch.float64)
    bias = getattr(head, "bias", None)
    rebuilt = head_input @ weight.T + (0 if bias is None else bias.detach().to("cpu", torch.float64))
    tolerance = max(verify.reproduction_tolerance(head.weight.dtype), 1e-5)
    if not _close(rebuilt, logits[0], tolerance, head_input.abs() @ weight.abs().T):
        return "its logits are not the unembedding of the last hidden state (they are scaled or capped afterwards)"
    return ""


def _classify(call: _Call, record, index: int, tolerance: float) -> Layer | str:
    """One layer's structure, or the end of a sentence saying why it is not recognised."""
    if len(call.attention) != 1:
        return f"the output projection ran {len(call.attention)} times in one block"
    x, o, y = call.x, call.attention[0], call.y
    assert x is not None and y is not None  # discover() refused calls without them
    summed = x + o
    norms = [(name, module, z, out) for name, module, z, out in call.norms]
    if any(_close(z, o, tolerance) for _, _, z, _ in norms) and not _close(o, summed, tolerance):
        return "the block normalises the attention output before adding it to the residual stream (a sandwich norm)"
    # Post-LN: LN1 receives X + O, and a later norm returns the block's output.
    for k, (name1, module1, z1, out1) in enumerate(norms):
        if not _close(z1, summed, tolerance, x, o):
            continue
        last = [(n2, m2, z2, y2) for n2, m2, z2, y2 in norms[k:] if _close(y2, y, tolerance)]
        if not last:  # pre-LN: this is the norm of the sub-layer after attention
            return _checked(Layer(PRE_LN, x, o, y, summed), record, index, tolerance)
        fit1 = fit_norm(name1, module1, z1, out1, _norm_tolerance(record))
        name2, module2, z2, y2 = last[-1]
        fit2 = fit_norm(name2, module2, z2, y2, _norm_tolerance(record))
        if fit1 is None or fit2 is None:
            bad = name1 if fit1 is None else name2
            return f"its norm {bad} does not compute a LayerNorm or RMSNorm that attn_widget can reproduce"
        layer = Layer(POST_LN, x, o, y, out1, fit1, z1, fit2, z2)
        error = _reconstruction_error(layer, record, index)
        if error > tolerance:
            return f"the decomposition does not reconstruct the first layer norm's output (relative error {error:.2g})"
        return layer
    # Pre-LN: the stream X + O is the block's output, or the input of the sub-layer after attention.
    if _close(y, summed, tolerance, x, o):
        return _checked(Layer(PRE_LN, x, o, y, summed), record, index, tolerance)
    rest = y - summed
    for _, child in call.children:
        if _close(child, rest, tolerance, x, o):
            return _checked(Layer(PARALLEL, x, o, y, summed), record, index, tolerance)
    return "no norm or output of the block shows the residual stream x + attention output (is the residual scaled?)"


def _norm_tolerance(record) -> float:
    """Norms of float64 models may compute in float32 (Llama's RMSNorm upcasts to float32 only)."""
    return max(verify.reproduction_tolerance(record.model_dtype), 1e-5)


def _heads_output(record, index: int) -> torch.Tensor:
    """Σ_h A^h V W_O^h ``(n, d)`` from the capture, float64."""
    values, weights, _ = record.require_values()
    a = record.heads[index].to(torch.float64)
    v = values[index].to(torch.float64)[record.geometry.kv_group()]
    heads, n, d_h = v.shape
    context = (a @ v).transpose(0, 1).reshape(n, heads * d_h)  # (n, H·d_h): the heads side by side
    return context @ weights[index].to(torch.float64).reshape(heads * d_h, -1)  # one GEMM over (h, d_h)


def _checked(layer: Layer, record, index: int, tolerance: float) -> Layer | str:
    """A pre-LN layer: the capture's A·V·W_O + b_O must be this pass's attention output O."""
    assert record.out_bias is not None  # captures with value vectors have the output bias
    rebuilt = _heads_output(record, index) + record.out_bias[index].to(torch.float64)
    if not _close(rebuilt, layer.attention, tolerance, rebuilt):
        return "the captured attention does not reproduce this pass's attention output"
    return layer


def _reconstruction_error(layer: Layer, record, index: int) -> float:
    """Post-LN: ‖Σ_j T_i(x_j) + L_i(b_O) + β − y‖ / ‖y‖ (y = LN1's output, of norm about sqrt(d)·|γ|)."""
    linear, out_bias = layer.linear1, record.out_bias
    assert linear is not None and out_bias is not None  # a post-LN layer of a capture with values
    z = _heads_output(record, index) + layer.x + out_bias[index].to(torch.float64)
    rebuilt = linear.apply(z) + linear.bias
    return float((rebuilt - layer.stream).norm() / layer.stream.norm().clamp(min=1e-300))


def _head(model, last: Layer, seen: dict, ok_head: str, tolerance: float) -> tuple[Head | None, str]:
    """The final norm (if any) between the last block and the unembedding, verified, and W_U."""
    if ok_head:
        return None, ok_head
    if last.kind == POST_LN:
        return None, "it is a post-LN model, whose stream is normalised inside every block"
    head = _output_embeddings(model)
    if head is None or not isinstance(getattr(head, "weight", None), torch.Tensor):
        return None, "it has no language-model head with an unembedding matrix"
    h = seen["input"]
    weight = torch.as_tensor(head.weight).detach().to("cpu", torch.float64)
    bias = getattr(head, "bias", None)
    bias = None if bias is None else bias.detach().to("cpu", torch.float64)
    if _close(h, last.output, tolerance):
        return Head(None, last.output, h, weight, bias), ""
    for name, module, z, out in seen["norms"]:
        if _close(out, h, tolerance) and _close(z, last.output, tolerance):
            fit = fit_norm(name, module, z, out, max(tolerance, 1e-5))
            if fit is None:
                return None, f"its final norm {name} is not a LayerNorm or RMSNorm attn_widget can reproduce"
            return Head(fit, z, h, weight, bias), ""
    return (
        None,
        "nothing between its last block and its language-model head is a single norm of the last block's output",
    )
