"""The words the app shows, as one value: titles, captions, glossary, tour, questions, lesson, and
the window's own (menus, panels, status).

They are data (``assets/<language>/*.json``, read and checked by :mod:`explainer.content.assets`),
loaded once by the app or the export command and passed to whatever needs them, so the
functions that build frames, captions, tour steps and questions never touch the disk and give
the same result whatever ran before them. Nothing a learner reads is written in the code: the
code only chooses a template and fills its ``{fields}`` with numbers from the run.

The records below are plain frozen values parsed from those files; the behaviour that uses them
lives in the modules named after them (:mod:`~explainer.lesson.tour`,
:mod:`~explainer.lesson.questions`, :mod:`~explainer.content.glossary`, ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from explainer.stages import Stage


class Provenance(StrEnum):
    """Where a number or a step the lesson shows comes from, so the learner can tell a
    measurement from a computation from an illustration (lesson.json ``labels`` names each)."""

    LIVE = "live"  # measured in this run
    COMPUTED = "computed"  # worked out from this model's real numbers
    ILLUSTRATIVE = "illustrative"  # what a server does; not happening in this app
    RULE = "rule"  # a rule of thumb


@dataclass(frozen=True)
class GlossaryEntry:
    """One key term: its heading, its definition, and the other forms that link to it
    (plural ``s``/``es`` endings are matched without being listed)."""

    term: str
    definition: str
    aliases: tuple[str, ...] = ()
    example: str = ""  # the same of the model loaded now, a template of GLOSSARY_FIELDS ("" for none)

    def example_for(self, fields: Mapping[str, str] | None) -> str:
        """The example filled with the loaded model's fields ("" without a model, or without one)."""
        if not self.example or not fields:
            return ""
        try:
            return self.example.format_map(fields)
        except (KeyError, IndexError, AttributeError):
            return ""


@dataclass(frozen=True)
class Glossary:
    """The glossary in the order the panel lists it; hashable, so the term matcher is compiled
    once per glossary (see :mod:`explainer.content.glossary`)."""

    entries: tuple[GlossaryEntry, ...]

    @property
    def terms(self) -> tuple[str, ...]:
        return tuple(e.term for e in self.entries)

    def entry(self, term: str) -> GlossaryEntry | None:
        """The entry for ``term`` or one of its aliases, case-insensitive."""
        low = term.lower()
        for e in self.entries:
            if e.term.lower() == low or any(a.lower() == low for a in e.aliases):
                return e
        return None

    def define(self, term: str) -> str | None:
        e = self.entry(term)
        return e.definition if e is not None else None

    def definitions(self) -> dict[str, str]:
        return {e.term: e.definition for e in self.entries}


@dataclass(frozen=True)
class Outcome:
    """Something the learner must be able to do at the end (from the course's lesson)."""

    id: str
    text: str


class TargetKind(StrEnum):
    PANEL = "panel"  # a panel of the illustration (explainer/diagram/registry.py PANELS)
    STAGE = "stage"  # a stage of the illustration (the panels that show it)
    CONTROL = "control"  # a control of the window: prompt, generate, sampling, lesson


@dataclass(frozen=True)
class Target:
    """What a tour step highlights in the live window."""

    kind: TargetKind
    name: str


class ConditionKind(StrEnum):
    """What completes a tour step (the UI reports the matching event, see tour.py)."""

    NEXT = "next"  # the learner presses Next
    GENERATE = "generate"  # a run finished
    STAGE = "stage"  # the illustration shows a stage (optionally of a phase, or the last one)
    SETTING = "setting"  # a sampling setting was changed
    GAME = "game"  # a prediction was made in the game
    WHATIF = "whatif"  # a what-if slider was moved
    QUESTION = "question"  # a question was answered right
    COMPLETE = "complete"  # every outcome shown, so the lesson is complete (it may name a question to open)
    BRANCH = "branch"  # "Your turn": the model continued from a token the learner picked, not the top one


@dataclass(kw_only=True, frozen=True)
class Condition:
    """The data a UI checks to know a step is done (``kind`` plus what it names)."""

    kind: ConditionKind
    stage: Stage | None = None
    phase: str | None = None  # "prefill" or "decode" for a STAGE condition; None: either
    last: bool = False  # STAGE: only at the last recorded step
    names: tuple[str, ...] = ()  # SETTING / WHATIF: which settings count (empty: any)
    question: str | None = None  # QUESTION: its id; COMPLETE: the question the step opens, if any
    run: bool = False  # SETTING: done only once a run made with the change has finished


@dataclass(frozen=True)
class Chapter:
    id: str
    title: str
    ask: str = ""  # a question for the room, shown to the presenter (the presenter console)


@dataclass(kw_only=True, frozen=True)
class TourStep:
    """One step of the guided tour as written in tour.json (texts still hold their ``{fields}``)."""

    id: str
    chapter: str
    target: Target
    text: str
    do: str  # what the learner is asked to do, in words
    done: Condition
    outcomes: tuple[str, ...] = ()
    # the text shown while the learner is guessing a pass's next token in Predict, for a step
    # whose text names a pass's answer (fields.GUESS_FIELDS); the loader requires one there
    text_guessing: str | None = None
    # the text shown while the lesson is not complete yet, for a step whose text says it is
    # (the end of the tour: no praise before every goal is shown)
    text_open: str | None = None
    # the text and the task shown once a run is on screen, for a step whose words would ask for
    # one that is there already (the step that asks for the first run, come back to later)
    text_run: str | None = None
    do_run: str | None = None


@dataclass(frozen=True)
class TourScript:
    chapters: tuple[Chapter, ...]
    steps: tuple[TourStep, ...]

    def chapter(self, chapter_id: str) -> Chapter | None:
        return next((c for c in self.chapters if c.id == chapter_id), None)

    def index_of(self, step_id: str) -> int | None:
        return next((i for i, s in enumerate(self.steps) if s.id == step_id), None)


class QuestionKind(StrEnum):
    CHOICE = "choice"  # one of several options is right
    NUMBER = "number"  # a number, right within a stated tolerance
    MATCH = "match"  # sort each item into one of the categories


@dataclass(kw_only=True, frozen=True)
class QuestionSpec:
    """A question as written in questions.json.

    ``live`` names the function in :mod:`explainer.lesson.questions` that computes the answer
    (and, for a choice, the options) from the run; static questions carry them here: ``answer``
    is the index of the right option (choice), the number (number), or is unused (match: each
    item names its category). ``option`` is the template of a live choice's options.
    """

    id: str
    kind: QuestionKind
    text: str
    explanation: str
    outcomes: tuple[str, ...]
    live: str | None = None
    checks: tuple[str, ...] = ()  # which of lesson.json's checks it asks (in full or in part)
    terms: tuple[str, ...] = ()  # which of lesson.json's key terms it checks
    options: tuple[str, ...] = ()
    option: str = ""
    answer: float = 0.0
    tolerance: float = 0.0  # NUMBER: relative, 0.1 = within 10 %
    unit: str = ""
    items: tuple[tuple[str, str], ...] = ()  # MATCH: (item text, category id)
    categories: tuple[tuple[str, str], ...] = ()  # MATCH: (category id, label)
    words: tuple[tuple[str, str], ...] = ()  # extra texts a live question's options use (name, text)
    # CHOICE: why each wrong option is wrong, shown before the retry. Static: parallel to
    # ``options`` ("" for the right one); live: (kind of wrong option, text), see question_fields.LIVE_WRONG
    explanations: tuple[str, ...] = ()
    wrong: tuple[tuple[str, str], ...] = ()
    # NUMBER: the likely wrong answers, each (kind, value, why): a kind (question_fields.NUMBER_MISTAKES)
    # is computed from the question's own numbers by explainer/lesson/questions.py; a static
    # question may give the value itself (kind ""). ``why`` names the slip and may use {value}.
    mistakes: tuple[tuple[str, float | None, str], ...] = ()

    def word(self, name: str) -> str:
        return dict(self.words)[name]

    def why_wrong(self, kind: str) -> str:
        """A live question's explanation for a wrong option of this kind."""
        return dict(self.wrong)[kind]


@dataclass(frozen=True)
class ReferenceModel:
    """A model size the scale step compares this one with (lesson.json ``scale.reference``)."""

    id: str
    n_params: int
    label: str


@dataclass(frozen=True)
class LifecyclePart:
    """One step of a request's life (lesson.json ``lifecycle``); ``live`` False: what a server
    does that this app does not (queueing, scheduling)."""

    id: str
    title: str
    text: str
    live: bool


@dataclass(kw_only=True, frozen=True)
class LessonInfo:
    """lesson.json: outcomes, rules of thumb, scale, lifecycle, and the short texts code fills."""

    title: str
    outcomes: tuple[Outcome, ...]
    chars_per_token: float
    words_per_token: float
    bits: tuple[int, int]  # the two precisions the scale step compares (16, 4)
    reference: tuple[ReferenceModel, ...]
    lifecycle: tuple[LifecyclePart, ...]
    recap: tuple[str, str]
    strings: dict[str, dict[str, str]] = field(default_factory=dict)
    checks: tuple[Outcome, ...] = ()  # the module's "check your understanding" questions, by id
    key_terms: tuple[str, ...] = ()  # the glossary terms the questions must check, as the material lists them

    def text(self, section: str, key: str) -> str:
        """One short text; assets.py has checked that every key in fields.REQUIRED_STRINGS exists."""
        try:
            return self.strings[section][key]
        except KeyError:
            raise KeyError(f"lesson.json: {section}.{key} is missing") from None


@dataclass(frozen=True)
class Example:
    """An example prompt the control panel offers (app.json ``examples``)."""

    label: str  # the button's text
    prompt: str
    chat: bool = False


@dataclass(kw_only=True, frozen=True)
class LessonTexts:
    """Everything a learner reads that is not a number from the model, in one language."""

    titles: dict[str, str]  # stage value -> panel title, e.g. "3  Transformer layers"
    captions: dict[str, str]  # caption key -> template with {fields}
    cuts: dict[str, str]  # how the sampling caption names the cuts in use
    glossary: Glossary
    legend: str  # what the visible whitespace marks mean (␣, ↵), shown once beside the tokens
    chart: dict[str, str]  # the probability chart's labels: which numbers are raw, which after the cuts
    panels: dict[str, str]  # short labels the frames write into panels (templates with {fields})
    tour: TourScript
    questions: tuple[QuestionSpec, ...]
    lesson: LessonInfo
    language: str = "en"
    app: dict[str, dict[str, str]] = field(default_factory=dict)  # app.json: the window's own words
    examples: tuple[Example, ...] = ()  # app.json: the example prompts
    describe: dict[str, str] = field(default_factory=dict)  # captions.json: the frame in words
    class_page: dict[str, dict[str, str]] = field(default_factory=dict)  # class_page.json: a phone's words
    lesson_web: dict[str, dict[str, str]] = field(default_factory=dict)  # lesson_web.json: the web lesson's own

    def title(self, stage: Stage) -> str:
        return self.titles[stage.value]

    def define(self, term: str) -> str | None:
        """The definition of ``term`` (case-insensitive, aliases too), or None."""
        return self.glossary.define(term)

    def text(self, section: str, key: str) -> str:
        return self.lesson.text(section, key)

    def app_text(self, section: str, key: str) -> str:
        """One of the window's own words (app.json); assets.py has checked app_fields.REQUIRED_APP."""
        try:
            return self.app[section][key]
        except KeyError:
            raise KeyError(f"app.json: {section}.{key} is missing") from None

    def outcome_ids(self) -> tuple[str, ...]:
        return tuple(o.id for o in self.lesson.outcomes)
