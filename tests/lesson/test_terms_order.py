"""No word is used before the lesson has taught it.

Issue 49 found the tour using words it had not taught yet: "TTFT and TPOT" at step 5, spelled out
at step 39; "the KV cache" at step 31, its KV never said; "decode passes" at step 32, defined at
step 35; "a scheduler … often batched" at step 37 and "16-bit … 4-bit" at step 42, in no
glossary; "precision" in a question; "chip" for a token's box at step 9 and for the processor at
step 42; What if?'s "the step under the cursor".

The walk (tests/lesson/lesson_walk.py) reads every text a learner meets, in the tour's order. A
word the lesson teaches at a step (TAUGHT) must not appear before that step, linked or not, and
that step's own text must use it (spelling out an abbreviation); any other glossary term must be
linked to the glossary where it first appears (the tour's text, a question and its explanation,
a caption are linked; a task, an option, the feedback on a wrong answer are not). Words the
lesson does not teach (NOT_TAUGHT) are not used at all.
"""

from __future__ import annotations

import re

import pytest

from explainer.content.glossary import terms_in
from tests.lesson.lesson_walk import TEXTS, walk

TOUR = TEXTS.tour
G = TEXTS.glossary

# the words a step teaches: not to be used before it, even linked (a beginner meets "TTFT" and
# has nothing to read it by); each is in the glossary too, to be looked up later
TAUGHT = {
    "LLM": "start-llm",
    "pass": "start-llm",
    "TTFT": "start-measure",
    "TPOT": "start-measure",
    "transformer": "in-layers",
    "KV cache": "loop-decode",
    "decode": "loop-phases",
    "in parallel": "loop-phases",
    "scheduler": "req-server",
    "batch": "req-server",
    "precision": "scale-memory",
    "chip": "scale-memory",
}
# what the step that teaches an abbreviation says it stands for
SPELLED = {
    "LLM": "large language model",
    "TTFT": "time to first token",
    "TPOT": "time per output token",
    "KV cache": "keys and values",
}
# words that are no glossary term, found by their own pattern
PLAIN = {"in parallel": re.compile(r"\bin parallel\b", re.IGNORECASE)}
# words the lesson does not teach, so it does not use them: each has the words it uses instead
NOT_TAUGHT = {
    "cursor": "the pass on screen",
    "seed": "the random draw",
    "weights": "the parameters",
    "pretraining": "training (one word for one thing)",
    "logit": "the model's scores, its probabilities",
}


def uses(text: str) -> set[str]:
    """The terms a text uses: glossary terms as the glossary links them, and the plain ones."""
    found = set(terms_in(text, G))
    return found | {term for term, pattern in PLAIN.items() if pattern.search(text)}


def test_every_word_taught_at_a_step_is_in_the_glossary_and_that_steps_text_says_it():
    wrong = []
    for term, step_id in TAUGHT.items():
        if term not in PLAIN and G.entry(term) is None:
            wrong.append(f"{term!r} is not in the glossary")
        at = TOUR.index_of(step_id)
        assert at is not None, step_id
        step = TOUR.steps[at]
        taught = " ".join(t for t in (step.text, step.text_guessing) if t)
        if term not in uses(taught):
            wrong.append(f"{step_id} does not say {term!r}")
        elif term in SPELLED and SPELLED[term] not in taught.lower():
            wrong.append(f"{step_id} does not say what {term!r} stands for: {SPELLED[term]}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name", ["paris", "sampled", "chat"])
def test_no_word_is_used_before_the_lesson_teaches_it(real_trace, name):
    first_linked: dict[str, int] = {}
    wrong: list[str] = []
    for read in walk(real_trace(name)):
        at = f"{read.where} (step {read.step + 1})"
        for word, instead in NOT_TAUGHT.items():
            if re.search(rf"\b{word}", read.text, re.IGNORECASE):
                wrong.append(f"{at} says {word!r}, which the lesson does not teach (it says {instead}): {read.text}")
        for term in sorted(uses(read.text)):
            if term in TAUGHT:
                taught = TOUR.index_of(TAUGHT[term])
                if taught is None or read.step < taught:
                    wrong.append(f"{at} uses {term!r}, taught at step {TAUGHT[term]}: {read.text}")
                continue
            if read.linked:
                first_linked.setdefault(term, read.step)
            if term not in first_linked:
                wrong.append(f"{at} uses {term!r} before any text links it to the glossary: {read.text}")
    assert not wrong, "\n".join(wrong)
