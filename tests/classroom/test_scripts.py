"""A phone's answer in any script, over real HTTP on 127.0.0.1: the model's real tokens (pieces of
characters among them) stream as whole characters, a reconnect catches up with the same text,
and an answer cut in the middle of a character says so. The reference is the tokenizers
library's decode of the same ids."""

from __future__ import annotations

import aiohttp
import pytest

from explainer.classroom.queue import MAX_PROMPT_CHARS, ClassQueue, Refusal
from explainer.illustration.characters import count
from tests.classroom.conftest import Phone, run
from tests.engine.test_text_bytes import SCRIPTS
from tests.engine.test_trace import ended


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_a_phone_hears_every_script_whole_and_a_reconnect_gets_the_same_text(serve, built_model, script):
    from explainer.engine.tokenizer import load_tokenizer

    tok = load_tokenizer(built_model.tokenizer_path)
    ids = tok.encode_ids(SCRIPTS[script])  # real tokens of the default model, streamed as its answer
    served = serve(queue=ClassQueue())

    async def scenario() -> None:
        async with aiohttp.ClientSession() as session:
            phone = Phone(session, served)
            await phone.join()
            await phone.listen()
            assert (await phone.prompt("Say something"))[0] == 200
            assert (await phone.next())[0] == "queued"
            life = served.queue.take()
            assert life is not None
            assert (await phone.next())[0] == "started"
            heard = ""
            half = len(ids) // 2
            for i in ids[:half]:
                served.queue.token_made(life.number, tok.token_bytes(i))
                kind, data = await phone.next()
                assert kind == "token" and "\ufffd" not in data["text"]
                heard += data["text"]
            # a second tab of the same phone (a reload): it is told the answer so far, whole
            late = Phone(session, served)
            late.device = phone.device
            await late.listen()
            kind, data = await late.next()
            assert kind == "answer" and data["text"] == heard == tok.hf.decode(ids[:half]).rstrip("\ufffd")
            for i in ids[half:]:
                served.queue.token_made(life.number, tok.token_bytes(i))
                while (kind_data := await late.next())[0] != "token":
                    pass
                heard += kind_data[1]["text"]
            served.queue.finished(life.number, ended("eos"))
            while (kind_data := await late.next())[0] != "done":
                pass
            assert kind_data[1]["unfinished"] is False
            assert heard == tok.hf.decode(ids) == SCRIPTS[script]
            late.close()

    run(scenario())


def test_an_answer_cut_in_the_middle_of_a_character_says_so(serve):
    served = serve(queue=ClassQueue())

    async def scenario() -> None:
        async with aiohttp.ClientSession() as session:
            phone = Phone(session, served)
            await phone.join()
            await phone.listen()
            assert (await phone.prompt("An emoji, please"))[0] == 200
            life = served.queue.take()
            assert life is not None
            for piece in (b"\xf0\x9f", b"\x98\x80", b" \xf0\x9f"):  # 😀, then a space and half an emoji
                served.queue.token_made(life.number, piece)
            served.queue.finished(life.number, ended("max_tokens"))
            texts = []
            while (kind_data := await phone.next())[0] != "done":
                if kind_data[0] == "token":
                    texts.append(kind_data[1]["text"])
            assert texts == ["", "😀", " "] and kind_data[1]["unfinished"] is True
            phone.close()

    run(scenario())
    assert served.queue.life(1).output == "😀 "  # (what the instructor opens: whole characters only)


def test_the_prompt_limit_counts_characters_as_a_reader_sees_them():
    queue = ClassQueue()
    family = "👨\u200d👩\u200d👧"  # five code points, one character
    assert count(family * MAX_PROMPT_CHARS) == MAX_PROMPT_CHARS
    assert not isinstance(queue.submit("a", "🍕" * MAX_PROMPT_CHARS), Refusal)  # 300 emoji: 600 UTF-16 units
    assert not isinstance(queue.submit("b", "🇬🇷" * MAX_PROMPT_CHARS), Refusal)  # 300 flags: 600 code points
    assert queue.submit("c", "🍕" * (MAX_PROMPT_CHARS + 1)) is Refusal.TOO_LONG
    # one character made of a thousand code points is still bounded
    assert queue.submit("d", "e" + "\u0301" * 8 * MAX_PROMPT_CHARS) is Refusal.TOO_LONG
