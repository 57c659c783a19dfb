"""Train the small vision transformer that ships with attn_widget (attn_widget/data/digits-vit).

A ViT for scikit-learn's handwritten digits (1,797 grey 8×8 images, 0..16): each image is stored
as uint8 (0..255), and the model reads it as attn_widget's own minimal preprocessing does when no
processor is given (``attn_widget.vision.pixel_values``: bilinear resize to 32×32, mean = std = 0.5),
so ``analyze(model, image)`` feeds the model exactly what it was trained on. Patches of 4×4 give an
8×8 grid: 64 patch tokens and [CLS]. 4 layers, 4 heads, width 64. It exists to show and test image
attention offline on a model that has learnt something: where does [CLS] read the strokes from?

Also saved: ``samples.npz``, 20 held-out images (two per digit, uint8 (20, 8, 8)) and their labels,
so notebooks and tests need no scikit-learn (only this script imports it).

Reproduce (one thread; 11 minutes wall-clock when measured on two CPU cores shared with several other
jobs, much less on an idle machine; CI never runs this)::

    PYTHONPATH=. .venv/bin/python scripts/train_digits_vit.py

The script is deterministic for a given torch build and prints the held-out accuracy (97.8% over 360 images).
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import time

import numpy as np
import torch
from transformers import ViTConfig, ViTForImageClassification

from attn_widget.vision import pixel_values

OUT = pathlib.Path(__file__).resolve().parents[1] / "attn_widget" / "data" / "digits-vit"


def digits() -> tuple[np.ndarray, np.ndarray]:
    """``(1797, 8, 8)`` uint8 images scaled from 0..16 to 0..255, and ``(1797,)`` labels."""
    from sklearn.datasets import load_digits

    data = load_digits()
    images = np.rint(data.images * 255.0 / 16.0).astype(np.uint8)
    return images, data.target.astype(np.int64)


def shifted(batch: torch.Tensor, generator: torch.Generator, pad: int = 2) -> torch.Tensor:
    """Each image moved by up to ``pad`` pixels each way, background (-1 after normalisation) filled in."""
    padded = torch.nn.functional.pad(batch, (pad, pad, pad, pad), value=-1.0)
    size = batch.shape[-1]
    out = torch.empty_like(batch)
    offsets = torch.randint(0, 2 * pad + 1, (len(batch), 2), generator=generator)
    for i, (dy, dx) in enumerate(offsets.tolist()):
        out[i] = padded[i, :, dy : dy + size, dx : dx + size]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)

    from sklearn.model_selection import train_test_split

    images, labels = digits()
    index = np.arange(len(images))
    train_idx, test_idx = train_test_split(index, test_size=0.2, random_state=0, stratify=labels)
    config = ViTConfig(
        image_size=32,
        patch_size=4,
        num_channels=1,
        hidden_size=64,
        num_hidden_layers=4,
        num_attention_heads=4,
        intermediate_size=128,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        num_labels=10,
        id2label={i: str(i) for i in range(10)},
        label2id={str(i): i for i in range(10)},
        attn_implementation="eager",
    )
    model = ViTForImageClassification(config)
    # The model's input is attn_widget's preprocessing of each uint8 image, nothing else.
    pixels = torch.cat([pixel_values(model, image) for image in images])  # (1797, 1, 32, 32)
    targets = torch.from_numpy(labels)
    x_train, y_train = pixels[train_idx], targets[train_idx]
    print(f"{len(train_idx)} training images, {len(test_idx)} held out")
    print(f"{sum(p.numel() for p in model.parameters()) / 1e6:.3f}M parameters")

    steps_per_epoch = math.ceil(len(x_train) / args.batch)
    total = args.epochs * steps_per_epoch
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)
    warmup = 100
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda s: (s + 1) / warmup if s < warmup else 0.5 * (1 + math.cos(math.pi * (s - warmup) / (total - warmup))),
    )
    g = torch.Generator().manual_seed(1)
    start = time.time()
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(x_train), generator=g)
        for step in range(steps_per_epoch):
            chosen = order[step * args.batch : (step + 1) * args.batch]
            loss = model(pixel_values=shifted(x_train[chosen], g), labels=y_train[chosen]).loss
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
        if epoch % 10 == 0 or epoch == args.epochs - 1:
            print(f"epoch {epoch:3d}  loss {loss.item():.4f}  {time.time() - start:.0f} s", flush=True)
    seconds = time.time() - start

    model.eval()
    with torch.no_grad():
        predicted = model(pixel_values=pixels[test_idx]).logits.argmax(-1)
    accuracy = (predicted == targets[test_idx]).double().mean().item()
    print(f"held-out accuracy {accuracy:.4f} over {len(test_idx)} images")

    # Two held-out images per digit, in label order, for notebooks and tests.
    samples = np.concatenate([test_idx[labels[test_idx] == d][:2] for d in range(10)])
    OUT.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(OUT)
    np.savez_compressed(OUT / "samples.npz", images=images[samples], labels=labels[samples].astype(np.uint8))
    (OUT / "training.json").write_text(
        json.dumps(
            {
                "data": "sklearn.datasets.load_digits, 80/20 stratified split (random_state=0)",
                "epochs": args.epochs,
                "batch": args.batch,
                "training_seconds": round(seconds),
                "held_out_images": len(test_idx),
                "held_out_accuracy": round(accuracy, 4),
                "torch": torch.__version__,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"saved to {OUT}")


if __name__ == "__main__":
    main()
