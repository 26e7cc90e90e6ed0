"""The join page: a person who types the class address without a room, or with a code that is no
room's, gets a page that asks for the code (never JSON), and the code typed leads to the room.
The endpoints a script calls still answer JSON. Over real HTTP on 127.0.0.1, and in headless
chromium at 360 px."""

from __future__ import annotations

import json

import aiohttp

from explainer.classroom.events import Listening
from explainer.classroom.queue import ClassQueue
from explainer.classroom.routes import CSP
from explainer.content.assets import load_texts
from tests.classroom.conftest import run
from tests.classroom.phone_browser import WIDTH, joined, shot, text, wait

WRONG = "ZZZZ"  # Z is not in the room codes' alphabet: never a room's code
BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


async def _get(session, url: str, headers=None) -> tuple[int, str, bytes, str]:
    async with session.get(url, headers=headers) as r:
        return r.status, r.content_type, await r.read(), r.headers["Content-Security-Policy"]


def test_a_person_gets_the_join_page_and_a_script_gets_json(served):
    async def scenario():
        async with aiohttp.ClientSession() as session:
            pages = {
                "bare": await _get(session, served.base + "/"),
                "wrong": await _get(session, served.url(room=WRONG)),
                "typed": await _get(session, served.base + "/join", BROWSER),
            }
            api = {
                "words": await _get(session, served.url("/words.json", room=WRONG)),
                "events": await _get(session, served.url("/events?device=x", room=WRONG)),
                "nothing": await _get(session, served.base + "/join"),
            }
            async with session.post(served.url("/join", room=WRONG), json={}) as r:
                joining = r.status, await r.json()
            anywhere = await _get(session, served.base + "/words.json")
            return pages, api, joining, anywhere

    pages, api, joining, anywhere = run(scenario())
    assert {name: status for name, (status, *_) in pages.items()} == {"bare": 200, "wrong": 404, "typed": 404}
    for _status, kind, body, csp in pages.values():
        assert kind == "text/html" and csp == CSP
        assert b'src="/s/join.js"' in body and b"<script>" not in body and b"style=" not in body
    assert api["words"][:2] == (404, "application/json") and json.loads(api["words"][2]) == {"error": "wrong_room"}
    assert api["events"][:2] == (404, "application/json") and json.loads(api["events"][2]) == {"error": "wrong_room"}
    assert json.loads(api["nothing"][2]) == {"error": "not_found"}  # a script's unknown address
    assert joining == (404, {"error": "wrong_room"})
    status, kind, body, _csp = anywhere
    assert (status, kind) == (200, "application/json")
    assert json.loads(body)["join"] == load_texts().class_page["join"]


def _ready(driver) -> None:
    wait(driver, lambda b: b.execute_script("return document.body.dataset.ready") == "yes", "the join page")


def test_the_bare_address_asks_for_the_code_and_takes_the_phone_to_its_room(served, driver):
    words = load_texts().class_page["join"]
    driver.get(served.base + "/")
    _ready(driver)
    assert driver.title == words["title"] and text(driver, "heading") == words["heading"]
    box = driver.find_element("id", "code")
    assert driver.find_element("css selector", "label[for=code]").text == words["label"]
    attributes = {name: box.get_attribute(name) for name in ("autocomplete", "inputmode", "autocapitalize")}
    assert attributes == {"autocomplete": "off", "inputmode": "text", "autocapitalize": "characters"}
    assert box.size["height"] >= 48 and box.size["width"] >= 250  # large, for a thumb and a glance
    assert driver.execute_script("return document.documentElement.scrollWidth") <= WIDTH
    shot(driver, "join")
    driver.find_element("id", "join").click()  # nothing typed: it says so, and stays
    wait(driver, lambda b: text(b, "join-status") == words["empty"], "asked to type the code")
    box.send_keys(" " + served.room.lower()[:2] + " " + served.room.lower()[2:])  # as a phone may type it
    assert driver.execute_script("return getComputedStyle(arguments[0]).textTransform", box) == "uppercase"
    driver.find_element("id", "join").click()
    joined(driver)
    assert driver.current_url == served.listening.url


def test_a_wrong_code_says_no_room_and_offers_the_box_again(served, driver):
    words = load_texts().class_page["join"]
    driver.get(served.url(room=WRONG.lower()))
    _ready(driver)
    assert text(driver, "join-status") == words["wrong"]
    assert driver.find_element("id", "join-status").get_attribute("role") == "alert"
    box = driver.find_element("id", "code")
    assert box.get_attribute("value") == WRONG and box.get_attribute("aria-invalid") == "true"
    shot(driver, "join-wrong")
    box.clear()
    box.send_keys(served.room)
    driver.find_element("id", "join").click()
    joined(driver)


def test_every_word_on_the_join_page_comes_from_its_words_file(driver, tmp_path):
    """With the words wrapped in ⟦ ⟧ (the pseudo-locale), every line the join page shows is wrapped."""
    from explainer.classroom.server import ClassServer
    from explainer.content.assets import read_texts
    from tests.classroom.conftest import Recorder
    from tests.support.pseudo import LANGUAGE, make_pseudo_assets

    words = read_texts(LANGUAGE, root=make_pseudo_assets(tmp_path)).class_page
    server = ClassServer(ClassQueue(), Recorder(), words=words)
    listening = server.start("127.0.0.1", 0)
    assert isinstance(listening, Listening), listening
    try:
        driver.get(f"http://127.0.0.1:{listening.port}/r/{WRONG}")
        _ready(driver)
        lines = [line for line in driver.find_element("tag name", "body").text.splitlines() if line.strip()]
        assert len(lines) == 5 and all(line.startswith("⟦") and line.endswith("⟧") for line in lines), lines
        assert driver.title.startswith("⟦")
    finally:
        server.stop()
