"""The phone page in a real browser (tests/classroom/phone_browser.py: headless chromium at
360×740) against a real server on 127.0.0.1.

A student's whole visit: join by the class page's URL, vote in an offered round, see the reveal,
send a prompt and watch its answer stream token by token (the test plays the worker through the
queue). Screenshots are left in test-output/classroom/ to look at.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from explainer.classroom.events import Listening, PhonesChanged, RoundOffer, VotesChanged
from explainer.classroom.queue import ClassQueue, Refusal
from explainer.classroom.room import Limits
from explainer.content.assets import load_texts
from tests.classroom.phone_browser import WIDTH, joined, shot, text, wait
from tests.engine.test_trace import ended

OFFER = RoundOffer(4, "Which token comes next after “The cat sat on the”?", ("␣mat", "␣floor", "␣bed", "␣moon"))
PROBS = (0.52, 0.21, 0.08, 0.004)


def _answer(browser) -> str:
    """The answer as written (an element's .text would trim its first token's space)."""
    answer = browser.execute_script("return document.getElementById('answer').textContent")
    assert isinstance(answer, str), answer
    return answer


def test_a_student_joins_votes_sees_the_reveal_and_an_answer_stream(serve, driver):
    words = load_texts().class_page["page"]
    queue = ClassQueue()
    served = serve(queue=queue)
    driver.get(served.listening.url)
    joined(driver)
    served.recorder.wait_for(lambda ev: PhonesChanged(1) in ev)
    assert driver.title == words["title"]
    assert driver.execute_script("return document.documentElement.clientWidth") == WIDTH
    assert driver.execute_script("return document.documentElement.scrollWidth") <= WIDTH  # no sideways scroll

    # a round: four big buttons, each labelled for a screen reader
    served.server.offer(OFFER)
    buttons = wait(driver, lambda b: b.find_elements("css selector", "#choices button") or None, "the round")
    assert len(buttons) == 4
    for i, (button, token) in enumerate(zip(buttons, OFFER.choices, strict=True)):
        assert button.get_attribute("aria-label") == words["choice"].format(n=i + 1, token=token)
        assert button.size["height"] >= 48 and button.size["width"] >= 200  # a thumb's target
    assert text(driver, "question") == OFFER.question
    shot(driver, "round")
    buttons[1].click()
    wait(driver, lambda b: words["vote_counted"] in text(b, "status"), "the vote counted")
    served.recorder.wait_for(lambda ev: VotesChanged(4, 1, 1, (0, 1, 0, 0)) in ev)
    assert all(not b.is_enabled() for b in buttons) and buttons[1].get_attribute("aria-pressed") == "true"

    # the reveal: this phone's result, the model's choice and the class's, in a live region
    served.server.reveal(served.server.result(4, PROBS, favourite=0))
    wait(driver, lambda b: b.find_element("id", "reveal").is_displayed(), "the reveal")
    assert text(driver, "yours") == words["wrong"].format(token="␣floor", model="␣mat")
    assert text(driver, "model") == words["model_choice"].format(token="␣mat", pct="52.0")
    assert text(driver, "class") == words["class_choice_one"].format(token="␣floor")
    assert text(driver, "score") == words["score_first_wrong"]  # (not "0 of 1 times")
    assert driver.find_element("id", "result").get_attribute("aria-live") == "polite"
    shot(driver, "reveal")

    # a prompt: its characters counted, queued, and its answer streamed token by token
    box = driver.find_element("id", "prompt")
    prompt = "Write <b>one</b> line about cats"
    box.send_keys(prompt)
    assert text(driver, "counter") == words["counter"].format(n=len(prompt), max=300)
    driver.find_element("id", "send").click()
    wait(driver, lambda b: queue.waiting() == 1, "the prompt queued")
    life = queue.take()
    assert life is not None and life.text == prompt
    queue.prefill_began(life.number, 9)
    answer = ""
    for token in (" Cats", " nap", " <img src=x>", " all", " day."):
        queue.token_made(life.number, token.encode())
        answer += token
        wait(driver, lambda b, expected=answer: _answer(b) == expected, f"the token {token!r}")
    assert not driver.find_elements("css selector", "#answer *")  # a token is text, never HTML
    queue.finished(life.number, ended("eos"))
    wait(driver, lambda b: text(b, "figures") != "", "the figures")
    done = queue.life(life.number)
    assert done is not None and done.ttft_s is not None and done.ttft_s >= (done.wait_s or 0)
    assert str(len(done.token_times)) in text(driver, "figures")
    assert driver.find_element("id", "send").is_enabled()
    assert driver.execute_script("return document.documentElement.scrollWidth") <= WIDTH
    shot(driver, "answer")

    # a reload is the same phone (its tab kept its id): its answer and figures come back
    figures = text(driver, "figures")
    driver.refresh()
    wait(driver, lambda b: _answer(b) == answer and text(b, "figures") == figures, "the answer after a reload")
    assert served.server._room.phones() == 1 and served.recorder.last(PhonesChanged) == PhonesChanged(1)


def test_a_round_withdrawn_without_a_reveal_leaves_the_phone_waiting_for_the_next(serve, driver):
    words = load_texts().class_page["page"]
    served = serve()
    driver.get(served.listening.url)
    joined(driver)
    served.server.offer(OFFER)
    buttons = wait(driver, lambda b: b.find_elements("css selector", "#choices button") or None, "the round")
    buttons[0].click()
    wait(driver, lambda b: words["vote_counted"] in text(b, "status"), "the vote counted")
    served.server.withdraw_round()
    wait(driver, lambda b: text(b, "status") == words["withdrawn"], "the round withdrawn")
    assert not driver.find_element("id", "vote").is_displayed()
    assert words["round_ended"] not in text(driver, "main")  # not "wait for the reveal"
    shot(driver, "withdrawn")
    served.server.offer(replace(OFFER, round_id=5))  # the next question comes as usual
    wait(driver, lambda b: b.find_element("id", "vote").is_displayed(), "the next round")
    assert all(b.is_enabled() for b in driver.find_elements("css selector", "#choices button"))


def test_a_full_queue_says_when_to_try_again_and_the_button_comes_back_then(serve, driver):
    words = load_texts().class_page
    queue = ClassQueue(limit=1)
    served = serve(queue=queue, limits=Limits(full_wait_s=2))
    assert not isinstance(queue.submit("another phone", "first in line"), Refusal)
    driver.get(served.listening.url)
    joined(driver)
    driver.find_element("id", "prompt").send_keys("Tell me about owls")
    send = driver.find_element("id", "send")
    send.click()
    expected = words["refused"]["full"] + " " + words["page"]["retry_after"].format(s=2)
    shown = "return document.getElementById('ask-status').textContent"  # (.text makes a no-break space a space)
    wait(driver, lambda b: b.execute_script(shown) == expected, "the queue is full: try again in 2 s")
    assert not send.is_enabled()  # not at once: after the wait the server asked for
    shot(driver, "queue-full")
    wait(driver, lambda b: send.is_enabled(), "the button back after the wait")
    assert driver.execute_script(shown) == words["refused"]["full"]  # no stale "in 2 s"


def test_every_word_on_the_page_comes_from_its_words_file(driver, tmp_path):
    """With the words wrapped in ⟦ ⟧ (the pseudo-locale), every line a student reads is wrapped:
    no word is written in the page's HTML or script."""
    from explainer.classroom.server import ClassServer
    from explainer.content.assets import read_texts
    from tests.classroom.conftest import Recorder
    from tests.support.pseudo import LANGUAGE, make_pseudo_assets

    words = read_texts(LANGUAGE, root=make_pseudo_assets(tmp_path)).class_page
    server = ClassServer(ClassQueue(), Recorder(), words=words)
    listening = server.start("127.0.0.1", 0)
    assert isinstance(listening, Listening), listening
    try:
        driver.get(listening.url)
        joined(driver)
        server.offer(OFFER)
        wait(driver, lambda b: b.find_elements("css selector", "#choices button") or None, "the round")
        server.reveal(server.result(OFFER.round_id, PROBS, favourite=0))
        wait(driver, lambda b: b.find_element("id", "reveal").is_displayed(), "the reveal")
        lines = [line for line in driver.find_element("tag name", "body").text.splitlines() if line.strip()]
        assert len(lines) >= 8 and all(line.startswith("⟦") and line.endswith("⟧") for line in lines), lines
        labels = [b.get_attribute("aria-label") for b in driver.find_elements("css selector", "button[aria-label]")]
        assert labels and all(label.startswith("⟦") for label in labels)
        assert driver.title.startswith("⟦")
    finally:
        server.stop()


@pytest.mark.slow
@pytest.mark.parametrize(("name", "direction"), [("greek", "ltr"), ("arabic", "rtl"), ("emoji", "ltr")])
def test_an_answer_in_another_script_streams_whole_and_in_its_direction(serve, driver, built_model, name, direction):
    """The model's real tokens for a Greek, an Arabic and an emoji answer (pieces of characters
    among them), streamed to the phone: the page shows exactly the text the tokenizers library
    decodes, never "\ufffd", and an Arabic answer reads right to left."""
    from explainer.engine.tokenizer import load_tokenizer
    from tests.engine.test_text_bytes import SCRIPTS

    tok = load_tokenizer(built_model.tokenizer_path)
    ids = tok.encode_ids(SCRIPTS[name])
    queue = ClassQueue()
    served = serve(queue=queue)
    driver.get(served.listening.url)
    joined(driver)
    driver.find_element("id", "prompt").send_keys("Say it in another language")
    driver.find_element("id", "send").click()
    wait(driver, lambda b: queue.waiting() == 1, "the prompt queued")
    life = queue.take()
    assert life is not None
    for k, token_id in enumerate(ids, start=1):
        queue.token_made(life.number, tok.token_bytes(token_id))
        so_far = tok.hf.decode(ids[:k]).rstrip("\ufffd")  # a character begun and not finished is held back
        wait(driver, lambda b, expected=so_far: _answer(b) == expected, f"token {k}")
    queue.finished(life.number, ended("eos"))
    wait(driver, lambda b: text(b, "figures") != "", "the figures")
    assert _answer(driver) == SCRIPTS[name] and "\ufffd" not in _answer(driver)
    shown = driver.execute_script("return getComputedStyle(document.getElementById('answer')).direction")
    assert shown == direction  # dir="auto": the first strong character decides
    assert driver.execute_script("return document.documentElement.scrollWidth") <= WIDTH
    shot(driver, f"answer-{name}")


def test_the_counter_counts_characters_as_a_reader_sees_them(serve, driver):
    """A family emoji or a flag is one character, on the phone as on the server: the box takes
    300 of them (a textarea's maxlength, counting UTF-16 units, stopped at 150 emoji) and cuts
    what is typed past the limit."""
    words = load_texts().class_page["page"]
    queue = ClassQueue()
    served = serve(queue=queue)
    driver.get(served.listening.url)
    joined(driver)
    box = driver.find_element("id", "prompt")
    family = "👨\u200d👩\u200d👧"
    typed_text = "🍕" * 150 + "🇬🇷" * 100 + family * 50
    typed = "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))"
    driver.execute_script(typed, box, typed_text)
    assert text(driver, "counter") == words["counter"].format(n=300, max=300)
    assert driver.execute_script("return arguments[0].value", box) == typed_text  # all 300 taken
    driver.execute_script("arguments[0].value += '🍕🍕'; arguments[0].dispatchEvent(new Event('input'))", box)
    assert driver.execute_script("return arguments[0].value", box) == typed_text  # past the limit: cut back
    driver.find_element("id", "send").click()
    wait(driver, lambda b: queue.waiting() == 1, "the prompt queued")  # the server counts the same way
    assert queue.lives()[0].text == typed_text
