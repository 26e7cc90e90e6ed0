"""Finding the glossary's key terms in a text, so captions and tour steps can link them.

A beginner meets a word such as "prefill" in a caption and should be one hover away from its
meaning. :func:`link_terms` cuts a text into segments, each either plain text or a term of the
glossary (with the key of the entry it links to); :func:`linked_html` writes the same as HTML
with ``<a href="term:KEY">`` links, which a Qt label can show and report clicks on
(:func:`term_of_href` reads the key back).

Matching rules, so that links land where a reader expects them:

- case-insensitive ("llm" and "LLM" both link to LLM);
- the longest form first ("input tokens" wins over "token", "layer guess" over "layer");
- whole words only: "token" is not found inside "tokenization", "decode" not inside
  "decoded", "top-k" not inside "top-kk" (hyphens count as part of a word);
- a plural ending ``s`` or ``es`` is allowed ("tokens", "layer guesses"), other forms are
  listed as aliases in glossary.json.

The pattern is compiled once per glossary (a :class:`~explainer.content.texts.Glossary` is a
hashable value), so linking a caption per frame costs a regex search.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import quote, unquote

from explainer.content.texts import Glossary

HREF_PREFIX = "term:"


@dataclass(frozen=True)
class TextPart:
    """A piece of a text: ``term`` is the glossary key it links to, or None for plain text."""

    text: str
    term: str | None = None


@lru_cache(maxsize=8)
def _matcher(glossary: Glossary) -> tuple[re.Pattern[str], dict[str, str]]:
    forms: dict[str, str] = {}
    for e in glossary.entries:
        for form in (e.term, *e.aliases):
            forms[form.lower()] = e.term
    alternatives = "|".join(re.escape(f) for f in sorted(forms, key=lambda f: (-len(f), f)))
    pattern = re.compile(rf"(?<![\w-])({alternatives})(?:e?s)?(?![\w-])", re.IGNORECASE)
    return pattern, forms


def link_terms(text: str, glossary: Glossary, once: bool = False) -> tuple[TextPart, ...]:
    """``text`` as plain and term segments (joined, they give ``text`` back).

    ``once`` links only the first occurrence of each term (a caption that says "token" four
    times needs one link).
    """
    pattern, forms = _matcher(glossary)
    parts: list[TextPart] = []
    seen: set[str] = set()
    at = 0
    for m in pattern.finditer(text):
        term = forms[m.group(1).lower()]
        if once and term in seen:
            continue
        seen.add(term)
        if m.start() > at:
            parts.append(TextPart(text[at : m.start()]))
        parts.append(TextPart(m.group(0), term))
        at = m.end()
    if at < len(text):
        parts.append(TextPart(text[at:]))
    return tuple(parts)


def terms_in(text: str, glossary: Glossary) -> tuple[str, ...]:
    """The glossary keys a text mentions, in order of first mention."""
    out: list[str] = []
    for p in link_terms(text, glossary):
        if p.term is not None and p.term not in out:
            out.append(p.term)
    return tuple(out)


def href_of(term: str) -> str:
    """The link target of a glossary key: ``term:KV%20cache``."""
    return HREF_PREFIX + quote(term, safe="")


def term_of_href(href: str, glossary: Glossary) -> str | None:
    """The glossary key a link points to, or None for any other link."""
    if not href.startswith(HREF_PREFIX):
        return None
    entry = glossary.entry(unquote(href[len(HREF_PREFIX) :]))
    return entry.term if entry is not None else None


def linked_html(text: str, glossary: Glossary, once: bool = False) -> str:
    """``text`` escaped for HTML, with each term as ``<a href="term:KEY" title="definition">``."""
    out = []
    for p in link_terms(text, glossary, once):
        if p.term is None:
            out.append(html.escape(p.text, quote=False))
        else:
            definition = glossary.define(p.term) or ""
            out.append(f'<a href="{href_of(p.term)}" title="{html.escape(definition)}">{html.escape(p.text)}</a>')
    return "".join(out)
