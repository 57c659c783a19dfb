"""The parts ``Analysis`` delegates to, one per family of quantities, each owning its cache.

attention (raw, rollout, path counts, null attention), effective (effective attention and what
is built on it), flow (max flows, kept per layer), gradients (targets, gradients, IG, token
scores). A context-mixing part (``parts/mixing.py``, ``Mixing(analysis)``) plugs in the
same way: created lazily by ``Analysis`` and reached through its methods.
"""
