"""Qt-free inference engine pieces (tokenizer, ONNX Runtime session, sampling)."""
