"""The illustration's script, Qt-free: the walk over a trace, captions, token names, formatting.

What frames/ and diagram/ need to say what each stage shows; the guided lesson builds on it.
"""
