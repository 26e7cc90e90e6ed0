"""Running the app's model away from the window, without Qt: what the window asks of the worker
thread and hears back from it (requests.py, events.py), the model in a process of its own
(process.py) and the messages that cross its pipe (messages.py).

Every value that crosses a thread or a process here is a frozen dataclass of one module, so mypy
reads both ends of every seam (ARCHITECTURE.md: "The seams carry types"). ui/worker.py and ui/controller.py
are the Qt side that carries them as signals.
"""
