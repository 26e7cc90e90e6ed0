"""What each panel of the illustration shows, computed from (trace, cursor) without Qt.

One frozen value per panel, built by a pure function of a :class:`~explainer.frames.moment.Moment`
(the trace, the cursor, and the inputs passed in: texts, token names, whether to show timings).
The diagram redraws a panel exactly when its value changes, so equality is the redraw rule and
every number on screen can be traced back to the recorded Trace in one place.
"""

from explainer.frames.frame import Frame, FrameBuilder, build_frame

__all__ = ["Frame", "FrameBuilder", "build_frame"]
