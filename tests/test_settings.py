"""The panel's Settings view (pytest-qt, offscreen) over a real host, config file, keyring,
a local chat/completions server and the real provisioning code."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from memevo.core import config as config_mod
from memevo.core import messages as msg
from memevo.core import paths
from memevo.core.clock import FakeClock
from memevo.core.encoder import provision as provision_mod
from memevo.core.encoder.models import DEFAULT_MODEL
from memevo.core.memories import live as memories
from memevo.core.messages import Message
from memevo.core.privacy import side_api_key as secrets
from memevo.core.recall import gate_defaults as calibration
from memevo.core.service.host import ServiceHost
from memevo.desktop.core_texts import config_reason, problem
from memevo.desktop.i18n import tr
from memevo.desktop.qt import QApplication, QCheckBox, QComboBox, QLabel, QLineEdit, QSpinBox, Qt, QWidget
from memevo.desktop.settings import SettingsView
from memevo.desktop.settings_workers import ERROR_STYLE, key_texts
from test_secrets import _keyring_works, needs_keyring

PUBLIC = {key.name for key in config_mod.SCHEMA if key.public}
OTHER_MODEL = "BAAI/bge-base-zh-v1.5"


@pytest.fixture(autouse=True)
def no_key_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(secrets.ENV, raising=False)


@pytest.fixture
def view(qtbot, host: ServiceHost) -> SettingsView:
    settings = SettingsView(host)
    qtbot.addWidget(settings)
    return settings


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI([])
    yield fake
    fake.close()


def _config_file() -> dict[str, object]:
    return json.loads(paths.config_path().read_text(encoding="utf-8"))


def _matches(template: str, text: str, **patterns: str) -> bool:
    """`text` is the translated `template` with each {name} matching its pattern."""
    regex = re.escape(template)
    for name, pattern in patterns.items():
        regex = regex.replace(re.escape("{" + name + "}"), pattern)
    return re.fullmatch(regex, text) is not None


def _not_saved(reason: str) -> str:
    """core/config's English reason, as Settings says it in the UI language."""
    return tr("Not saved: {reason}").format(reason=config_reason(reason))


def _texts(view: SettingsView) -> str:
    return "\n".join(w.text() for w in view.findChildren(QLabel) + view.findChildren(QLineEdit))


# -- the config form -----------------------------------------------------------------------------------
def test_every_public_key_is_in_the_form_with_its_value_and_default(qtbot, host: ServiceHost) -> None:
    for key, value in (("recallTopK", 5), ("showRecall", True), ("recallMinScore", 0.3)):
        config_mod.set_key(key, value)
    config_mod.set_key("sideApiBase", "https://api.example.com/v1/")
    view = SettingsView(host)
    qtbot.addWidget(view)
    rows = view.rows
    assert set(rows) == PUBLIC and "sideJudge" not in rows
    assert set(key_texts()) == PUBLIC  # every key has a translatable label
    kinds = {name: type(row.editor) for name, row in rows.items()}
    assert {n for n, t in kinds.items() if issubclass(t, QCheckBox)} == {
        "enabled",
        "showRecall",
        "actionRecall",
        "recallCues",
        "confirm",
        "sideContext",
    }
    assert {n for n, t in kinds.items() if issubclass(t, QSpinBox)} == {
        "recallTopK",
        "sideWaitMs",
        "decayDays",
        "syncMinutes",
        "sideDailyLimit",
        "proposalsPerSession",
        "proposalsPerDay",
    }
    assert {n for n, t in kinds.items() if issubclass(t, QComboBox)} == {"learning"}
    assert rows["recallTopK"].editor.value() == 5 and rows["recallTopK"].default_label.text() == tr(
        "default: {value}"
    ).format(value=3)
    assert rows["showRecall"].editor.isChecked() and rows["showRecall"].default_label.text() == tr(
        "default: off"
    )
    assert rows["recallMinScore"].editor.text() == "0.3"
    # the hybrid gate's minimum, as recall and `memevo config` use it (not the cosine-only one)
    assert rows["recallMinScore"].default_label.text() == tr("default: {value} (the model's value)").format(
        value=f"{calibration.CALIBRATED[DEFAULT_MODEL].min_rule:g}"
    )
    assert rows["recallLexicalWeight"].default_label.text() == tr(
        "default: {value} (the model's value)"
    ).format(value=f"{calibration.CALIBRATED[DEFAULT_MODEL].lexical_weight:g}")
    assert rows["recallMinScoreProject"].editor.text() == ""
    # an empty field says what it means: the model's value, as a number
    assert rows["recallMinScoreProject"].editor.placeholderText() == tr("the model's value ({value})").format(
        value=f"{calibration.CALIBRATED[DEFAULT_MODEL].min_project:g}"
    )
    assert rows["recallMinMargin"].editor.text() == tr("off")  # -1 in the file, never a bare -1
    assert rows["recallMinMargin"].default_label.text() == tr("default: off")
    assert rows["sideApiBase"].editor.text() == "https://api.example.com/v1"
    assert rows["sideApiModel"].default_label.text() == tr("default: none")
    assert rows["model"].editor.text() == DEFAULT_MODEL
    assert rows["recallTopK"].reset_button.isEnabled() and not rows["decayDays"].reset_button.isEnabled()
    assert view.problem_label.isHidden()


def test_save_writes_valid_changes_and_shows_why_the_others_were_not_written(
    view: SettingsView, host: ServiceHost, clock: FakeClock, data_dir: Path
) -> None:
    memories.create(host.store, "rule", "回答问题时一律使用中文", clock)
    host.ctx.refresh_caches()
    cache = data_dir / "cache" / "session-start-default.txt"
    assert "回答问题时一律使用中文" in cache.read_text(encoding="utf-8")
    rows = view.rows
    rows["recallTopK"].editor.setValue(5)
    rows["enabled"].editor.setChecked(False)
    rows["recallMinScore"].editor.setText("0.5")
    rows["sideWaitMs"].editor.setValue(70000)
    rows["sideApiBase"].editor.setText("ftp://example.com")
    rows["recallMinMargin"].editor.setText("lots")
    view.save_button.click()
    assert _config_file() == {"recallTopK": 5, "enabled": False, "recallMinScore": 0.5}
    assert rows["sideWaitMs"].message.text() == _not_saved(Message(msg.MUST_BE_RANGE, low=0, high=60000))
    assert rows["sideApiBase"].message.text() == _not_saved(Message(msg.MUST_BE_URL))
    assert rows["recallMinMargin"].message.text() == _not_saved(Message(msg.MUST_BE_SCORE))
    assert rows["sideApiBase"].editor.text() == "ftp://example.com"  # kept, to be corrected
    assert (
        rows["sideWaitMs"].message.styleSheet() == ERROR_STYLE
        and rows["recallTopK"].message.styleSheet() == ""
    )
    assert rows["recallTopK"].message.text() == tr("Saved.") and rows["recallTopK"].reset_button.isEnabled()
    assert view.status_label.text() == tr(
        "Saved {saved}, not saved {failed}: see the messages next to the fields."
    ).format(saved=3, failed=3)
    assert cache.read_text(encoding="utf-8") == ""  # the host's fallback texts were refreshed: memory off
    rows["sideApiBase"].editor.setText("https://api.example.com/v1/")
    rows["sideWaitMs"].editor.setValue(8000)
    rows["recallMinMargin"].editor.setText("-1")  # what was loaded: not a change
    view.save_button.click()
    assert _config_file() == {
        "recallTopK": 5,
        "enabled": False,
        "recallMinScore": 0.5,
        "sideApiBase": "https://api.example.com/v1",
        "sideWaitMs": 8000,
    }
    assert rows["sideApiBase"].editor.text() == "https://api.example.com/v1"  # shown as stored
    assert view.status_label.text() == tr("Saved {count} settings.").format(count=2)
    view.save_button.click()
    assert view.status_label.text() == tr("No changes.")


def test_reset_and_the_progress_bar_show_only_when_they_mean_something(view: SettingsView) -> None:
    """Issue 31, item 14: Reset to default was enabled on a value equal to the default, and a
    0% progress bar stood beside "provisioned, in use"."""
    config_mod.set_key("recallTopK", config_mod.BY_NAME["recallTopK"].default)  # set, to the default
    config_mod.set_key("decayDays", 45)
    view.reload()
    assert not view.rows["recallTopK"].reset_button.isEnabled()
    assert view.rows["decayDays"].reset_button.isEnabled()
    assert view.progress.isHidden()


def test_check_again_keeps_unsaved_edits_and_drops_the_last_saves_line(view: SettingsView) -> None:
    """Issue 31, item 7: Check again (and coming back to the tab) threw edits away silently,
    and a stale "Saved 0, not saved 2" stayed under the form."""
    rows = view.rows
    rows["recallTopK"].editor.setValue(6)
    rows["sideApiBase"].editor.setText("ftp://example.com")
    view.save_button.click()
    assert view.status_label.text() == tr(
        "Saved {saved}, not saved {failed}: see the messages next to the fields."
    ).format(saved=1, failed=1)
    config_mod.set_key("sideWaitMs", 9000)  # changed meanwhile, by the CLI
    rows["recallMinScore"].editor.setText("0.6")  # typed, not saved
    view.reload_button.click()
    assert rows["sideWaitMs"].editor.value() == 9000  # the file's news shown
    assert rows["recallMinScore"].editor.text() == "0.6" and rows["recallMinScore"].changed()
    assert rows["sideApiBase"].editor.text() == "ftp://example.com" and rows["sideApiBase"].changed()
    assert rows["recallMinScore"].message.text() == tr("Changed, not saved yet.")
    assert view.status_label.text() == tr("{count} changes are not saved yet: Save keeps them.").format(
        count=2
    )
    rows["sideApiBase"].editor.setText(rows["sideApiBase"].loaded)  # edited back
    rows["recallMinScore"].editor.setText(rows["recallMinScore"].loaded)
    view.reload_button.click()
    assert view.status_label.text() == "" and not any(row.changed() for row in rows.values())


def _wheel(widget: QWidget) -> None:
    """One notch of the wheel over the widget (the page scrolled past it)."""
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent

    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(QPoint(int(centre.x()), int(centre.y())))),
        QPoint(0, 0),
        QPoint(0, -120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def test_a_wheel_passing_over_an_unfocused_field_changes_nothing(qtbot, view: SettingsView) -> None:
    """Issue 48, item 5: scrolling the page over 'Side judge wait (ms)' made 12000 11993."""
    view.show()
    qtbot.waitExposed(view)
    spin, combo = view.rows["sideWaitMs"].editor, view.rows["learning"].editor
    for widget in (spin, combo, view.model_combo):
        assert widget.focusPolicy() == Qt.FocusPolicy.StrongFocus  # a wheel gives no focus
    before = (spin.value(), combo.currentIndex(), view.model_combo.currentIndex())
    for widget in (spin, combo, view.model_combo):
        _wheel(widget)
    assert (spin.value(), combo.currentIndex(), view.model_combo.currentIndex()) == before
    assert view.status_label.text() == "" and not view.unsaved()
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus)
    _wheel(spin)  # a field the user clicked into: the wheel is theirs
    assert spin.value() != before[0]


def test_changed_is_the_value_against_the_saved_one_and_reset_follows_the_value(view: SettingsView) -> None:
    """Issue 48, item 5: typing the saved value back left "Changed, not saved yet." while Save
    said "No changes.", and Reset stayed greyed beside a value not the default."""
    row = view.rows["sideWaitMs"]
    default = config_mod.BY_NAME["sideWaitMs"].default
    assert not row.reset_button.isEnabled()
    row.editor.setValue(default - 7)
    assert row.changed() and row.message.text() == tr("Changed, not saved yet.")
    assert row.reset_button.isEnabled()  # the value differs from the default: Reset puts it back
    assert view.status_label.text() == tr("{count} change is not saved yet: Save keeps it.").format(count=1)
    row.editor.setValue(default)  # typed back
    assert not row.changed() and row.message.text() == "" and view.status_label.text() == ""
    assert not row.reset_button.isEnabled()
    view.save_button.click()
    assert view.status_label.text() == tr("No changes.") and not paths.config_path().exists()
    margin = view.rows["recallMinMargin"]
    margin.editor.setText("-1")  # the file's -1, shown as off: no change
    assert not margin.changed()
    margin.editor.setText("0.2")
    row.editor.setValue(default - 7)
    assert view.status_label.text() == tr("{count} changes are not saved yet: Save keeps them.").format(
        count=2
    )
    view.save_button.click()
    assert _config_file() == {"recallMinMargin": 0.2, "sideWaitMs": default - 7}
    assert view.status_label.text() == tr("Saved {count} settings.").format(count=2)
    margin.editor.setText(tr("off"))
    view.save_button.click()
    assert _config_file()["recallMinMargin"] == -1
    assert view.status_label.text() == tr("Saved {count} setting.").format(count=1)
    margin.editor.setText("0.3")  # a later edit: the last save's line goes
    assert view.status_label.text() == tr("{count} change is not saved yet: Save keeps it.").format(count=1)


def test_an_empty_model_value_field_is_saved_as_the_models_value(view: SettingsView) -> None:
    config_mod.set_key("recallMinScore", 0.5)
    view.reload()
    row = view.rows["recallMinScore"]
    row.editor.setText("")
    view.save_button.click()
    assert "recallMinScore" not in _config_file() and row.message.text() == tr("Saved.")


def test_changes_made_elsewhere_are_followed_and_never_saved_back(qtbot, view: SettingsView) -> None:
    """Issue 48, item 6: after Pause or the confirmation toggle in the tray, Settings still
    showed them on, and saving another setting kept the stale view."""
    view.show()
    qtbot.waitExposed(view)
    rows = view.rows
    rows["recallTopK"].editor.setValue(7)  # edited here, not saved
    config_mod.set_key("enabled", False)  # the tray's Pause
    config_mod.set_key("confirm", False)  # the tray's toggle
    config_mod.set_key("recallTopK", 4)  # elsewhere too: the edit here wins on screen
    view.follow()
    qtbot.waitUntil(lambda: not rows["enabled"].editor.isChecked())
    assert not rows["confirm"].editor.isChecked()
    assert rows["recallTopK"].editor.value() == 7 and rows["recallTopK"].changed()
    config_mod.set_key("enabled", True)  # resumed in the tray; the form still says paused...
    rows["decayDays"].editor.setValue(12)
    view.save_button.click()  # ...saving another setting writes only what was edited here
    assert _config_file() == {"enabled": True, "confirm": False, "recallTopK": 7, "decayDays": 12}
    assert rows["enabled"].editor.isChecked()  # and the form shows the file as it is now
    assert view.follow_timer.isActive()
    view.hide()
    assert not view.follow_timer.isActive()


def test_the_confirmation_setting_has_one_name(view: SettingsView) -> None:
    from memevo.desktop.learning_texts import confirm_label

    assert view.rows["confirm"].label.text() == confirm_label() == tr("Ask before saving a learned memory")


@pytest.mark.usefixtures("clean_keyring")
def test_the_learning_mode_is_a_choice_of_four_with_its_caps_and_says_who_proposes(
    qtbot, view: SettingsView, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memevo.core.learning import readiness
    from memevo.desktop.learning_texts import effective, mode_help, mode_label

    row = view.rows["learning"]
    combo = row.editor
    assert [combo.itemData(i) for i in range(combo.count())] == list(config_mod.LEARNING_MODES)
    assert [combo.itemText(i) for i in range(combo.count())] == [
        "自动（推荐）",
        "旁路模型（你的旁路接口）",
        "你的编程助手自己的模型",
        "关闭",
    ]
    assert combo.currentData() == "auto" and row.default_label.text() == tr("default: {value}").format(
        value=mode_label("auto")
    )
    # no side API and no key: automatic means the coding assistant's own model proposes
    qtbot.waitUntil(lambda: view.key_present is not None)
    client = readiness.LearningState(False, False, "client")
    assert view.learning_note.text() == mode_help("auto") + "\n" + tr("With this choice: {how}.").format(
        how=effective(client)
    )
    assert "编程助手的模型提议记忆" in view.learning_note.text()
    combo.setCurrentIndex(combo.findData("side"))  # not saved yet: the note follows the combo
    assert "旁路接口（接口地址、模型和密钥）还没配置好" in view.learning_note.text()
    assert (
        tr(
            "The side judge is a language model of your choice, reached through an OpenAI-compatible API (the side API), that reads what you say to your coding assistant and proposes memories. Optional under automatic learning: without it, your coding assistant's own model proposes them. Needed when learning is set to the side judge."
        )
        == view.side_note.text()
    )
    view.rows["proposalsPerDay"].editor.setValue(12)
    view.rows["proposalsPerSession"].editor.setValue(500)  # above its 1 to 100
    view.save_button.click()
    assert _config_file() == {"learning": "side", "proposalsPerDay": 12}
    assert view.rows["proposalsPerSession"].message.text() == _not_saved(
        Message(msg.MUST_BE_RANGE, low=1, high=100)
    )
    assert config_mod.load()["learning"] == "side" and row.reset_button.isEnabled()
    combo.setCurrentIndex(combo.findData("off"))
    view.save_button.click()
    assert _config_file()["learning"] == "off"
    assert "已关闭（你选择了关闭）" in view.learning_note.text()
    view.reload()
    assert combo.currentData() == "off"
    row.reset_button.click()
    assert "learning" not in _config_file() and combo.currentData() == "auto"


def test_reset_to_default_unsets_only_that_key(view: SettingsView) -> None:
    config_mod.set_key("decayDays", 10)
    config_mod.set_key("confirm", False)
    view.reload()
    row = view.rows["decayDays"]
    assert row.editor.value() == 10
    row.reset_button.click()
    assert _config_file() == {"confirm": False}
    assert row.editor.value() == 30 and row.message.text() == tr("Back to the default.")
    assert not row.reset_button.isEnabled()
    view.rows["confirm"].reset_button.click()
    assert _config_file() == {} and view.rows["confirm"].editor.isChecked()


def test_a_broken_config_file_is_shown_and_nothing_is_written_over_it(view: SettingsView) -> None:
    path = paths.config_path()
    path.write_text('{"recallTopK": 4,', encoding="utf-8")
    view.reload()
    assert view.problem_label.text().startswith(
        config_reason(
            Message(msg.USING_DEFAULTS, reason=Message(msg.FILE_NOT_JSON, path=path, line=1, column=18))
        )
    )
    assert tr("Settings cannot be saved until config.json is fixed or deleted.") in view.problem_label.text()
    assert not view.save_button.isEnabled() and not view.provision_button.isEnabled()
    assert not any(row.reset_button.isEnabled() for row in view.rows.values())
    view.rows["recallTopK"].editor.setValue(7)
    view.save()  # even when called directly
    assert path.read_text(encoding="utf-8") == '{"recallTopK": 4,'
    assert view.status_label.text() == tr("Nothing saved: config.json is broken.")
    path.write_text('{"recallTopK": 0}', encoding="utf-8")  # valid JSON, one bad value: writable
    view.reload_button.click()
    assert (
        config_reason(
            Message(
                msg.KEY_VALUE_DEFAULT,
                key="recallTopK",
                value="0",
                reason=Message(msg.MUST_BE_RANGE, low=1, high=20),
            )
        )
        in view.problem_label.text()
    )
    # the 7 typed while the file was broken is not thrown away: it waits for Save
    assert view.save_button.isEnabled() and view.rows["recallTopK"].editor.value() == 7
    assert view.rows["recallTopK"].message.text() == tr("Changed, not saved yet.")
    view.rows["recallTopK"].editor.setValue(4)
    view.save_button.click()
    assert _config_file() == {"recallTopK": 4}
    view.reload()
    assert view.problem_label.isHidden()


# -- the side API key ----------------------------------------------------------------------------------
@needs_keyring
@pytest.mark.usefixtures("clean_keyring")
def test_key_is_saved_in_the_keyring_never_shown_and_cleared(
    qtbot, view: SettingsView, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    assert _keyring_works(), "the keyring backend must work here (gnome-keyring under dbus-run-session)"
    qtbot.waitUntil(lambda: view.key_status.text() == tr("Key: not set."))
    assert view.key_edit.echoMode() == QLineEdit.EchoMode.Password
    view.key_edit.setText("sk-settings-view-1234567890")
    view.save_key_button.click()
    qtbot.waitUntil(lambda: view.side_message.text() == tr("Key saved in the OS keyring."))
    assert secrets.get_api_key() == "sk-settings-view-1234567890"
    assert secrets.status().source == "keyring"
    assert view.key_edit.text() == "" and view.side_message.text() == tr("Key saved in the OS keyring.")
    qtbot.waitUntil(lambda: view.key_status.text() == tr("Key: set, in the OS keyring."))
    assert "sk-settings-view" not in _texts(view)
    for path in data_dir.rglob("*"):
        if path.is_file():
            assert b"sk-settings-view" not in path.read_bytes(), path
    monkeypatch.setenv(secrets.ENV, "sk-from-env")
    view.reload()
    overrides = tr("Key: set, from the environment variable {env}, which overrides the keyring.")
    qtbot.waitUntil(lambda: view.key_status.text() == overrides.format(env="MEMEVO_SIDE_API_KEY"))
    monkeypatch.delenv(secrets.ENV)
    view.clear_key_button.click()
    qtbot.waitUntil(lambda: view.side_message.text() == tr("Key removed from the keyring."))
    assert secrets.get_api_key() is None
    qtbot.waitUntil(lambda: view.key_status.text() == tr("Key: not set."))
    assert view.side_message.text() == tr("Key removed from the keyring.")
    assert not view.clear_key_button.isEnabled()  # no key left to clear
    view.clear_key()  # asked anyway (the key went between the status and the click): said
    qtbot.waitUntil(lambda: view.side_message.text() == tr("There was no key in the keyring."))


@needs_keyring
@pytest.mark.usefixtures("clean_keyring")
def test_a_key_file_from_before_a_keyring_is_used_until_moved(qtbot, view: SettingsView) -> None:
    """A keyring that works now changes nothing by itself: the file's key is said and used
    until the user clicks Move to the keyring, which deletes the file once the keyring has it."""
    secrets.write_file("sk-from-the-file-000000")
    view.reload()
    path = secrets.file_path()
    said = tr("Key: set, in {path}, a file only your account can read (not encrypted).").format(path=path)
    qtbot.waitUntil(lambda: view.key_status.text() == said)
    assert view.move_key_button.isVisibleTo(view) and view.file_check.isChecked()
    assert secrets.get_api_key() == "sk-from-the-file-000000"
    view.move_key_button.click()
    qtbot.waitUntil(
        lambda: view.side_message.text() == tr("Key moved to the OS keyring; its file is deleted.")
    )
    assert not path.exists() and secrets.keyring_api_key() == "sk-from-the-file-000000"
    qtbot.waitUntil(lambda: view.key_status.text() == tr("Key: set, in the OS keyring."))
    assert view.move_key_button.isHidden() and view.file_check.isHidden()


def test_without_a_keyring_saving_the_key_says_why(qtbot, view: SettingsView) -> None:
    """A keyring that fails at the save (it worked when the status was read: the key field
    was open) says why; where the status already said there is none, see the test below."""
    import keyring
    from keyring.backends import fail

    view.save_key()
    assert view.side_message.text() == tr("Key not saved: the field is empty.")
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        view.key_edit.setText("sk-nowhere-to-go")
        view.save_key()
        qtbot.waitUntil(lambda: not view.key_worker.busy)
        reason = view.side_message.text()
        no_keyring = problem(secrets.NO_KEYRING)  # core's reason, in the UI language
        assert "MEMEVO_SIDE_API_KEY" in no_keyring and no_keyring != secrets.NO_KEYRING
        assert reason == tr("Key not saved: {reason}").format(reason=no_keyring)
        view.reload()
        qtbot.waitUntil(lambda: not view.key_worker.busy)
        assert view.key_status.text() == tr("Key: not set.") + " " + tr(
            "The keyring cannot be used: {problem}"
        ).format(problem=no_keyring)
    finally:
        keyring.set_keyring(previous)
    assert "sk-nowhere-to-go" not in "\n".join(w.text() for w in view.findChildren(QLabel))


def test_without_a_keyring_the_key_can_be_kept_in_a_user_only_file(qtbot, view: SettingsView) -> None:
    """Issue 31, item 8: the remedy that reaches a tray app started at login. With no keyring
    (the tests' fail backend) the view says where the file is and that it is not encrypted,
    and keeps the key there only when ticked; clear deletes it."""
    from memevo.desktop.settings_key import file_words

    qtbot.waitUntil(lambda: not view.key_worker.busy and view.key_present is not None)
    assert view.file_check.isVisibleTo(view) and not view.file_check.isChecked()
    assert view.file_note.text() == file_words() and str(secrets.file_path()) in view.file_note.text()
    assert not view.clear_key_button.isEnabled()  # no key anywhere: nothing to clear
    # nowhere to keep a key until the file is ticked: the field and Save wait, and say so (a
    # real display showed "stored in the OS keyring" on a machine that has none)
    assert not view.key_edit.isEnabled() and not view.save_key_button.isEnabled()
    assert view.key_edit.placeholderText() == tr("API key (tick the file above to keep it there)")
    view.file_check.setChecked(True)
    assert view.key_edit.isEnabled() and view.save_key_button.isEnabled()
    assert view.key_edit.placeholderText() == tr("API key (kept in that file, never shown)")
    view.key_edit.setText("sk-kept-in-the-file-000")
    view.save_key_button.click()
    qtbot.waitUntil(lambda: not view.key_worker.busy and secrets.file_path().exists())
    path = secrets.file_path()
    qtbot.waitUntil(
        lambda: view.key_status.text().startswith(
            tr("Key: set, in {path}, a file only your account can read (not encrypted).").format(path=path)
        )
    )
    assert view.side_message.text() == tr(
        "Key saved in {path} (only your account can read it; not encrypted)."
    ).format(path=path)
    assert oct(path.stat().st_mode & 0o777) == "0o600" and secrets.status().source == "file"
    assert view.key_present and view.file_check.isChecked() and view.move_key_button.isHidden()
    assert view.clear_key_button.isEnabled()
    assert "sk-kept-in-the-file-000" not in _texts(view) and view.key_edit.text() == ""
    config = paths.config_path()
    assert not config.exists() or "sk-kept-in-the-file-000" not in config.read_text(encoding="utf-8")
    view.clear_key_button.click()
    qtbot.waitUntil(lambda: not path.exists() and not view.key_worker.busy)
    assert view.side_message.text() == tr("Key removed: its file {path} is deleted.").format(path=path)


# -- the connection test -----------------------------------------------------------------------------------
def _point_at(view: SettingsView, base: str, model: str = "judge-model") -> None:
    view.rows["sideApiBase"].editor.setText(base)
    view.rows["sideApiModel"].editor.setText(model)


def test_connection_ok_uses_the_fields_and_the_typed_key_without_saving(
    qtbot, view: SettingsView, server: FakeOpenAI
) -> None:
    server.script = [("text", "OK")]
    _point_at(view, server.base)
    view.key_edit.setText("sk-typed-not-saved-000")
    with qtbot.waitSignal(view.connection_tested, timeout=15000) as result:
        view.test_button.click()
    assert result.args[0] is True
    assert _matches(tr("Connection OK: answered in {ms} ms."), view.side_message.text(), ms=r"\d+")
    assert server.requests[0]["model"] == "judge-model"
    assert server.headers[0]["Authorization"] == "Bearer sk-typed-not-saved-000"
    assert not paths.config_path().exists()  # testing writes nothing
    assert view.test_button.isEnabled()


@pytest.mark.parametrize(
    ("step", "reason"),
    [
        (("status", 500), "the side API answered HTTP 500"),
        (("status", 401), "the side API answered HTTP 401"),
        (
            ("garbage", "<html>a login page</html>"),
            "the side API's answer is not a chat/completions response",
        ),
        (("sleep", 3), "the side API did not answer within 0.5 s"),
    ],
)
@pytest.mark.quiet  # asserts the product's own deadline: no other test's load
def test_connection_failures_are_said_in_plain_words(
    qtbot,
    view: SettingsView,
    server: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
    step: tuple[str, object],
    reason: str,
) -> None:
    monkeypatch.setenv(secrets.ENV, "sk-env-key")
    server.script = [step]
    _point_at(view, server.base)
    view.test_timeout_s = 0.5
    started = time.monotonic()
    with qtbot.waitSignal(view.connection_tested, timeout=15000) as result:
        view.test_button.click()
        clicked_in = time.monotonic() - started
        assert not view.test_button.isEnabled()  # running, off the UI thread
    assert clicked_in < 0.3
    failed = tr("Connection failed: {reason}").format(reason=reason)
    assert result.args == [False, failed] and view.side_message.text() == failed
    assert server.headers[0]["Authorization"] == "Bearer sk-env-key"
    assert view.test_button.isEnabled()
    if step[0] == "sleep":
        assert time.monotonic() - started < 2.5


@pytest.mark.usefixtures("clean_keyring")
def test_connection_test_refuses_without_a_url_or_key_and_reports_an_unreachable_host(
    qtbot, view: SettingsView, monkeypatch: pytest.MonkeyPatch
) -> None:
    _point_at(view, "not a url")
    view.test_button.click()
    reason = "must be an http:// or https:// URL"
    assert view.side_message.text() == tr("Cannot test: {field} {reason}").format(
        field=tr("Base URL"), reason=reason
    )
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there
    _point_at(view, f"http://127.0.0.1:{port}/v1")
    view.test_button.click()
    assert view.side_message.text() == tr("Cannot test: no API key is set.")
    monkeypatch.setenv(secrets.ENV, "sk-env-key")
    with qtbot.waitSignal(view.connection_tested, timeout=15000) as result:
        view.test_button.click()
    unreachable = "the side API could not be reached: ConnectError"
    assert result.args == [False, tr("Connection failed: {reason}").format(reason=unreachable)]


def test_closing_the_view_while_a_test_runs_is_harmless(qtbot, host: ServiceHost, server: FakeOpenAI) -> None:
    server.script = [("sleep", 1)]
    view = SettingsView(host)
    _point_at(view, server.base)
    view.key_edit.setText("sk-typed")
    view.test_timeout_s = 0.5
    view.test_button.click()
    view.deleteLater()
    qtbot.wait(50)
    for thread in threading.enumerate():
        if thread.name == "memevo-side-test":
            thread.join(5)  # its late result goes nowhere; an exception here would fail the test
    assert not any(t.name == "memevo-side-test" for t in threading.enumerate())


# -- the embedding model ----------------------------------------------------------------------------------
def test_provisioning_an_already_provisioned_model_fills_the_bar_and_sets_the_model(
    qtbot, view: SettingsView, provisioned_model, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = provision_mod.provision
    calls: list[str] = []

    def reported(model_id: str, progress: object) -> object:  # the real provisioning, plus progress
        calls.append(threading.current_thread().name)
        progress.stage("Checking the folder")  # type: ignore[attr-defined]
        progress.update(1, 2)  # type: ignore[attr-defined]
        return real(model_id, progress)  # type: ignore[arg-type]

    monkeypatch.setattr(provision_mod, "provision", reported)
    combo = view.model_combo
    assert combo.currentData() == DEFAULT_MODEL and combo.currentText() == tr("{model} ({state})").format(
        model=DEFAULT_MODEL, state=tr("{state}, in use").format(state=tr("provisioned"))
    )
    values: list[int] = []
    view.progress.valueChanged.connect(values.append)
    with qtbot.waitSignal(view.provision_finished, timeout=120000) as result:
        view.provision_button.click()
    assert calls == ["memevo-provision"]  # off the UI thread
    assert result.args[0] is True
    assert 50 in values and view.progress.value() == 100 and view.progress.maximum() == 100
    assert _config_file() == {"model": DEFAULT_MODEL}
    ready = tr("{model} is ready ({source}) and set as the model; it is used after memevo restarts.")
    assert view.model_message.text() == ready.format(model=DEFAULT_MODEL, source=provisioned_model.source)
    # set to the default model: Reset would change nothing, so it is not offered
    assert not view.rows["model"].reset_button.isEnabled() and view.provision_button.isEnabled()
    assert view.progress.isHidden()  # done: no bar left standing


@pytest.mark.quiet  # asserts the product's own deadline: no other test's load
def test_failed_provisioning_says_why_and_leaves_the_model_alone(
    qtbot, view: SettingsView, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMEVO_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)  # accepts the connection, never answers
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{silent.getsockname()[1]}")
    monkeypatch.setattr(provision_mod, "HUB_PROBE_TIMEOUT_S", 1.0)
    view.reload()
    combo = view.model_combo
    combo.setCurrentIndex(combo.findData(OTHER_MODEL))
    assert combo.currentText() == tr("{model} ({state})").format(
        model=OTHER_MODEL, state=tr("not provisioned")
    )
    try:
        with qtbot.waitSignal(view.provision_finished, timeout=30000) as result:
            started = time.monotonic()
            view.provision_button.click()
            assert time.monotonic() - started < 0.5  # the probe waits on a worker, not here
            assert view.progress.maximum() == 0 and not view.provision_button.isEnabled()
            assert not combo.isEnabled()
    finally:
        silent.close()
    reason = (
        f"could not provision {OTHER_MODEL} (hub: not reachable within 1 s); the previous model is unchanged"
    )
    expected = tr("Provisioning {model} failed: {reason}").format(model=OTHER_MODEL, reason=reason)
    assert result.args == [False, expected] and view.model_message.text() == expected
    assert not paths.config_path().exists()
    assert view.progress.value() == 0 and view.provision_button.isEnabled() and combo.isEnabled()
    assert combo.currentData() == DEFAULT_MODEL  # still the model in use
    assert not (tmp_path / "models" / "BAAI__bge-base-zh-v1.5").exists()


def test_recall_cues_are_greyed_until_a_side_api_can_write_them(
    qtbot, view: SettingsView, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31, item 9: the box was ticked and clickable with no side model to write cues."""
    cues = view.rows["recallCues"].editor
    qtbot.waitUntil(lambda: view.key_present is not None)
    assert view.key_present is False and not cues.isEnabled()
    assert cues.isChecked()  # the saved preference stays, for when a side API exists
    assert cues.toolTip() == tr(
        "Needs a side API (its address, model and key, below): its model writes the cues."
    )
    assert "旁路接口" in cues.toolTip()  # in the UI's language
    config_mod.set_key("sideApiBase", "http://127.0.0.1:9/v1")
    config_mod.set_key("sideApiModel", "judge-mini")
    monkeypatch.setenv("MEMEVO_SIDE_API_KEY", "sk-test-local-only-0000000000")
    view.reload()
    qtbot.waitUntil(lambda: view.key_present is True and cues.isEnabled())  # when the key status came
    assert cues.toolTip() == ""
