"""Qt widgets: the main window, its controls, presenter mode, and the controller that owns the
worker thread that waits on the model (which runs in a process of its own). Nothing here calls
the engine on the GUI thread.

Start-up: numpy's OpenBLAS starts a thread per core when numpy is first imported, which was
half of numpy's import before the window's first paint. The window's
process multiplies only small arrays, so it asks for one thread, here, before any module of the
window imports numpy (the model's process inherits it, and ONNX Runtime, not numpy, does its
arithmetic). A value the user set is kept.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
