"""The guided lesson, Qt-free: the tour, the prediction game, what-if, the questions, completion.

- facts: the numbers the lesson quotes, computed from the run and the model;
- tour, game, whatif, questions, completion, outcomes: the guided tour, "predict the next token",
  "what if?", "check your understanding", "lesson complete", and which of them covers each outcome;
- state: the learner's record in one value (the tour's position, the quiz, the game), which
  the session keeps, saves and shows;
- place, lesson_file: where the instructor was, and the lesson file that records it beside the
  run (written and read through the engine's trace files: the one module here that touches
  the disk).

Everything else here is pure: functions take what they need (texts, trace, token names) and
return frozen values. The illustration (frames/, diagram/, export/) never imports this package:
it is drawn the same with or without a lesson around it.
"""
