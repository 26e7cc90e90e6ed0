"""explainer: watch a small language model think, one token at a time.

Privacy: ONNX Runtime 1.31's Linux builds log telemetry events, and importing it writes a device
id and an event database under ~/.cache/Microsoft/DeveloperTools/.onnxruntime. Its
ORT_DISABLE_TELEMETRY=1 turns all of that off, but only when set before ONNX Runtime is first
loaded (its runtime switch, disable_telemetry_events(), comes after the files are written), so it
is set here, before any of our modules can import it. A value the user set is kept.
"""

import os

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

__version__ = "0.1.0"
