"""The lesson beside the illustration: the Qt side of :mod:`explainer.lesson`.

The pure lesson layer (tour, game, what-if, questions, glossary, completion) computes every
value and every sentence from the recorded trace and the texts in ``assets/``; the modules here
only show those values and report what the learner did:

- ``install``: the one entry point the main window calls (builds the dock and wires it up);
- ``session``: the learner's progress (tour, quiz, game), its events and its place in QSettings;
- ``dock``: the Lesson dock: the tour on top, the other sections as tabs below;
- ``tour_section``, ``predict_section``, ``whatif_section`` (+ ``whatif_chart``),
  ``questions_section`` (+ ``question_card``), ``glossary_section``, ``completion_section``:
  one widget per section;
- ``pointer``: the tour's pointer in the live window (a panel outline, or a control outlined);
- ``show_me``: where "Show me" takes the learner for a step (pure: cursors, no widgets);
- ``links``: labels whose glossary terms are links; ``keys``: the lesson's keys.

Nothing here runs the model: the GUI thread only reads the trace the worker already recorded.
"""
