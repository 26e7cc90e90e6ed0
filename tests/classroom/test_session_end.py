"""The end of a session as a phone meets it: class mode stopped (the server says so on every live
channel before it closes them), or a room that is gone when the phone comes back (a restarted
class mode has a new code). Over real HTTP on 127.0.0.1, and in headless chromium."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from explainer.classroom.channels import Hub
from explainer.classroom.events import Listening, PhonesChanged, RoundOffer
from explainer.content.assets import load_texts
from tests.classroom.conftest import Phone, run
from tests.classroom.phone_browser import joined, shot, text, wait

OFFER = RoundOffer(2, "Which token comes next after “Once upon a”?", ("␣time", "␣day", "␣night", "␣mattress"))

# Every EventSource the page makes, kept where the test can read it (a CDP script runs before
# the page's own, which the page's CSP does not govern).
SOURCES = """
window.__sources = [];
window.EventSource = class extends window.EventSource {
  constructor(url, init) { super(url, init); window.__sources.push(this); }
};
"""


def test_every_phone_hears_the_session_closed_before_its_channel_ends(served):
    async def scenario():
        async with aiohttp.ClientSession() as session:
            phones = [Phone(session, served) for _ in range(3)]
            for phone in phones:
                await phone.join()
                await phone.listen()
            served.recorder.wait_for(lambda ev: PhonesChanged(3) in ev)
            await asyncio.to_thread(served.server.stop)
            for phone in phones:
                assert await phone.next() == ("closed", {"reason": "stopped"})
                with pytest.raises(EOFError):
                    await phone.next()

    run(scenario())


def _sources(driver) -> list[int]:
    states = driver.execute_script("return window.__sources.map((s) => s.readyState)")
    assert isinstance(states, list), states
    return states


def _open(driver, url: str) -> None:
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SOURCES})
    driver.get(url)
    joined(driver)
    wait(driver, lambda b: _sources(b) == [1], "the live channel open")


def test_the_page_says_the_session_ended_and_stops_listening(served, driver):
    words = load_texts().class_page["page"]
    _open(driver, served.listening.url)
    served.server.offer(OFFER)
    wait(driver, lambda b: b.find_elements("css selector", "#choices button") or None, "the round")
    served.server.stop()
    wait(driver, lambda b: text(b, "status") == words["ended"], "the ended words")
    assert _sources(driver) == [2]  # closed by the page: a closed EventSource never reconnects
    assert driver.execute_script("return document.body.dataset.live") == "ended"
    assert not driver.find_element("id", "vote").is_displayed()
    assert not driver.find_element("id", "send").is_enabled()
    assert not driver.find_element("id", "prompt").is_displayed()  # the queue is gone with the session
    shot(driver, "ended")


def test_a_phone_back_at_a_restarted_server_is_told_to_scan_the_new_code(served, driver, monkeypatch):
    """The phone missed the farewell (its Wi-Fi dropped, the app was killed); its channel comes
    back to the same address, where class mode now runs a new room: the old code is answered 404,
    and the page says the session ended and to scan the new code, instead of trying forever."""
    words = load_texts().class_page["page"]
    _open(driver, served.listening.url)
    hub = served.server._hub
    monkeypatch.setattr(hub, "close_all", lambda farewell=None: Hub.close_all(hub))  # no farewell sent
    served.server.stop()
    again = served.server.start("127.0.0.1", served.listening.port)
    assert isinstance(again, Listening) and again.port == served.listening.port
    wait(driver, lambda b: text(b, "status") == words["ended_new"], "the ended words, with the new code")
    assert all(state == 2 for state in _sources(driver))
    assert driver.execute_script("return document.body.dataset.live") == "ended"
    assert served.server._room.phones() == 0  # it did not join the new room by itself
    driver.refresh()  # the old address: the join page, which knows this tab was in that room
    wait(driver, lambda b: b.execute_script("return document.body.dataset.ready") == "yes", "the join page")
    assert text(driver, "join-status") == load_texts().class_page["join"]["ended"]
    shot(driver, "join-ended")
    box = driver.find_element("id", "code")
    box.clear()
    box.send_keys(again.room)
    driver.find_element("id", "join").click()
    joined(driver)
    assert served.server._room.phones() == 1
