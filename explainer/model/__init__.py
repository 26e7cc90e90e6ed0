"""Model acquisition and building: manifests, cache paths, fetching the GGUF,
building the tokenizer and orchestrating the GGUF -> ONNX conversion. Qt-free."""
