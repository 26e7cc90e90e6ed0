"""Texts the tokenizers are checked on: emoji (with modifiers and joiners), CJK, Arabic,
runs of spaces, tabs and newlines, and a character rare enough to need byte fallback."""

TEXTS = [
    "The capital of France is",
    "Hello, world! 😀 👋🏽 café",
    "ZWJ 👨‍👩‍👧 family 🤖🎉",
    "日本語のテキストと中文、한국어",
    "اللغة العربية جميلة",
    "  two  spaces\tand\ttabs\t\t\n\nnewlines   end ",
    "\t\tindented\n    code = [1, 2, 3]  # note",
    "rare: 𠀀 \x01 ￼",
]
