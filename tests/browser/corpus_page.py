"""Reading the corpus widget (CorpusWidget) off a page in any host as a reader sees it: each grid cell's
colours, computed colours blended over what is beneath them, and every text's WCAG contrast with what it is
drawn on (grid_checks.contrast)."""

from __future__ import annotations

import re

from grid_checks import contrast

VIRIDIS_LOW, VIRIDIS_HIGH = (68, 1, 84), (253, 231, 37)  # #440154, #fde725: the ends of viridis


def rgba(css: str) -> tuple[float, float, float, float]:
    """A computed ``rgb(...)`` or ``rgba(...)`` colour as (r, g, b, alpha)."""
    numbers = [float(n) for n in re.findall(r"[\d.]+", css)]
    return (*numbers[:3], numbers[3] if len(numbers) > 3 else 1.0)  # type: ignore[return-value]


def rgb(css: str) -> tuple[int, ...]:
    """A computed colour's (r, g, b), its alpha left out."""
    return tuple(int(c) for c in rgba(css)[:3])


def over(top: str, below: tuple[float, ...]) -> tuple[float, ...]:
    """``top`` (a computed colour, maybe translucent) as seen over the opaque colour ``below``."""
    *channels, alpha = rgba(top)
    return tuple(alpha * c + (1 - alpha) * b for c, b in zip(channels, below, strict=True))


# The elements of the corpus widget (root) that show text of their own.
OWN_TEXTS = """[root, ...root.querySelectorAll('*')].filter((el) =>
    [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()) && el.checkVisibility())"""
# Each of them with its text colour and the backgrounds from it up to the first opaque one (what the text is
# drawn on), as computed styles give them.
TEXTS_AND_BACKGROUNDS = (
    f"root => {OWN_TEXTS}"
    + """.map((el) => {
    const layers = [];
    for (let at = el; at; at = at.parentElement) {
      layers.push(getComputedStyle(at).backgroundColor);
      if (!/rgba|transparent/.test(layers.at(-1)) || / 1\\)$/.test(layers.at(-1))) break;
    }
    return [el.textContent.trim().slice(0, 40), getComputedStyle(el).color, layers];
  })"""
)


def blended(layers: list[str]) -> tuple[float, ...]:
    """What shows through computed backgrounds ``layers`` (innermost first) laid over a white page."""
    colour: tuple[float, ...] = (255.0, 255.0, 255.0)
    for layer in reversed(layers):
        colour = over(layer, colour)
    return colour


def page_background(page) -> tuple[float, ...]:
    """The page's colour behind the widget: the first opaque background above it (white if none)."""
    layers = page.eval_on_selector(
        ".attnw-corpus",
        "el => { const out = []; for (let at = el; at; at = at.parentElement) out.push(getComputedStyle(at)"
        ".backgroundColor); return out; }",
    )
    return blended(layers)


def illegible(page) -> list[tuple[str, float]]:
    """(text, contrast) of every text in the corpus widget (cells, key, labels, buttons, listed texts) whose
    contrast with what it is drawn on is below WCAG AA (4.5); translucent colours are blended over what is
    beneath them."""
    found = page.eval_on_selector(".attnw-corpus", TEXTS_AND_BACKGROUNDS)
    shown = page.locator(".attnw-corpus-cell").count() + page.locator(".attnw-corpus-key").count()
    assert len(found) > shown, f"{len(found)} texts for {shown} cells and colours: the page is not drawn yet"
    low = []
    for text, colour, backgrounds in found:
        ground = blended(backgrounds)
        ratio = contrast(over(colour, ground), ground)
        if ratio < 4.5:
            low.append((text, round(ratio, 2)))
    return low


def cell_colours(page) -> dict[tuple[int, int], tuple[tuple[int, ...], tuple[int, ...], str]]:
    """(layer, head) → (background, text colour, text) of every grid cell as the page draws it."""
    found = page.eval_on_selector_all(
        ".attnw-corpus-cell",
        """cells => cells.map((cell) => {
            const style = getComputedStyle(cell);
            const name = [...cell.classList].find((c) => /^attnw-corpus-l\\d+-h\\d+$/.test(c));
            return [name, style.backgroundColor, style.color, cell.textContent.trim()];
        })""",
    )
    cells = {}
    for name, background, colour, text in found:
        layer, head = map(int, re.findall(r"\d+", name))
        cells[(layer, head)] = (rgb(background), rgb(colour), text)
    return cells


def cut_texts(page) -> list[str]:
    """The texts in the corpus widget that do not fit their box and are cut off (an ellipsis, or clipped)."""
    return page.eval_on_selector(
        ".attnw-corpus",
        f"""root => {OWN_TEXTS}.filter((el) => el.tagName !== 'OPTION'
            && getComputedStyle(el).overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1
          ).map((el) => el.textContent.trim())""",
    )
