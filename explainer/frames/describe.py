"""The frame in words: what a screen reader says for the illustration, and what the Describe this
frame panel shows to everyone.

The drawing is pixels to assistive technology, so the same frame is told as sentences, built
from the frame's panel values only (never from the scene or the trace), with the words of
captions.json ``describe``. That keeps it pure and Qt-free, so the window's accessible
description and a later web-page export say the same, and it hides what the frame hides: a frame
built while a guess is open (``Frame.answer_hidden``) names no candidate and no chosen token.

Token pieces are spoken as words ("space Paris", "line break", "end of text": illustration/spoken.py).
"""

from __future__ import annotations

from collections.abc import Mapping

from explainer.content.texts import LessonTexts
from explainer.frames import panels as F
from explainer.frames.chips import Chip
from explainer.frames.frame import Frame
from explainer.frames.probabilities import AFTER_TOP_P, RAW, ProbabilitiesValue
from explainer.frames.tokens import TokensValue
from explainer.illustration.formatting import percent
from explainer.illustration.spoken import spoken, spoken_marks
from explainer.stages import Stage

TOP = 5  # candidates told at the probability and sampling stages
MAX_TOKENS = 40  # tokens told at the tokens stage before "and N more" (a long prompt has thousands)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def describe(frame: Frame, texts: LessonTexts) -> str:
    """The frame as a few sentences: the stage and pass, the text so far, the tokens with their
    ids (tokens stage), the top five with their percentages, the cut, the draw and the chosen
    token (probability and sampling stages), the appended token, then the caption."""
    w = texts.describe
    header, tokens, caption = frame[F.HEADER], frame[F.TOKENS], frame[F.CAPTION]
    out: list[str] = []
    if frame.cursor is None:
        out.append(w["empty"])
    out.append(w["stage"].format(stage=_one_line(caption.heading)))
    if header.n:
        out.append(w["pass"].format(n=header.n, total=header.total, pass_label=header.pass_label))
    text = _text_so_far(tokens, w)
    if frame.cursor is not None:
        out.append(w["text"].format(text=text) if text else w["text_empty"])
    if frame.stage is Stage.TOKENS and tokens.reading[1] > tokens.reading[0]:
        out.append(_tokens(tokens.chips[tokens.reading[0] : tokens.reading[1]], w))
    probabilities = frame[F.PROBABILITIES]
    if frame.answer_hidden:
        out.append(w["hidden"])
    elif probabilities.shown and frame.stage in (Stage.PROBABILITIES, Stage.SAMPLING):
        out.extend(_probabilities(probabilities, w))
    if frame.stage is Stage.APPEND and tokens.appended is not None:
        out.append(_appended(tokens.chips[tokens.appended].text, probabilities, w))
    if caption.text:
        out.append(w["caption"].format(heading=_one_line(caption.heading), text=spoken_marks(caption.text, w)))
    return "\n".join(out)


def _appended(piece: str, v: ProbabilitiesValue, w: Mapping[str, str]) -> str:
    """The token just appended and the probability the trace recorded for it: raw, and (when a
    draw was made) after temperature and the cuts, the numbers it was drawn with."""
    raw = percent(v.chosen_raw_prob)
    if v.greedy:
        return w["appended_greedy"].format(token=_quote(piece, w), raw=raw)
    return w["appended"].format(token=_quote(piece, w), raw=raw, final=percent(v.chosen_prob))


def _quote(piece: str, w: Mapping[str, str]) -> str:
    return w["quote"].format(piece=spoken(piece, w))


def _text_so_far(tokens: TokensValue, w: Mapping[str, str]) -> str:
    """The prompt as typed and the answer so far, a control token said as its words; in chat mode
    (the prompt wrapped in a template of control tokens) the reply on a line of its own."""
    outputs = tokens.chips[tokens.prompt_count :]
    parts = [tokens.prompt_text + ("\n" if tokens.prompt_special and outputs else "")]
    for c in outputs:
        parts.append(f" {spoken(c.text, w)} " if c.special else c.text)
    return "".join(parts).strip()


def _tokens(chips: tuple[Chip, ...], w: Mapping[str, str]) -> str:
    told = [w["token"].format(piece=_quote(c.label, w), id=c.id) for c in chips[:MAX_TOKENS]]
    if len(chips) > MAX_TOKENS:
        told.append(w["tokens_more"].format(n=f"{len(chips) - MAX_TOKENS:,}"))
    return w["tokens"].format(tokens=", ".join(told))


def _probabilities(v: ProbabilitiesValue, w: Mapping[str, str]) -> list[str]:
    phase = AFTER_TOP_P if v.sampling and not v.greedy else RAW
    bars = v.phases[phase]
    told = [
        w["candidate_cut"].format(piece=_quote(label, w))
        if cut
        else w["candidate"].format(piece=_quote(label, w), pct=percent(p))
        for label, p, cut in list(zip(bars.labels, bars.values, bars.cut))[:TOP]
    ]
    out = [w["top_final" if phase == AFTER_TOP_P else "top_raw"].format(candidates=", ".join(told))]
    if not v.sampling:
        return out
    if v.pick_note:  # the learner's pick (Your turn), never worded as the draw's
        out.append(w["yours"].format(token=_quote(v.chosen_text, w), model=_quote(v.model_pick_text, w)))
        return out
    if v.greedy:
        out.append(w["greedy"])
    else:
        out.append(w["kept_one"] if v.kept == 1 else w["kept"].format(kept=f"{v.kept:,}"))
        if v.draw is not None:
            out.append(w["draw"].format(draw=f"{v.draw:.3f}", token=_quote(v.chosen_text, w)))
    out.append(w["chosen"].format(token=_quote(v.chosen_text, w)))
    return out
