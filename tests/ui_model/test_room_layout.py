"""The room layout: on which screen presenter mode puts the audience view and the console, and
where each part of the window belongs, decided once from presenter mode, class mode and the
screens."""

from __future__ import annotations

from explainer.ui_model.room_layout import Place, ScreenInfo, default_projector, mirrored, room_layout

LAPTOP = ScreenInfo(name="eDP-1", x=0, y=0, width=1366, height=768, primary=True)
PROJECTOR = ScreenInfo(name="HDMI-1", x=1366, y=0, width=1920, height=1080)
SMALL = ScreenInfo(name="DP-2", x=-1024, y=0, width=1024, height=768)


def test_two_screens_side_by_side_put_the_audience_view_on_the_larger_one_that_is_not_the_laptops():
    layout = room_layout(True, [LAPTOP, PROJECTOR, SMALL], class_on=True)
    assert layout.projector == PROJECTOR and layout.laptop == LAPTOP and layout.two_screens
    assert layout.private is Place.CONSOLE and layout.speaker_notes is Place.CONSOLE
    assert layout.class_panel is Place.AUDIENCE and layout.queue is Place.AUDIENCE  # (no texts in the queue's view)
    assert layout.task_band is Place.AUDIENCE


def test_the_instructors_choice_of_projector_wins_while_that_screen_is_there():
    assert room_layout(True, [LAPTOP, PROJECTOR, SMALL], chosen="DP-2").projector == SMALL
    assert room_layout(True, [LAPTOP, PROJECTOR], chosen="gone").projector == PROJECTOR  # unplugged: the default


def test_one_screen_or_a_mirrored_pair_keeps_everything_on_the_laptop_and_the_private_parts_on_request():
    clone = ScreenInfo(name="HDMI-1", x=0, y=0, width=1366, height=768)
    for screens in ([LAPTOP], [LAPTOP, clone]):
        layout = room_layout(True, screens, class_on=True)
        assert layout.projector is None and not layout.two_screens
        assert layout.private is Place.ON_REQUEST and layout.class_panel is Place.AUDIENCE
    assert mirrored([LAPTOP, clone]) and not mirrored([LAPTOP, PROJECTOR])
    assert default_projector([LAPTOP, clone]) is None


def test_separate_x_screens_at_the_same_origin_are_not_mirrored():
    other = ScreenInfo(
        name="screen 2", x=0, y=0, width=1920, height=1080, desktop=1
    )  # X11's second screen: its own root at 0, 0
    assert not mirrored([LAPTOP, other])
    assert room_layout(True, [LAPTOP, other]).projector == other


def test_not_presenting_everything_is_in_the_window():
    layout = room_layout(False, [LAPTOP, PROJECTOR], class_on=True)
    assert layout.projector is None and layout.class_panel is Place.WINDOW and layout.queue is Place.WINDOW
    assert layout.task_band is Place.HIDDEN and layout.private is Place.ON_REQUEST
    assert room_layout(False, [LAPTOP], class_on=False).class_panel is Place.HIDDEN
