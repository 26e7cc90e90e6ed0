"""The lesson on the web: the whole guided lesson from one recorded run, as one self-contained web
page and as a SCORM 1.2 package an LMS plays (``explainer export --lesson``).

Above both the lesson (explainer/lesson) and the web page of a run (explainer/export), which may
not import each other (the illustration is drawn the same with or without a lesson around it):
this package joins them. Python stays the one source of truth. Whatever depends on the run (the
tour's texts with the run's numbers, the questions built for the run, their answers and likely
mistakes, the shuffles, the rounds of Predict, the recorded continuations) is computed here, by
the lesson's own code, and shipped as data. What must run in the browser (a number checked within
its tolerance and its likely mistake named, the tour's conditions, the completion rule, the
score, the what-if sampler) is written once in assets/lesson_web/rules.js, and held to the Python
code by a conformance fixture (conformance.py: the cases and the verdicts Python gives them).

- recorded: the runs the page cannot make, made at export time (Your turn, a second run);
- quiz_data, tour_data, passes, sections, words: the lesson's data for the run, as JSON;
- logits: each pass's raw scores, packed for what-if;
- document: the whole lesson document; page: the HTML around it; scorm: the SCORM package;
- export: the one call that writes either.
"""
