"""Class mode: a lecture hall's phones vote on the next token and send prompts through a queue.

Qt-free, like the model's side: the web server (server.py, aiohttp in its own thread and event
loop), the room (votes, rounds, the class's score) and the queue the worker serves are tested
without a window; ui/classroom/ is the thin Qt adapter that turns their typed events into queued
signals, so the GUI thread never waits on the network.
"""
