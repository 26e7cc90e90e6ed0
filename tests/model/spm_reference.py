"""llama.cpp's SentencePiece tokenizer (llm_tokenizer_spm), written plainly from its
description, over a GGUF's own vocabulary: the reference the built tokenizer must agree with.

1. USER_DEFINED pieces are cut out of the raw text first, longest piece first;
2. in each remaining fragment spaces become "▁" (one is prepended with add_space_prefix);
3. starting from single characters, the adjacent pair whose joined text is a piece of the
   vocabulary with the highest score is merged, the leftmost on a tie, until none is left;
4. a symbol that is a piece is its id; any other becomes the ids of its UTF-8 bytes (<0xXX>).
"""

from __future__ import annotations


def spm_encode(text, tokens, scores, types, add_space_prefix=False, bos_id=None):
    vocab = {t: i for i, t in enumerate(tokens)}
    specials = sorted((i for i, t in enumerate(types) if t == 4), key=lambda i: -len(tokens[i]))
    fragments: list[str | int] = [text]
    for sid in specials:
        piece, out = tokens[sid], []
        for frag in fragments:
            if isinstance(frag, int) or piece not in frag:
                out.append(frag)
                continue
            parts = frag.split(piece)
            for j, part in enumerate(parts):
                if part:
                    out.append(part)
                if j < len(parts) - 1:
                    out.append(sid)
        fragments = out
    ids = [] if bos_id is None else [bos_id]
    for frag in fragments:
        if isinstance(frag, int):
            ids.append(frag)
            continue
        s = ("▁" if add_space_prefix else "") + frag.replace(" ", "▁")
        symbols = list(s)
        while True:
            best, at = None, -1
            for j in range(len(symbols) - 1):
                joined = symbols[j] + symbols[j + 1]
                k = vocab.get(joined)
                if k is not None and (best is None or scores[k] > best):
                    best, at = scores[k], j
            if best is None:
                break
            symbols[at : at + 2] = [symbols[at] + symbols[at + 1]]
        for sym in symbols:
            if sym in vocab:
                ids.append(vocab[sym])
            else:
                ids.extend(vocab[f"<0x{b:02X}>"] for b in sym.encode("utf-8"))
    return ids
