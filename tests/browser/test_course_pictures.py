"""The course's questions answered from the picture alone (issue 34), in real Chromium, in English and in
the Chinese the _zh notebooks show: each notebook's widget, the token its question focuses, and the drawn
pixels that must show the answer's ordering."""

from __future__ import annotations

import numpy as np
import pytest
from payload_fixtures import widget_state

from attn_widget import AttentionWidget, analyze
from attn_widget.demo import pydoc_gpt2

from .page import TEXT, and_paint, geometry, open_state, row_point, set_width
from .test_scales import LAYER, LONG_TEXT, blueness, departure, luminance, screen
from .test_scales import TEXT as COURSE_TEXT

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def course05(minilm):
    """notebooks/course/05_attention_flow.ipynb: MiniLM on the course's sentence, flow computed."""
    model, tokenizer = minilm
    a = analyze(model, TEXT, tokenizer)
    a.flow(progress=False)
    return a


def input_dots(page, picture: np.ndarray, n: int) -> np.ndarray:
    """Luminance of each input token's dot (the whole-model view's first column), read just left of its
    centre, where no edge leaves it."""
    box = page.locator("canvas.attnw-canvas").bounding_box()
    g = geometry(page)
    x = int(box["x"] + page.eval_on_selector("canvas.attnw-canvas", "c => JSON.parse(c.dataset.columns)")[0]) - 2
    rows = [int(round(box["y"] + g["top"] + (i + 0.5) * g["row"])) for i in range(n)]
    return np.array([luminance(picture[y - 1 : y + 2, x - 1 : x + 1]).min() for y in rows])


# Luminance (0-255, Rec. 709, on the white page) of the input dots of course 05's picture, measured in Debian
# Chromium 760 px wide: flow shades every input between 15 and 67 (its shares 0.056 to 0.068, each column
# scaled to its largest); rollout [CLS] 15 and the third strongest input 238.
SPREAD = 80  # flow: no input dot more than this paler than the darkest: no token dominates
# The strongest input this much darker than the third strongest. Course 06 (the last token, layer 4), measured:
# rollout 22 against 184 ("The" 0.31, the third 0.11); after RF-B, 22 against 88 (" iterate" 0.13, the third 0.094).
CONTRAST = {"rollout": 100, "rollout_rf": 40}
SCALE = {"en": "colour: this token's edges, 0 to {high}", "zh": "颜色：这个 token 的边，0 到 {high}"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_course_05_flow_spreads_where_rollout_has_one_dominant_input(browser, page_server, course05, artifacts, lang):
    """Course 05's question: pin "it" in the last column. With attention flow the input tokens are shaded
    almost alike (its shares run 0.056 to 0.068); with rollout one input, [CLS] (0.58), is plainly darker than
    the rest."""
    a = course05
    it = a.tokens.index("it")
    n = len(a.tokens)
    seen = {}
    for method in ("flow", "rollout"):
        w = AttentionWidget(analysis=a, method=method, view="model", lang=lang)
        page, errors = open_state(browser, page_server, widget_state(w))
        set_width(page, 760)
        columns = page.eval_on_selector("canvas.attnw-canvas", "c => JSON.parse(c.dataset.columns)")
        box = page.locator("canvas.attnw-canvas").bounding_box()
        g = geometry(page)
        point = box["x"] + columns[-1], box["y"] + g["top"] + (it + 0.5) * g["row"]
        and_paint(page, lambda page=page, point=point: page.mouse.click(*point))
        and_paint(page, lambda page=page: page.mouse.move(5, 5))
        assert page.evaluate("window.model.get('selected')") == {"layer": a.n_layers, "index": it}
        picture = screen(page)
        page.locator(".attnw-root").screenshot(path=str(artifacts / f"course05-{method}-{lang}.png"))
        seen[method] = input_dots(page, picture, n)
        print(method, lang, np.round(seen[method]).tolist())
        assert errors == []
        page.close()
    flow, rollout = seen["flow"], seen["rollout"]
    assert flow.max() - flow.min() <= SPREAD, flow  # spread out: every input shaded about alike
    order = np.argsort(-a.rollout()[-1, it].numpy())
    assert a.tokens[int(order[0])] == "[CLS]"
    assert rollout[order[2]] - rollout[order[0]] >= CONTRAST["rollout"], rollout  # rollout: [CLS] dominates
    assert (flow < rollout[order[1]]).all(), (flow, rollout)  # flow's palest input beside rollout's runner-up


@pytest.fixture(scope="module")
def course06():
    """notebooks/course/06 and 07: the shipped GPT-2 on the course's short text."""
    model, tokenizer = pydoc_gpt2()
    return analyze(model, COURSE_TEXT, tokenizer)


def hover_last(page, n: int) -> np.ndarray:
    and_paint(page, lambda: page.mouse.move(*row_point(page, geometry(page)["right"], n - 1)))
    return screen(page)


@pytest.mark.parametrize(
    ("lang", "method"), [("zh", "rollout"), ("en", "rollout_rf"), ("zh", "rollout_rf")]
)  # English raw rollout: tests/browser/test_scales.py
def test_course_06_the_strongest_input_of_the_last_token_stands_out(
    browser, page_server, course06, artifacts, lang, method
):
    """Course 06's question: hovering the last token, ".", its strongest input ("The", 0.31, with rollout;
    " iterate", 0.13, after RF-B) is drawn darker than its third strongest by CONTRAST, and the legend says the
    colours span this token's edges. After RF-B " iterate", then " a", show as the two darkest."""
    w = AttentionWidget(analysis=course06, method=method, layer=LAYER, lang=lang)
    row = w.to_frame(method=method).to_numpy()[-1]
    order = np.argsort(-row)
    strongest = int(order[0])
    assert course06.tokens[strongest] == {"rollout": "The", "rollout_rf": " iterate"}[method]
    page, errors = open_state(browser, page_server, widget_state(w))
    set_width(page, 760)
    picture = hover_last(page, len(course06.tokens))
    page.locator(".attnw-root").screenshot(path=str(artifacts / f"course06-{method}-{lang}.png"))
    dark, middle, pale = (departure(picture, page, int(j)) for j in order[:3])
    print(f"{method} {lang}: {np.round(row[order[:3]], 3).tolist()} at luminance {dark:.0f}, {middle:.0f}, {pale:.0f}")
    assert pale - dark >= CONTRAST[method] and dark < middle < pale, (dark, middle, pale)
    assert page.locator(".attnw-legend-scale").inner_text() == SCALE[lang].format(high=f"{row[strongest]:.2f}")
    page.mouse.move(5, 5)
    assert errors == []
    page.close()


def test_course_07_the_last_tokens_negative_edges_are_blue_in_chinese(browser, page_server, course06, artifacts):
    """Course 07's question in the zh notebook: the long text's last token on effective attention, layer 4: its
    most negative edge (-0.013) is drawn plainly blue (as tests/browser/test_scales.py checks in English)."""
    w = AttentionWidget(
        course06.model, LONG_TEXT, course06.tokenizer, method="effective", layer=LAYER, window=[0, 42], lang="zh"
    )
    row = w.to_frame(method="effective").to_numpy()[-1]
    negative = int(row.argmin())
    assert round(float(row[negative]), 3) == -0.013
    page, errors = open_state(browser, page_server, widget_state(w))
    page.set_viewport_size({"width": 800, "height": 1500})  # every row on screen, the last one to hover
    set_width(page, 760)
    picture = hover_last(page, len(w.tokens))
    page.locator(".attnw-root").screenshot(path=str(artifacts / "course07-effective-zh.png"))
    blue = blueness(picture, page, negative)
    print(f"most negative edge ({row[negative]:.3f}): blue - red = {blue}")
    assert blue >= 60, blue
    assert page.locator(".attnw-legend-scale").inner_text().startswith("颜色：这个 token 的边，-0.013 到 0.095")
    page.mouse.move(5, 5)
    assert errors == []
    page.close()
