"""What the corpus grid's tests compare against, written from the definitions: WCAG contrast and the
rounding a cell shows."""

from __future__ import annotations


def hex_rgb(colour: str) -> tuple[int, int, int]:
    """``#rrggbb`` → (r, g, b) in 0..255."""
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def contrast(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    """WCAG 2 contrast ratio of two sRGB colours (1 to 21; 4.5 is the AA minimum for text)."""

    def luminance(colour):
        linear = [c / 255 / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in colour]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted([luminance(a), luminance(b)], reverse=True)
    return (light + 0.05) / (dark + 0.05)


def shows(text: str, value: float) -> bool:
    """``text`` is ``value`` rounded to two or more decimals."""
    places = len(text.partition(".")[2])
    return places >= 2 and text == f"{value:.{places}f}"
