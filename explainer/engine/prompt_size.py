"""The one bound on a prompt's size, before any tokenizing: typed, piped, or read from a trace.

A module of its own so that the engine (generate.py) and the trace reader apply the same rule.
"""

from __future__ import annotations

from explainer.errors import ExplainerError


def check_prompt_size(prompt: str, context: int, max_token_bytes: int) -> None:
    """Refuse, at once and without tokenizing, a prompt that cannot fit the context window even
    if every token were the tokenizer's longest: a huge paste would otherwise hold the CPU and
    memory while it is tokenized, only to be refused for its length. Characters are
    compared first (a character is at least one byte), so a huge text is not even encoded."""
    room = context - 1  # one position is left for the answer
    most = room * max_token_bytes
    if len(prompt) > most or len(prompt.encode("utf-8", "surrogatepass")) > most:
        size = len(prompt.encode("utf-8", "surrogatepass")) if len(prompt) <= 4 * most else None
        what = f"{size:,} bytes" if size is not None else f"{len(prompt):,} characters"
        raise ExplainerError(
            f"the prompt is {what} long, but the model reads at most {context:,} tokens, and even at "
            f"{max_token_bytes} bytes a token (its longest) that is at most {most:,} bytes with room to answer",
            f"shorten it to under {most:,} bytes; a usual English text is about 4 characters a token, "
            f"so about {room * 4:,} characters fit",
        )
