"""The server's events into the GUI thread.

ClassServer calls ``on_event`` in its own thread (its event loop's); Qt widgets may only be
touched in the GUI thread. The adapter's :meth:`on_event` is that callback: it only emits a
signal, and the signal's queued connection delivers the event to the GUI thread's slots later,
so the server's thread never waits on the GUI and the GUI never waits on the network.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal

from explainer.classroom.events import ServerEvent


class EventAdapter(QObject):
    """Re-emits each :data:`ServerEvent` as :attr:`arrived`, delivered in this object's thread."""

    arrived = Signal(object)  # a ServerEvent
    _from_server = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # queued even when the server calls from the GUI thread (a test feeding events): the
        # order of events is kept, and a slot never runs inside the caller's call
        self._from_server.connect(self.arrived.emit, Qt.ConnectionType.QueuedConnection)

    def on_event(self, event: ServerEvent) -> None:
        """The server's callback (any thread)."""
        self._from_server.emit(event)
