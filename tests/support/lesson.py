"""The inputs the app passes to the pure layers, made the same way for the tests.

The app labels token ids with the loaded model's vocabulary; tests that compare labels with the
trace use the built model's tokenizer the same way (or ``#id`` labels when it is not built).
"""

from __future__ import annotations

from functools import lru_cache

from explainer.content.assets import load_texts
from explainer.engine.tokenizer import load_tokenizer
from explainer.engine.trace import Trace
from explainer.errors import ExplainerError
from explainer.frames.frame import Frame, build_frame
from explainer.illustration.captions import caption
from explainer.illustration.vocab import TokenNames, Vocabulary, vocabulary_of
from explainer.stages import Cursor


@lru_cache(maxsize=1)
def model_vocabulary() -> Vocabulary | None:
    from explainer.model.build import load_built

    try:
        return vocabulary_of(load_tokenizer(load_built().tokenizer_path))
    except ExplainerError:
        return None


def token_text(trace: Trace, token_id: int) -> str:
    """How the app labels ``token_id`` in this trace."""
    return TokenNames(model_vocabulary()).use(trace)(token_id)


def caption_at(trace: Trace, cursor: Cursor, timings: bool = True, vocabulary: Vocabulary | None = None) -> str:
    """The caption the app shows; ``vocabulary``: that of the model that recorded ``trace`` (by
    default the default model's)."""
    return caption(load_texts(), trace, cursor, TokenNames(vocabulary or model_vocabulary()), timings)


def names_for(trace: Trace) -> TokenNames:
    """The token names the app would use for ``trace``."""
    return TokenNames(model_vocabulary()).use(trace)


def frame_at(trace: Trace, cursor: Cursor, timings: bool = True) -> Frame:
    return build_frame(trace, cursor, load_texts(), model_vocabulary(), timings)
